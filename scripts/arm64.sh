#!/usr/bin/env bash
# The arm64 (Raspberry Pi OS 64-bit) build on an amd64 Debian machine, from Debian's packages
# only: Debian 13's own Swift (`swiftlang` 6.0.3, amd64) cross-compiles in a trixie amd64 root made
# by debootstrap, against Debian's arm64 packages installed beside it (multiarch: libc6-dev:arm64,
# libstdc++-14-dev:arm64 and the -dev libraries of scripts/deps.sh, :arm64) and the aarch64 Swift
# standard library and runtime of Debian's arm64 `swiftlang`/`libswiftlang` (the same version,
# unpacked with dpkg-deb in the root's /opt/swift-arm64). Swift's own lld links. What it builds
# runs here as aarch64 under qemu-user (binfmt_misc). Why cross-compiling and not Debian's arm64
# Swift emulated: docs/decisions.md (about 11 times slower).
#
# Usage (as root): scripts/arm64.sh COMMAND
#   release DIR    release build of garaged and garage-pins with the Makefile's SWIFTFLAGS (static
#                  Swift standard library), copied (unstripped) to DIR/   (scripts/package.sh --arch arm64)
#   unit-tests     swift build --build-tests for arm64, then DoorCore's tests as aarch64 under qemu
#   run DIR CMD... CMD in the root, in DIR (a host folder, bind-mounted at /work), with
#                  DEB_HOST_ARCH=arm64 (dpkg-shlibdeps reads the arm64 libraries' symbols files)
#   shell          a shell in the root, with the copy of the checkout at /src
#   binfmt         only make sure the kernel runs aarch64 binaries through qemu-user-static
# Env: GARAGED_DEBIAN_MIRROR (default http://deb.debian.org/debian)
# The root is cached in .cache/arm64/cross-root, keyed by a stamp of its package list (first run:
# debootstrap and apt, native speed, about 2 minutes here). The checkout is copied (rsync, without
# .git, .build* and .cache) to .cache/arm64/src, the root's /src, whose .build-*-arm64/ folders stay
# between runs. Swift packages come as the host's git gets them (as scripts/debian-swift.sh does).
# "A && B || fail" is meant (fail exits); '${Version}' and '$(SWIFTFLAGS)' are dpkg's and make's.
# shellcheck disable=SC2015,SC2016
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

started=$SECONDS
mirror=${GARAGED_DEBIAN_MIRROR:-http://deb.debian.org/debian}
base=$PWD/.cache/arm64
# GARAGED_ROOT_CACHE: a folder to keep the root in instead of this checkout's .cache (.ci/run keeps
# it outside its fresh clone, so only a machine's first run makes it).
root=${GARAGED_ROOT_CACHE:-$PWD/.cache}/arm64/cross-root
src=$base/src
triple=aarch64-unknown-linux-gnu
# The aarch64 Swift inside the root: lib/swift (modules and shared runtime, for the tests),
# lib/swift_static (what --static-swift-stdlib links) and lib/clang (the compiler's C headers).
swift_arm64=/opt/swift-arm64/usr/libexec/swift/lib
mounted=()
# shellcheck source=scripts/lib/root.sh
. scripts/lib/root.sh

# (On stderr for run: its caller reads the command's output.)
say() { if [ "${command:-}" = run ]; then echo "arm64: $*" >&2; else echo "arm64: $*"; fi; }
fail() { say "FAIL: $*" >&2; exit 1; }
step() { say "[$((SECONDS - started)) s] $*"; }
took() { say "    took $((SECONDS - $1)) s"; }

command=${1:-}
case "$command" in
release) [ $# = 2 ] || fail "usage: scripts/arm64.sh release DIR" ;;
run) [ $# -ge 3 ] && [ -d "$2" ] || fail "usage: scripts/arm64.sh run DIR CMD ... (DIR a folder)" ;;
unit-tests | shell | binfmt) [ $# = 1 ] || fail "usage: scripts/arm64.sh $command" ;;
-h | --help) sed -n '2,23p' "$0"; exit 0 ;;
*) fail "unknown command '$command' (try --help)" ;;
esac
[ "$(id -u)" = 0 ] || fail "run as root (debootstrap, chroot, mount, binfmt_misc)"
[ "$(dpkg --print-architecture)" = amd64 ] || fail "this cross build is for an amd64 host (on an arm64 one: make deb)"

# Aarch64 binaries run through qemu-user-static; the F flag (Debian's registration sets it) opens
# the interpreter at registration, so it works inside any root without a copy of qemu there.
binfmt_entry=/proc/sys/fs/binfmt_misc/qemu-aarch64
binfmt_ok() { [ -r "$binfmt_entry" ] && [ "$(head -n 1 "$binfmt_entry")" = enabled ] && grep -q '^flags: .*F' "$binfmt_entry"; }
ensure_binfmt() {
    binfmt_ok && return 0
    [ -x /usr/bin/qemu-aarch64-static ] && command -v update-binfmts >/dev/null ||
        scripts/deps.sh qemu-user-static binfmt-support
    [ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc ||
        fail "cannot mount binfmt_misc (in a container: the host must register qemu-aarch64 with the F flag)"
    [ -e "$binfmt_entry" ] || update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
    if [ ! -e "$binfmt_entry" ]; then
        printf '%s' ':qemu-aarch64:M::\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00:\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff:/usr/bin/qemu-aarch64-static:F' \
            > /proc/sys/fs/binfmt_misc/register || true
    fi
    binfmt_ok || fail "aarch64 binaries do not run through qemu-user with the F flag ($binfmt_entry: $(tr '\n' ' ' < "$binfmt_entry" 2>/dev/null))"
    say "binfmt: aarch64 runs through $(sed -n 's/^interpreter //p' "$binfmt_entry")"
}

if [ "$command" = binfmt ]; then ensure_binfmt; exit 0; fi

# One user of the root at a time (package.sh and package-test.sh call this one after another).
mkdir -p "$base" "$(dirname "$root")"
exec 9> "$(dirname "$root")/.lock"
flock 9

# The root's packages: Debian's Swift and what SwiftPM and packaging use (amd64), the C side of
# the arm64 target (its libc and libstdc++ for the Swift runtime's link line, and the -dev
# libraries scripts/deps.sh names), and binutils for aarch64 (dpkg-shlibdeps' objdump).
read -r -a deps < <(scripts/deps.sh --print)
arm64_packages=(libc6-dev libstdc++-14-dev)
for p in "${deps[@]}"; do [[ "$p" == *-dev ]] && arm64_packages+=("$p"); done
packages=(swiftlang git ca-certificates libc6-dev binutils-aarch64-linux-gnu dpkg-dev "${arm64_packages[@]/%/:arm64}")
stamp="debootstrap --variant=minbase trixie $mirror; dpkg --add-architecture arm64; apt-get install --no-install-recommends ${packages[*]}; swiftlang:arm64 libswiftlang:arm64 in /opt/swift-arm64"

cleanup() {
    local rc=$?
    unmount_all "$root"
    [ "$rc" = 0 ] || say "FAIL in $((SECONDS - started)) s"
    exit "$rc"
}


# A command inside the root, with a clean environment, Debian's (amd64) Swift on PATH and a deadline.
in_root() { # SECONDS CMD...
    local limit=$1; shift
    timeout --kill-after=10 "$limit" chroot "$root" /usr/bin/env -i \
        PATH=/usr/libexec/swift/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
        LANG=C.UTF-8 TERM="${TERM:-dumb}" DEBIAN_FRONTEND=noninteractive \
        LD_LIBRARY_PATH=/usr/libexec/swift/lib/swift/linux "$@"
}

remove_root() {
    unmount_all "$root"
    if awk -v r="$root" 'index($2, r "/") == 1 {found=1} END {exit !found}' /proc/self/mounts; then
        fail "something is still mounted under $root; not removing it"
    fi
    rm -rf --one-file-system "$root" "$root.tmp"
}

trap cleanup EXIT
trap 'exit 130' INT TERM

command -v debootstrap >/dev/null || scripts/deps.sh debootstrap
command -v rsync >/dev/null || scripts/deps.sh rsync
ensure_binfmt

# The cached root: made once, again when the package list changes.
if [ ! -f "$root/.garaged-cache" ] || [ "$(cat "$root/.garaged-cache")" != "$stamp" ]; then
    step "no cached root for: $stamp (first run only)"
    remove_root
    t=$SECONDS
    bootstrap_root
    took "$t"
    mount_in tmpfs tmpfs /tmp
    step "apt-get install ${#packages[@]} packages (swiftlang; ${#arm64_packages[@]} of them :arm64)"
    t=$SECONDS
    in_root 60 dpkg --add-architecture arm64
    apt_install_in_root "${packages[@]}"
    took "$t"
    # The arm64 swiftlang cannot be installed beside the amd64 one (same files, not Multi-Arch):
    # its lib/ folders are unpacked instead, from the .debs of exactly the amd64 compiler's version.
    version=$(in_root 30 dpkg-query -W -f='${Version}' swiftlang)
    step "the aarch64 Swift library: swiftlang:arm64 and libswiftlang:arm64 $version, unpacked"
    t=$SECONDS
    in_root 600 bash -c "set -e; cd /tmp; apt-get -q -o APT::Sandbox::User=root download \
        swiftlang:arm64=$version libswiftlang:arm64=$version; rm -rf /opt/swift-arm64; mkdir -p /opt/swift-arm64
        for deb in swiftlang_*_arm64.deb libswiftlang_*_arm64.deb; do
            dpkg-deb --fsys-tarfile \$deb | tar -x -C /opt/swift-arm64 --wildcards \
                --exclude='./usr/libexec/swift/lib/lib*' './usr/libexec/swift/lib/*'
        done; rm -f /tmp/*.deb" >> "$base/apt.log" 2>&1 ||
        { tail -n 20 "$base/apt.log"; fail "the arm64 Swift library (log: .cache/arm64/apt.log)"; }
    [ -f "$root$swift_arm64/swift_static/linux/libswiftCore.a" ] && [ -f "$root$swift_arm64/swift/linux/libswiftCore.so" ] ||
        fail "no aarch64 libswiftCore in $swift_arm64"
    in_root 300 apt-get clean
    took "$t"
    unmount_all "$root"
    echo "$stamp" > "$root/.garaged-cache"
fi

cp /etc/resolv.conf "$root/etc/resolv.conf"
mount_in proc proc /proc
mount_in bind /dev /dev
mount_in tmpfs tmpfs /run
mount_in tmpfs tmpfs /tmp

if [ "$command" = run ]; then
    mount_in bind "$(cd "$2" && pwd)" /work
    shift 2
    in_root 600 env DEB_HOST_ARCH=arm64 bash -c 'cd /work && exec "$@"' run "$@"
    exit
fi

# The checkout, as a fresh clone has it; rsync leaves unchanged files alone (incremental builds).
t=$SECONDS
mkdir -p "$src"
rsync -a --delete --exclude=/.git --exclude='/.build*' --exclude=/.cache --exclude=/.swiftpm \
    --exclude=/.demo --exclude=__pycache__ ./ "$src/"
step "checkout copied to .cache/arm64/src ($((SECONDS - t)) s)"
mount_in bind "$src" /src

share_host_trust

if [ "$command" = shell ]; then
    step "a shell in the root (exit to unmount)"
    in_root 86400 bash -c 'cd /src && exec bash -i' || true
    exit 0
fi

# SwiftPM for the arm64 target: the triple, the aarch64 Swift library as the resource folder, Swift's
# lld (the default gold would need a binutils-gold for aarch64), and the arm64 .pc files.
cross_build() { # LOG SWIFT-BUILD-ARGS...
    local log=$1; shift
    in_root 3600 env PKG_CONFIG_PATH=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig \
        bash -c 'cd /src && exec swift build --triple '"$triple"' -Xswiftc -use-ld=lld "$@"' swift-build "$@" \
        > "$log" 2>&1 || { grep -v '^\[' "$log" | awk '!seen[$0]++' | tail -n 60; fail "swift build (log: ${log#"$PWD"/})"; }
    grep -v '^\[' "$log" | grep -v -e '^Build complete' -e '^Building for' -e 'Could not read SDKSettings.json' || true
}

if [ "$command" = release ]; then
    out=$2
    # The Makefile's flags (release, --static-swift-stdlib, no rpath, -z now): one place for both.
    read -r -a swiftflags < <(make --no-print-directory -s print-swiftflags)
    [[ " ${swiftflags[*]} " == *" --static-swift-stdlib "* ]] || fail "the Makefile's SWIFTFLAGS lost --static-swift-stdlib: ${swiftflags[*]}"
    step "swift build ${swiftflags[*]} for $triple (Debian's $(in_root 60 swift --version 2>/dev/null | head -n 1))"
    t=$SECONDS
    # swift_static as the resource folder: what a native --static-swift-stdlib build uses
    # (-use-static-resource-dir), and where the driver finds static-stdlib-args.lnk.
    cross_build "$base/release.log" "${swiftflags[@]}" --scratch-path /src/.build-package-arm64 \
        -Xswiftc -resource-dir -Xswiftc "$swift_arm64/swift_static"
    took "$t"
    built=$src/.build-package-arm64/$triple/release
    for b in garaged garage-pins; do
        # ELF e_machine 0xb7 is EM_AARCH64.
        [ "$(od -An -tx1 -j18 -N2 "$built/$b" | tr -d ' ')" = b700 ] || fail "$built/$b is not an aarch64 executable"
        needed=$(in_root 30 aarch64-linux-gnu-readelf -d "/src/.build-package-arm64/$triple/release/$b")
        ! grep -q 'libswift' <<< "$needed" || fail "$b needs a shared Swift runtime library: not static"
    done
    mkdir -p "$out"
    install -m 0755 "$built/garaged" "$built/garage-pins" "$out/"
    say "aarch64 garaged and garage-pins in $out ($((SECONDS - started)) s in all)"
    exit 0
fi

# unit-tests: a debug build with the tests, linked to the aarch64 shared Swift runtime (its RUNPATH
# is the root's /opt/swift-arm64), and DoorCore's test classes run as aarch64 in the root.
step "swift build --build-tests for $triple"
t=$SECONDS
cross_build "$base/tests-build.log" --build-tests --scratch-path /src/.build-tests-arm64 \
    -Xswiftc -resource-dir -Xswiftc "$swift_arm64/swift"
took "$t"
bundle=/src/.build-tests-arm64/$triple/debug/garagedPackageTests.xctest
classes=$(in_root 120 env -u LD_LIBRARY_PATH "$bundle" --list-tests 2>/dev/null | sed -n 's|^\(DoorCoreTests\.[A-Za-z0-9_]*\)/.*|\1|p' | sort -u | paste -sd, -)
[ -n "$classes" ] || fail "no DoorCoreTests classes in $bundle --list-tests"
step "DoorCore's tests as aarch64 under qemu-user ($(tr ',' '\n' <<< "$classes" | grep -c .) classes)"
t=$SECONDS
status=0
in_root 1800 env -u LD_LIBRARY_PATH "$bundle" "$classes" > "$base/unit-tests.log" 2>&1 || status=$?
grep -E 'error:|Fatal|crashed' "$base/unit-tests.log" | head -n 40 || true
summary=$(grep -A1 "^Test Suite 'Selected tests' \(passed\|failed\)" "$base/unit-tests.log" | sed -n 's/^[[:space:]]*Executed \([0-9]*\) tests\{0,1\}, with \([0-9]*\) failures\{0,1\}.*/\1 \2/p' | tail -n 1)
[ -n "$summary" ] || { tail -n 20 "$base/unit-tests.log"; fail "DoorCore's tests did not finish (exit $status; log: .cache/arm64/unit-tests.log)"; }
read -r ran failed <<< "$summary"
say "DoorCore's unit tests as aarch64: $((ran - failed)) of $ran passed, $failed failed, in $((SECONDS - t)) s under emulation"
[ "$status" = 0 ] && [ "$failed" = 0 ] || fail "DoorCore's tests failed as aarch64 (log: .cache/arm64/unit-tests.log)"

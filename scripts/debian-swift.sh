#!/usr/bin/env bash
# Builds the main package and runs its tests with Debian's own Swift: trixie's `swiftlang`
# (6.0.3), the compiler a Raspberry Pi OS (trixie) owner gets from apt, which is older than the
# Swift garaged is developed with. In a Debian 13 (trixie) amd64 root made by debootstrap, with
# swiftlang and the build and test dependencies from Debian's mirror: `swift build
# --build-tests`, then `swift test` (every test that a chroot can give what it needs).
#
# Usage (as root): scripts/debian-swift.sh [--shell] [SWIFT-TEST-ARGS ...]
#   SWIFT-TEST-ARGS go to `swift test` (e.g. --filter DoorCoreTests).
#   --shell   a shell in the root, with everything mounted, instead of the build and tests.
# Env: GARAGED_DEBIAN_MIRROR (default http://deb.debian.org/debian); GARAGED_ROOT_CACHE, a
# folder to keep the root in instead of this checkout's .cache (.ci/run keeps it outside its
# fresh clone, so only a machine's first run makes it).
# The root is cached in .cache/debian-swift/trixie-root, keyed by a stamp of its package list
# (first run: debootstrap and apt, a few minutes), and used directly: /tmp and /run are tmpfs in
# it. The checkout is copied (rsync, without .git, .build* and .cache) to
# .cache/debian-swift/src, which the root sees as /src; its .build/ stays there between runs so a
# second run builds only what changed. The Swift packages come the way the host's git gets them:
# its url.<base>.insteadOf settings are copied into the root and a local <base> folder is
# bind-mounted read-only at the same path (docs/decisions.md). In the chroot Debian's `swift`
# needs /proc (without it the driver stops with signal 4) and, for libswiftCore.so where /proc is
# not enough, LD_LIBRARY_PATH=/usr/libexec/swift/lib/swift/linux (set; what it builds has a RUNPATH).
# Ctrl-C or SIGTERM stops what runs in the root and unmounts everything.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

started=$SECONDS
mirror=${GARAGED_DEBIAN_MIRROR:-http://deb.debian.org/debian}
base=$PWD/.cache/debian-swift
root=${GARAGED_ROOT_CACHE:-$PWD/.cache}/debian-swift/trixie-root
src=$base/src
mounted=()
# shellcheck source=scripts/lib/root.sh
. scripts/lib/root.sh

say() { echo "debian-swift: $*"; }
fail() { say "FAIL: $*"; exit 1; }
step() { say "[$((SECONDS - started)) s] $*"; }
took() { say "    took $((SECONDS - $1)) s"; }

shell=0
if [ "${1:-}" = --shell ]; then shell=1; shift; fi
[ "$(id -u)" = 0 ] || fail "run as root (debootstrap, chroot, mount)"

# The root's packages: what scripts/deps.sh installs to build and test (the -dev packages,
# pkg-config, mosquitto, ...) and what scripts/test.sh adds (zbar-tools, avahi, dbus), then
# Debian's Swift, git for SwiftPM, python3-venv for aiohomekit (scripts/homekit-tools.sh),
# iproute2 for the HomeKit discovery test's namespace, systemd for the journal test's journald,
# libstdc++-14-dev for a release build with the static Swift standard library (make deb).
read -r -a deps < <(scripts/deps.sh --print zbar-tools avahi-daemon avahi-utils dbus)
packages=(swiftlang git libstdc++-14-dev ca-certificates python3 python3-venv iproute2 systemd "${deps[@]}")
stamp="debootstrap --variant=minbase trixie $mirror; apt-get install --no-install-recommends ${packages[*]}"

cleanup() {
    local rc=$?
    exec 1>&7 2>&8   # a signal during in_root ... > FILE runs the traps with that redirection
    stop_root_processes
    unmount_all "$root"
    if [ "$rc" = 0 ]; then say "PASS in $((SECONDS - started)) s"; else say "FAIL in $((SECONDS - started)) s"; fi
    exit "$rc"
}


# A command inside the root, with a clean environment, Debian's Swift and a deadline. In the
# background and waited for, so that Ctrl-C or SIGTERM runs the trap at once (timeout's process
# group is its own: a terminal's Ctrl-C does not reach it).
root_env=(/usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
          LANG=C.UTF-8 TERM="${TERM:-dumb}" DEBIAN_FRONTEND=noninteractive
          LD_LIBRARY_PATH=/usr/libexec/swift/lib/swift/linux)
in_root() { # SECONDS CMD...
    local limit=$1; shift
    timeout --kill-after=10 "$limit" chroot "$root" "${root_env[@]}" "$@" &
    wait $!
}

# Every process whose root is the chroot (the tests' daemons, SwiftPM's children: each in a
# process group of its own), by id: TERM, then KILL to what is left after 5 s.
stop_root_processes() {
    local sig p r left
    for sig in TERM KILL; do
        left=0
        for p in /proc/[0-9]*; do
            r=$(readlink "$p/root" 2>/dev/null) || continue
            if [ "$r" = "$root" ] || [ "${r#"$root"/}" != "$r" ]; then
                kill -s "$sig" "${p#/proc/}" 2>/dev/null && left=1
            fi
        done
        [ "$left" = 1 ] || return 0
        [ "$sig" = KILL ] || for _ in $(seq 50); do sleep 0.1; still_in_root || break; done
    done
}
still_in_root() {
    local p r
    for p in /proc/[0-9]*; do
        r=$(readlink "$p/root" 2>/dev/null) || continue
        if [ "$r" = "$root" ] || [ "${r#"$root"/}" != "$r" ]; then return 0; fi
    done
    return 1
}

# Never rm -r a tree that still has /dev or /proc mounted in it.
remove_root() {
    unmount_all "$root"
    if awk -v r="$root" 'index($2, r "/") == 1 || $2 == r {found=1} END {exit !found}' /proc/self/mounts; then
        fail "something is still mounted under $root; not removing it"
    fi
    rm -rf --one-file-system "$root" "$root.tmp"
}

exec 7>&1 8>&2
trap cleanup EXIT
trap 'exit 130' INT TERM

command -v debootstrap >/dev/null || scripts/deps.sh debootstrap
command -v rsync >/dev/null || scripts/deps.sh rsync
mkdir -p "$base" "$(dirname "$root")"
# One run at a time: the root, its mounts and the copy are shared.
exec 9> "$(dirname "$root")/lock"
flock -w 3600 9 || fail "another scripts/debian-swift.sh still runs after an hour"

# The cached root: made once (in .tmp, renamed when complete), again when the package list changes.
if [ ! -f "$root/.garaged-cache" ] || [ "$(cat "$root/.garaged-cache")" != "$stamp" ]; then
    step "no cached root for: $stamp (first run only)"
    remove_root
    t=$SECONDS
    # apt in it (without its stamp until apt is done, so a failure starts again next time).
    bootstrap_root
    took "$t"
    step "apt-get install ${#packages[@]} packages (swiftlang and the build and test dependencies)"
    t=$SECONDS
    apt_install_in_root "${packages[@]}"
    in_root 300 apt-get clean
    took "$t"
    unmount_all "$root"
    echo "$stamp" > "$root/.garaged-cache"
fi

# shellcheck disable=SC2016 # dpkg-query's format, not the shell's
step "Debian's Swift: $(chroot "$root" dpkg-query -W -f='${Package} ${Version}' swiftlang)"

# The checkout, as a fresh clone would have it (no .git, no build folders, no caches); rsync
# leaves unchanged files alone, so .build/ in the copy only rebuilds what changed.
t=$SECONDS
rsync -a --delete --exclude=/.git --exclude='/.build*' --exclude=/.cache --exclude=/.swiftpm \
    --exclude=/.demo --exclude=__pycache__ ./ "$src/"
step "checkout copied to .cache/debian-swift/src ($((SECONDS - t)) s)"

cp /etc/resolv.conf "$root/etc/resolv.conf"
# The root a mount point of its own: `unshare --mount` (the journal and HomeKit discovery tests)
# makes / private first, which fails with EINVAL on a chroot's plain folder.
mount_in bind "$root" ""
mount_in proc proc /proc
# With the host's cgroup hierarchies: the journal test's systemd-journald stops without them.
mount_in rbind /sys /sys
mount_in bind /dev /dev
mount_in bind /dev/pts /dev/pts
mount_in tmpfs tmpfs /dev/shm
mount_in tmpfs tmpfs /run
mount_in tmpfs tmpfs /tmp
mount_in bind "$src" /src

share_host_trust

if [ "$shell" = 1 ]; then
    step "a shell in the root (exit to unmount)"
    timeout --foreground 86400 chroot "$root" "${root_env[@]}" bash -c 'cd /src && exec bash -i' || true
    exit 0
fi

step "aiohomekit for the HomeKit tests (scripts/homekit-tools.sh, with the root's python3)"
t=$SECONDS
hapctl=$(in_root 600 /src/scripts/homekit-tools.sh) || fail "scripts/homekit-tools.sh in the root"
took "$t"

step "swift build --build-tests (Debian's $(in_root 60 swift --version 2>/dev/null | head -n 1))"
t=$SECONDS
in_root 3600 bash -c 'cd /src && swift build --build-tests -Xswiftc -warnings-as-errors' > "$base/build.log" 2>&1 ||
    { grep -v '^\[' "$base/build.log" | awk '!seen[$0]++' | tail -n 60; fail "swift build (log: .cache/debian-swift/build.log)"; }
grep -v '^\[' "$base/build.log" | grep -v '^Build complete' || true
took "$t"

step "swift test --skip-build $*"
t=$SECONDS
status=0
in_root 3600 env GARAGED_HAPCTL_PYTHON="$hapctl" bash -c 'cd /src && exec swift test --skip-build "$@"' swift-test "$@" \
    > "$base/test.log" 2>&1 || status=$?
count() { grep -c "^Test Case '.*' $1 (" "$base/test.log" || true; }
say "    XCTest: $(count passed) passed, $(count skipped) skipped, $(count failed) failed"
# Why: each failed assertion and skip, once; and a crash, which leaves no summary.
grep -E ": error: |: Test skipped - |Fatal error|Exited with (signal|unexpected)" "$base/test.log" | awk '!seen[$0]++' | head -n 60 || true
took "$t"
[ "$status" = 0 ] || fail "swift test exited $status (log: .cache/debian-swift/test.log)"

#!/usr/bin/env bash
# Installs the Debian package for real and opens the door with it: in a fresh copy of a cached
# Debian 12 (bookworm) minbase root, `dpkg -i` (refused: missing dependencies), `apt-get -f
# install` (they come from Debian's mirror and postinst runs), `garage-pins init`, garaged
# started by hand with the unit's capabilities and group (no systemd in a chroot), `12345O=1`
# over the local socket, the simulated relay's 1 then 0, SIGTERM, then `dpkg --purge` and a
# check that every file the package installed is gone and only what policy keeps stays.
#
# Usage (as root): scripts/package-test.sh [--arch arm64] [--no-unit-tests] [PATH.deb]
#                                                   (make package-test [ARCH=arm64])
#   without PATH.deb it runs scripts/package.sh [--arch arm64] first.
#   --arch arm64 (on amd64): the same steps in a Debian 13 (trixie, Raspberry Pi OS's base) arm64
#   root, every binary in it run as aarch64 by qemu-user (binfmt); the press's width under
#   emulation is printed as a figure, not checked. Then DoorCore's unit tests, built for arm64
#   and run as aarch64 (scripts/arm64.sh unit-tests), unless --no-unit-tests.
# Env: GARAGED_DEBIAN_MIRROR (default http://deb.debian.org/debian); GARAGED_ROOT_CACHE, a folder
# to keep the cached roots in instead of this checkout's .cache (.ci/run: outside its fresh clone).
# The root is cached in .cache/package/debian12-root (first run: debootstrap, about a minute
# here; trixie-arm64-root for arm64: about 4 minutes, emulated) and never used directly; each
# run works in .cache/package/test-root (test-root-arm64), made anew. At the end: each step's time.
# "A && B || fail" is meant (fail exits); '${Status}' is dpkg-query's format, not the shell's.
# shellcheck disable=SC2015,SC2016
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

started=$SECONDS
mirror=${GARAGED_DEBIAN_MIRROR:-http://deb.debian.org/debian}
arch=$(dpkg --print-architecture)
host_arch=$arch
unit_tests=yes
args=()
while [ $# -gt 0 ]; do
    case "$1" in
    --arch) [ $# -ge 2 ] || { echo "package-test: --arch needs an architecture" >&2; exit 2; }; arch=$2; shift ;;
    --arch=*) arch=${1#--arch=} ;;
    --no-unit-tests) unit_tests=no ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    -*) echo "package-test: unknown option $1" >&2; exit 2 ;;
    *) args+=("$1") ;;
    esac
    shift
done
set -- "${args[@]}"
# Natively: Debian 12. Another architecture (arm64 on amd64): Debian 13, emulated, with more time
# for each wait (slow).
if [ "$arch" = "$host_arch" ]; then
    suite=bookworm
    boot_args=()
    cache=${GARAGED_ROOT_CACHE:-$PWD/.cache}/package/debian12-root
    work=$PWD/.cache/package/test-root
    emulated=no
    slow=1
    unitdir=/lib/systemd/system
else
    [ "$arch" = arm64 ] && [ "$host_arch" = amd64 ] || { echo "package-test: arm64 on amd64 only, not $arch on $host_arch" >&2; exit 2; }
    suite=trixie
    boot_args=(--arch="$arch")
    cache=${GARAGED_ROOT_CACHE:-$PWD/.cache}/package/$suite-$arch-root
    work=$PWD/.cache/package/test-root-$arch
    emulated=yes
    slow=6
    unitdir=/usr/lib/systemd/system
fi
stamp="debootstrap ${boot_args[*]:+${boot_args[*]} }--variant=minbase $suite $mirror"
daemon_pid=""
mounted=()
verdict=FAIL
step_names=()
step_times=()
step_name=""
step_at=$SECONDS

say() { echo "package-test: $*"; }
fail() { say "FAIL: $*"; exit 1; }
end_step() {
    [ -n "$step_name" ] && step_names+=("$step_name") && step_times+=("$((SECONDS - step_at))")
    step_name=""
}
step() { end_step; say "[$((SECONDS - started)) s] $*"; step_name=$*; step_at=$SECONDS; }
step_report() {
    end_step
    local i
    say "time of each step:"
    for i in "${!step_names[@]}"; do printf 'package-test: %6s s  %.90s\n' "${step_times[i]}" "${step_names[i]}"; done
}

cleanup() {
    local rc=$?
    if [ -n "$daemon_pid" ] && kill -0 "$daemon_pid" 2>/dev/null; then
        kill -TERM "$daemon_pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$daemon_pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$daemon_pid" 2>/dev/null || true
    fi
    unmount_all "$work"
    step_report
    if [ "$verdict" = PASS ] && [ "$rc" = 0 ]; then
        remove_work
        say "PASS in $((SECONDS - started)) s"
    else
        [ -n "${log_dir:-}" ] && [ -d "$log_dir" ] && say "logs and the root are left in $work for a look (the next run removes them)"
        say "FAIL in $((SECONDS - started)) s"
        [ "$rc" = 0 ] && rc=1
    fi
    exit "$rc"
}

# mount_in and unmount_all, in the work root.
root=$work
# shellcheck source=scripts/lib/root.sh
. scripts/lib/root.sh

# Never rm -r a tree that still has /dev or /proc mounted in it.
remove_work() {
    if awk -v w="$work" 'index($2, w "/") == 1 {found=1} END {exit !found}' /proc/self/mounts; then
        fail "something is still mounted under $work; not removing it"
    fi
    rm -rf --one-file-system "$work"
}

# A command inside the root, with a clean environment and a deadline (longer when emulated).
in_root() { # SECONDS CMD...
    local limit=$(($1 * slow)); shift
    timeout --kill-after=5 "$limit" chroot "$work" /usr/bin/env -i \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
        DEBIAN_FRONTEND=noninteractive "$@"
}

# Waits until CMD succeeds, at most SECONDS.
wait_until() { # SECONDS WHAT CMD...
    local limit=$1 what=$2; shift 2
    local end=$((SECONDS + limit))
    until "$@"; do
        [ "$SECONDS" -lt "$end" ] || fail "$what: not within $limit s"
        sleep 0.1
    done
}

trap cleanup EXIT
trap 'exit 130' INT TERM

[ "$(id -u)" = 0 ] || fail "run as root (chroot, mount, dpkg in the root)"

# The package: given, or built now.
if [ $# -ge 1 ]; then
    deb=$1
else
    if [ "$emulated" = yes ]; then
        step "building the package (scripts/package.sh --arch $arch)"
        # Shown as it goes through a copy of stderr: `tee /dev/stderr` would reopen it, and where
        # stderr is a file (a CI log) that truncates everything written before.
        deb=$(scripts/package.sh --arch "$arch" --no-lintian | tee >(cat >&2) | tail -n 1)
    else
        step "building the package (scripts/package.sh)"
        deb=$(scripts/package.sh --no-lintian | tail -n 1)
    fi
fi
[ -f "$deb" ] || fail "no package at $deb"
deb_name=$(basename "$deb")
step "package $deb"

command -v debootstrap >/dev/null || scripts/deps.sh debootstrap
command -v python3 >/dev/null || scripts/deps.sh python3
[ "$(dpkg-deb --field "$deb" Architecture)" = "$arch" ] || fail "$deb_name is not for $arch"
if [ "$emulated" = yes ]; then scripts/arm64.sh binfmt; fi

# The cached root: made once (into .tmp, renamed when complete), then only ever copied.
if [ ! -f "$cache/.garaged-cache" ] || [ "$(cat "$cache/.garaged-cache")" != "$stamp" ]; then
    step "no cached root: $stamp (first run only)"
    rm -rf --one-file-system "$cache" "$cache.tmp"
    mkdir -p "$(dirname "$cache")"
    boot_started=$SECONDS
    boot_log=.cache/package/debootstrap-$suite-$arch.log
    timeout --kill-after=10 1800 debootstrap "${boot_args[@]}" --variant=minbase "$suite" "$cache.tmp" "$mirror" \
        > "$PWD/$boot_log" 2>&1 ||
        { tail -n 20 "$PWD/$boot_log"; fail "debootstrap failed (log: $boot_log)"; }
    echo "$stamp" > "$cache.tmp/.garaged-cache"
    mv "$cache.tmp" "$cache"
    step "cached root made in $((SECONDS - boot_started)) s"
fi

unmount_all "$work"
[ -e "$work" ] && remove_work
step "fresh copy of the cached root"
cp -a "$cache" "$work"
log_dir=$work/.garaged-test
mkdir -p "$log_dir"
cp /etc/resolv.conf "$work/etc/resolv.conf"
mount_in proc proc /proc
mount_in sysfs sysfs /sys
mount_in bind /dev /dev
mount_in tmpfs tmpfs /run
cp "$deb" "$work/tmp/$deb_name"

step "dpkg -i $deb_name (must be refused: its dependencies are not installed)"
if in_root 120 dpkg -i "/tmp/$deb_name" > "$log_dir/dpkg-i.log" 2>&1; then
    cat "$log_dir/dpkg-i.log"
    fail "dpkg -i succeeded in a minbase root: Depends: does not name the libraries"
fi
grep -q "dependency problems" "$log_dir/dpkg-i.log" || { cat "$log_dir/dpkg-i.log"; fail "dpkg -i failed for another reason"; }
grep -o "depends on [^;]*" "$log_dir/dpkg-i.log" | sort -u | sed 's/^/    /'

step "apt-get update && apt-get -f install (the dependencies from $mirror; postinst)"
in_root 300 apt-get -q -o Dpkg::Use-Pty=0 -o Acquire::Retries=3 update > "$log_dir/apt-update.log" 2>&1 ||
    { tail -n 20 "$log_dir/apt-update.log"; fail "apt-get update"; }
in_root 600 apt-get -q -y -o Dpkg::Use-Pty=0 -o Acquire::Retries=3 --no-install-recommends -f install \
    > "$log_dir/apt-install.log" 2>&1 || { tail -n 30 "$log_dir/apt-install.log"; fail "apt-get -f install"; }
[ "$(in_root 30 dpkg-query -W -f='${Status}' garaged)" = "install ok installed" ] ||
    fail "garaged is not installed after apt-get -f install"
grep -E "^(Setting up|Unpacking) " "$log_dir/apt-install.log" | sed 's/^/    /'

step "postinst: the group, the state folder, no table, no service yet, the instructions"
grep -qF "sudo garage-pins init --pins /var/lib/garaged/pins.eeprom --master 'Yours'" "$log_dir/apt-install.log" ||
    fail "postinst did not print the garage-pins init line"
grep -qF "sudo systemctl enable --now garaged" "$log_dir/apt-install.log" || fail "postinst did not print systemctl enable --now"
in_root 10 getent group garage >/dev/null || fail "no group garage"
[ "$(stat -c '%a %u %g' "$work/var/lib/garaged")" = "700 0 0" ] ||
    fail "/var/lib/garaged is $(stat -c '%a %u %g' "$work/var/lib/garaged") (mode uid gid), not 700 root root"
[ ! -e "$work/var/lib/garaged/pins.eeprom" ] || fail "postinst made a PIN table"
[ ! -e "$work/etc/systemd/system/multi-user.target.wants/garaged.service" ] || fail "enabled without a table"
[ "$(in_root 10 dpkg-query -W -f='${Conffiles}' garaged | awk 'NF {print $1}')" = /etc/garaged.conf ] ||
    fail "/etc/garaged.conf is not the package's one conffile"
grep -q '^relay = sim:' "$work/etc/garaged.conf" || fail "the installed /etc/garaged.conf names a real relay line"
in_root 30 dpkg -L garaged > "$log_dir/files"
for f in /usr/sbin/garaged /usr/bin/garage-pins "$unitdir/garaged.service" /etc/garaged.conf \
         /usr/share/man/man1/garaged.1.gz /usr/share/man/man1/garage-pins.1.gz \
         /usr/share/bash-completion/completions/garage-pins /usr/share/zsh/vendor-completions/_garage-pins \
         /usr/share/fish/vendor_completions.d/garage-pins.fish /usr/share/doc/garaged/copyright \
         /usr/share/doc/garaged/README.md /usr/share/doc/garaged/docs/protocol.md \
         /usr/share/doc/garaged/docs/threat-model.md /usr/share/doc/garaged/wiring/README.md; do
    grep -qxF "$f" "$log_dir/files" && [ -e "$work$f" ] || fail "$f is not installed"
done
say "    $(grep -c . "$log_dir/files") paths installed"

step "garage-pins init"
in_root 30 garage-pins init --pins /var/lib/garaged/pins.eeprom --master 12345 > "$log_dir/init.log" 2>&1 ||
    { cat "$log_dir/init.log"; fail "garage-pins init"; }
table_sum=$(md5sum < "$work/var/lib/garaged/pins.eeprom")

step "systemd-analyze security: the unit's exposure stays under 3"
unit_file=$work$unitdir/garaged.service
if command -v systemd-analyze >/dev/null; then
    exposure=$(systemd-analyze security --offline=yes "$unit_file" 2>&1 | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
    [ -n "$exposure" ] || fail "systemd-analyze security printed no exposure level for $unit_file"
    awk -v e="$exposure" 'BEGIN { exit !(e < 3) }' || fail "the unit's exposure is $exposure, not under 3: a change to packaging/garaged.service opened it up"
    echo "exposure $exposure"
else
    echo "systemd-analyze is not installed: not checked"
fi

# As the unit runs it: its CapabilityBoundingSet= and SupplementaryGroups=, no new privileges,
# its UMask=, and the folder RuntimeDirectory= would make.
unit=$work$unitdir/garaged.service
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$unit" | tr '[:upper:]' '[:lower:]' | sed 's/cap_\([a-z_]*\)/+\1/g; s/ /,/g')
groups=$(sed -n 's/^SupplementaryGroups=//p' "$unit" | tr ' ' ',')
[ -n "$caps" ] && [ -n "$groups" ] || fail "the unit has no CapabilityBoundingSet= or SupplementaryGroups="
mkdir -m 0755 "$work/run/garaged"
step "garaged --relay sim:/tmp/relay.trace --no-ble (bounding set $caps, groups $groups)"
(umask 0077; exec chroot "$work" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    /usr/bin/setpriv --bounding-set=-all,"$caps" --inh-caps=-all --groups="$groups" --no-new-privs \
    /usr/sbin/garaged --config /etc/garaged.conf --relay sim:/tmp/relay.trace --no-ble \
    --socket /run/garaged/garaged.sock) > "$log_dir/garaged.log" 2>&1 &
daemon_pid=$!
sock=$work/run/garaged/garaged.sock
listening() {
    kill -0 "$daemon_pid" 2>/dev/null || { cat "$log_dir/garaged.log"; fail "garaged exited"; }
    test -S "$sock"
}
wait_until $((10 * slow)) "the socket $sock" listening
# (Numbers: the host's names for the root's ids are not the root's.)
garage_gid=$(in_root 10 getent group garage | cut -d: -f3)
[ "$(stat -c '%a %u %g' "$sock")" = "660 0 $garage_gid" ] ||
    fail "the socket is $(stat -c '%a %u %g' "$sock") (mode uid gid), not 660 root garage ($garage_gid): no CAP_CHOWN needed?"

step "12345O=1 over the local socket (SOCK_SEQPACKET)"
answer=$(timeout $((10 * slow)) python3 - "$sock" $((5 * slow)) <<'EOF'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.settimeout(int(sys.argv[2]))
s.connect(sys.argv[1])
s.send(b"12345O=1\n")
print(s.recv(256).decode().strip())
EOF
) || fail "no answer on the socket"
[ "$answer" = OK ] || fail "the answer was '$answer', not OK"
trace=$work/tmp/relay.trace
levels() { awk '{print $2}' "$trace" 2>/dev/null | tr -d '\n'; }
pressed_and_released() { [ "$(levels)" = 010 ]; }
wait_until $((5 * slow)) "the relay trace 0, 1, 0" pressed_and_released
width=$(awk 'NR==2 {a=$1} NR==3 {printf "%.1f ms", ($1-a)/1e6}' "$trace")
say "    answer OK; relay trace: $(levels | sed 's/./& /g')($width)"
if [ "$emulated" = yes ]; then say "    press width under qemu-user emulation ($arch): $width (a figure, not checked)"; fi
in_root 10 garage-pins status --pin 12345 > "$log_dir/status.log" 2>&1 || { cat "$log_dir/status.log"; fail "garage-pins status"; }
say "    garage-pins status: $(grep -i -m 1 'door' "$log_dir/status.log" || head -n 1 "$log_dir/status.log")"

step "SIGTERM"
kill -TERM "$daemon_pid"
status=0
end=$((SECONDS + 5 * slow))
while kill -0 "$daemon_pid" 2>/dev/null; do
    [ "$SECONDS" -lt "$end" ] || fail "garaged still running $((5 * slow)) s after SIGTERM"
    sleep 0.1
done
wait "$daemon_pid" || status=$?
daemon_pid=""
[ "$status" = 0 ] || { tail -n 5 "$log_dir/garaged.log"; fail "garaged exited $status after SIGTERM"; }
[ "$(tail -n 1 "$trace" | awk '{print $2}')" = 0 ] || fail "the relay did not end released"
# garaged says so when the relay thread cannot have SCHED_FIFO (it names CAP_SYS_NICE).
! grep "CAP_SYS_NICE" "$log_dir/garaged.log" || fail "no real-time priority for the relay thread with the unit's capabilities"

step "dpkg -i again, now with a table: postinst enables the service, keeps the table"
in_root 120 dpkg -i "/tmp/$deb_name" > "$log_dir/dpkg-i-again.log" 2>&1 || { cat "$log_dir/dpkg-i-again.log"; fail "dpkg -i (again)"; }
! grep -qF "garage-pins init" "$log_dir/dpkg-i-again.log" || fail "postinst asked for a table that exists"
[ -L "$work/etc/systemd/system/multi-user.target.wants/garaged.service" ] || fail "not enabled although the table exists"
[ "$(md5sum < "$work/var/lib/garaged/pins.eeprom")" = "$table_sum" ] || fail "the reinstall changed the PIN table"

step "dpkg --purge garaged"
in_root 120 dpkg --purge garaged > "$log_dir/purge.log" 2>&1 || { cat "$log_dir/purge.log"; fail "dpkg --purge"; }
sed 's/^/    /' "$log_dir/purge.log"
[ -z "$(in_root 10 dpkg-query -W -f='${Status}' garaged 2>/dev/null)" ] || fail "dpkg still knows garaged"
left=()
while read -r f; do
    [ -n "$f" ] && [ "$f" != /. ] || continue
    if [ -e "$work$f" ] || [ -L "$work$f" ]; then
        # A directory other packages own (/usr/bin, /usr/share/man/man1) rightly stays; also under
        # its merged-/usr name (trixie's apt owns /usr/lib/systemd/system, which /lib/... is).
        if [ -d "$work$f" ] && { in_root 10 dpkg-query -S "$f" >/dev/null 2>&1 ||
            in_root 10 dpkg-query -S "$(in_root 10 readlink -f "$f")" >/dev/null 2>&1; }; then continue; fi
        left+=("$f")
    fi
done < "$log_dir/files"
((${#left[@]} == 0)) || fail "left after purge: ${left[*]}"
stray=$(cd "$work" && find etc lib usr var/lib/systemd var/lib/dpkg/info -name '*garage*' 2>/dev/null || true)
[ -z "$stray" ] || fail "left after purge: $stray"
say "    every one of the $(grep -c . "$log_dir/files") paths is gone (or another package's directory)"
in_root 10 getent group garage >/dev/null || fail "purge removed the group garage (kept by decision)"
[ "$(md5sum < "$work/var/lib/garaged/pins.eeprom" 2>/dev/null)" = "$table_sum" ] ||
    fail "purge removed or changed /var/lib/garaged/pins.eeprom (kept by decision)"
say "    kept, by decision: the group garage, /var/lib/garaged with the PIN table"

if [ "$emulated" = yes ] && [ "$unit_tests" = yes ]; then
    step "DoorCore's unit tests as $arch (scripts/arm64.sh unit-tests)"
    scripts/arm64.sh unit-tests | sed 's/^/    /'
fi

verdict=PASS

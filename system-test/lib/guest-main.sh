#!/bin/bash
# PID 1 of the guest, inside the host's root (read-only 9p). Sets up tracing and gpio-sim, runs
# the scenarios one by one under a deadline each, writes every verdict to the results share and
# powers off. Never exits on its own: the kernel would panic (which also ends qemu, as a fallback).
set -uo pipefail
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp LANG=C.UTF-8 TERM=dumb
export ST_RESULTS=/run/system-test/results
# shellcheck disable=SC1091
source "$ST_RESULTS/run.env"
export ST_PROJECT ST_BIN_DIR ST_MODULE ST_SCENARIO_TIMEOUT
export ST_LIB=$ST_PROJECT/system-test/lib

say() { echo "[st] $*"; }
power_off() {
    dmesg > "$ST_RESULTS/dmesg.log" 2>&1
    sync
    echo o > /proc/sysrq-trigger
    sleep 30
}

# The guest's own deadline: a little under the host's, so the verdicts so far still come back.
(
    sleep "$ST_GUEST_DEADLINE"
    say "guest deadline of ${ST_GUEST_DEADLINE}s reached: powering off"
    echo "guest deadline of ${ST_GUEST_DEADLINE}s reached" > "$ST_RESULTS/deadline"
    power_off
) &

setup() {
    mkdir -p /dev/shm /dev/pts && mount -t tmpfs tmpfs /dev/shm || return 1
    ln -sf /proc/self/fd /dev/fd
    ln -sf /proc/self/fd/0 /dev/stdin; ln -sf /proc/self/fd/1 /dev/stdout; ln -sf /proc/self/fd/2 /dev/stderr
    mount -t tracefs tracefs /sys/kernel/tracing || return 1
    mount -t debugfs debugfs /sys/kernel/debug || true
    modprobe configfs || return 1
    mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config || return 1
    insmod "$ST_MODULE" || return 1
    [ -d /sys/kernel/config/gpio-sim ] || { say "gpio-sim did not register in configfs"; return 1; }
    # Release of a line by its holder has no tracepoint; a kprobe on the simulator's free() gives
    # the kernel's stamp for "the relay was released". Optional: scenarios cope without it.
    echo 'p:st/sim_free gpio_sim:gpio_sim_free label=+0(+0(%di)):string offset=%si:u32' \
        >> /sys/kernel/tracing/kprobe_events 2>/dev/null || say "kprobe on gpio_sim_free unavailable"
    return 0
}

say "guest up: kernel $(uname -r), $(nproc) cpus, uptime $(cut -d' ' -f1 /proc/uptime)s"
if ! setup > "$ST_RESULTS/setup.log" 2>&1; then
    say "setup failed:"; cat "$ST_RESULTS/setup.log"
    echo "setup-failed" > "$ST_RESULTS/summary"
    power_off
fi

# Which scenarios: all, or the one named by --only (with or without its number prefix).
scenarios=()
for f in "$ST_PROJECT"/system-test/scenarios/[0-9]*.sh; do
    n=$(basename "$f" .sh)
    if [ -n "${ST_ONLY:-}" ] && [ "$ST_ONLY" != "$n" ] && [ "$ST_ONLY" != "${n#*-}" ]; then
        continue
    fi
    scenarios+=("$f")
done
[ ${#scenarios[@]} -gt 0 ] || say "no scenario matches '${ST_ONLY:-}'"

# A scenario killed by its deadline cannot clean up: remove the chips it left behind.
sim_leftovers() {
    local d l
    for d in /sys/kernel/config/gpio-sim/*/; do
        [ -d "$d" ] || continue
        echo 0 > "$d/live" 2>/dev/null
        for l in "$d"bank*/line*/hog "$d"bank*/line* "$d"bank*; do
            [ -d "$l" ] && rmdir "$l" 2>/dev/null
        done
        rmdir "$d" 2>/dev/null || say "could not remove sim chip $d"
    done
}

passed=0 failed=0 skipped=0
for f in "${scenarios[@]}"; do
    n=$(basename "$f" .sh)
    out=$ST_RESULTS/$n
    mkdir -p "$out"
    say "RUN  $n"
    t0=${EPOCHREALTIME/./}
    # A scenario may ask for a longer deadline with a "# timeout: SECONDS" line.
    limit=$(sed -n 's/^# timeout: *\([0-9][0-9]*\)$/\1/p' "$f" | head -n 1)
    limit=${limit:-$ST_SCENARIO_TIMEOUT}
    ST_NAME=$n ST_OUT=$out ST_WORK=/tmp/st/$n \
        timeout -k 5 "$limit" bash "$f" > "$out/output.log" 2>&1 < /dev/null
    rc=$?
    t1=${EPOCHREALTIME/./}
    if [ ! -s "$out/result" ]; then
        if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
            echo "FAIL $n: no verdict within the scenario deadline of ${limit}s" > "$out/result"
        else
            echo "FAIL $n: exited with status $rc without a verdict" > "$out/result"
        fi
    fi
    echo "$(( (t1 - t0) / 1000 ))" > "$out/wall_ms"
    sim_leftovers
    verdict=$(head -n1 "$out/result")
    case $verdict in
        PASS*) passed=$((passed + 1)) ;;
        SKIP*) skipped=$((skipped + 1)) ;;
        *) failed=$((failed + 1)) ;;
    esac
    say "$verdict ($(( (t1 - t0) / 1000 )) ms)"
done

echo "passed=$passed failed=$failed skipped=$skipped" > "$ST_RESULTS/summary"
say "done: $passed passed, $failed failed, $skipped skipped"
power_off

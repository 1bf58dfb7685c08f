#!/bin/bash
# Harness self-test with Debian's gpiod tools (no project binary): a gpio-sim chip, an output held
# for 300 ms by gpioset and timed from the kernel's stamps (set by the tracepoint, release by the
# sim_free probe), and an input edge driven through gpio-sim's pull attribute seen by gpiomon.
# packages: gpiod
# shellcheck source=SCRIPTDIR/../lib/scenario.sh
source "$ST_LIB/scenario.sh"

command -v gpioset > /dev/null || fail "gpioset missing on the host (package gpiod)"
sim_chip label=st-smoke lines=2 names=out,in
g_out=$((SIM_BASE + 0))
g_in=$((SIM_BASE + 1))
trace_start

# Output: gpioset requests line 0 at 1, holds it 300 ms, exits; the line returns to its pull (0).
trace_mark hold
timeout 10 gpioset --mode=time --usec=300000 "$SIM_CHIP" 0=1
check "line 0 back at 0 once gpioset has exited" [ "$(sim_value "$SIM_SYS" 0)" = 0 ]
have_release_probe || fail "no sim_free kprobe: the release of a line cannot be timed"
mapfile -t p < <(line_levels "$g_out" "$SIM_LABEL" 0 0 | pulses 1)
check "exactly one high stretch on line 0 (saw ${#p[@]})" [ ${#p[@]} -eq 1 ]
read -r _ end width <<< "${p[0]}"
check "the high stretch ended (released)" [ "$end" != - ]
metric held_ms "$(ms "$width") (gpioset asked 300 ms; includes its exit)"
metric hold_error_ms "$(ms $((width - 300000000)))"
check "held between 300 and 2000 ms" in_range "$width" 300000000 2000000000

# Input: gpiomon waits for a rising edge on line 1; the test pulls the line up.
# gpiomon runs without a `timeout` wrapper so that $! is gpiomon itself: its deadline is
# wait_exit's, and the scenario's cleanup stops it.
gpiomon --num-events=1 --rising-edge "$SIM_CHIP" 1 > "$ST_OUT/gpiomon.txt" 2>&1 &
mon=$!
ST_PIDS+=("$mon")
# Ready only once gpiomon blocks in poll() (syscall 7; 271, ppoll, for other libgpiod builds):
# its line request (direction, then edge detection) has returned. The "dir in" trace event
# alone comes before edge detection is armed, and a pull made in between would be an edge
# nobody sees.
_in_poll() {
    local sc
    proc_alive "$1" || return 2
    { read -r sc _ < "/proc/$1/syscall"; } 2> /dev/null || return 1
    [ "$sc" = 7 ] || [ "$sc" = 271 ]
}
wait_until 15 "gpiomon waiting for events (in poll)" _in_poll "$mon" ||
    fail "gpiomon did not start waiting for edges on line 1 within 15 s: $(cat "$ST_OUT/gpiomon.txt")"
check "gpiomon requested line 1 as an input" trace_has " dir $g_in in\$"
trace_mark pull-up
sim_pull "$SIM_SYS" 1 up
wait_exit "$mon" 10 || fail "gpiomon saw no rising edge within 10 s of the pull-up"
check "gpiomon exited 0 (status $EXIT_RC)" [ "$EXIT_RC" = 0 ]
check "gpiomon reported a rising edge" grep -q 'RISING EDGE' "$ST_OUT/gpiomon.txt"
# gpiomon prints the kernel's event stamp (CLOCK_MONOTONIC): compare with the marker before the pull.
ev=$(sed -n 's/.*timestamp: \[ *\([0-9]*\)\.\([0-9]*\)\].*/\1\2/p' "$ST_OUT/gpiomon.txt" | head -n1)
t_pull=$(mark_time pull-up)
[ -z "$ev" ] || metric pull_to_edge_ms "$(ms_between "$t_pull" "$ev") (marker written -> edge event stamp)"

pass "gpio-sim + tracepoint: gpioset 300 ms hold measured $(ms "$width") ms; pull-up edge seen by gpiomon"

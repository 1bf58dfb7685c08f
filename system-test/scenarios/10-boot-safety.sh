#!/bin/bash
# Boot safety: from the moment garaged requests the relay line until it is told to open, the line
# never goes active; then one open gives exactly one press. Every level change is taken from the
# kernel's gpio_value tracepoint. With ST_ACTIVE_LOW=1 (scenario 11) the relay board is active-low:
# the line idles high (a pull-up, as on such boards), garaged runs with --active-low, and the
# press is a physical low.
# shellcheck source=SCRIPTDIR/../lib/scenario.sh
source "$ST_LIB/scenario.sh"
require_daemon

active_low=${ST_ACTIVE_LOW:-0}
if [ "$active_low" = 1 ]; then
    sim_chip label=st-relay lines=1 names=relay pullup=0
    inactive=1 active=0 flag=(--active-low)
else
    sim_chip label=st-relay lines=1 names=relay
    inactive=0 active=1 flag=()
fi
g=$SIM_BASE TRAVEL_S=1
check "line idles at $inactive before the daemon starts" _level_is "$SIM_SYS" 0 "$inactive"

trace_start
trace_mark daemon-start
garaged_start d "$ST_WORK/g.sock" "$SIM_CHIP:0" "${flag[@]}" --pulse-ms 300 --travel-s $TRAVEL_S --auto-close-s 0
# A deliberate interval in which nothing may happen: the daemon idles 1 s from the moment its
# socket answers (start-up done); nothing it does after start-up may touch the relay either.
nap 1
check "line still at $inactive (physical) while the daemon idles" _level_is "$SIM_SYS" 0 "$inactive"
trace_mark open-cmd
t_open=$(mark_time open-cmd)
reply=$(garage_pins open --socket "$ST_WORK/g.sock" --pin "$MASTER_PIN")
check "garage-pins open answered OK (got '$reply')" [ "$reply" = OK ]
wait_pulses "$g" "$SIM_LABEL" 0 "$inactive" "$active" "$t_open" 1 10 || fail "no complete press within 10 s of the open"
# A deliberate interval in which nothing may happen: no second press until 1 s past the end of
# the door's travel, which starts with the open (just before the press): anchored at the
# press's kernel stamp, whenever this shell got to see it.
t_press=$(press_start "$g" "$SIM_LABEL" 0 "$inactive" "$active" "$t_open")
nap_until $((t_press + (TRAVEL_S + 1) * 1000000000))

t_start=$(mark_time daemon-start)
ev=$(trace_events)
# The daemon's request: the last time the line was made an output before the open.
t_req=$(awk -v g="$g" -v o="$t_open" '$2 == "dir" && $3 == g && $4 == "out" && $1 < o { t = $1 } END { print t }' <<< "$ev")
[ -n "$t_req" ] || fail "no request of gpio $g as an output in the trace"
idle=$(line_levels "$g" "$SIM_LABEL" 0 "$inactive" | awk -v s="$t_start" -v o="$t_open" '$1 >= s && $1 <= o')
n_idle=$(grep -c . <<< "$idle" || true)
log "levels from daemon start to open: $(awk '{ print $2 }' <<< "$idle" | tr '\n' ' ')"
glitches=$(pulses "$active" <<< "$idle" | awk -v s="$t_start" -v r="$t_req" '{
    w = ($3 == "-") ? "still active at the open" : sprintf("%.3f ms", $3 / 1e6)
    printf "active at +%.3f ms after the daemon started (%s the request), for %s; ", ($1 - s) / 1e6, ($1 < r) ? "before" : "after", w }')
check "line inactive from daemon start to the open (went active: ${glitches:-never})" [ -z "$glitches" ]
# The request's own level is the first one the daemon set: the kernel stamps it just before the
# line turns output, in the same call, but a guest under load can be preempted between the two
# tracepoints for milliseconds (3.9 ms seen), so it is not looked for in a window around them.
first=$(awk 'NR == 1 { print $2 }' <<< "$idle")
check "the request set the line to $inactive (got '$first')" [ "$first" = "$inactive" ]

mapfile -t p < <(line_levels "$g" "$SIM_LABEL" 0 "$inactive" | pulses "$active")
check "exactly one press (saw ${#p[@]})" [ ${#p[@]} -eq 1 ]
read -r p_start _ width <<< "${p[0]}"
check "the press started after the open command" [ "$p_start" -gt "$t_open" ]
check "the line ended at $inactive" _level_is "$SIM_SYS" 0 "$inactive"
metric request_to_open_ms "$(ms_between "$t_req" "$t_open") (line held, never active)"
metric open_cmd_to_press_ms "$(ms_between "$t_open" "$p_start") (marker before garage-pins -> press edge)"
metric press_ms "$(ms "$width") (asked 300; error $(ms $((width - 300000000))) ms)"
check "press width $(press_window 300)" press_ok "$width" 300
pass "line at $inactive from start to open ($n_idle level change(s), none active); one press of $(ms "$width") ms"

#!/bin/bash
# Boot safety: from the moment garaged requests the relay line until it is told to open, the line
# never goes active; then one open gives exactly one press. Every level change is taken from the
# kernel's gpio_value tracepoint. With ST_ACTIVE_LOW=1 (scenario 11) the relay board is active-low:
# the line idles high (a pull-up, as on such boards), garaged runs with --active-low, and the
# press is a physical low.
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
g=$SIM_BASE
check "line idles at $inactive before the daemon starts" _level_is "$SIM_SYS" 0 "$inactive"

trace_start
trace_mark daemon-start
garaged_start d "$ST_WORK/g.sock" "$SIM_CHIP:0" "${flag[@]}" --pulse-ms 300 --travel-s 1 --auto-close-s 0
nap 1   # the daemon idles a while: nothing it does after start-up may touch the relay either
check "line still at $inactive (physical) while the daemon idles" _level_is "$SIM_SYS" 0 "$inactive"
trace_mark open-cmd
reply=$(garage_pins open --socket "$ST_WORK/g.sock" --pin "$MASTER_PIN")
check "garage-pins open answered OK (got '$reply')" [ "$reply" = OK ]
wait_pulses "$g" "$SIM_LABEL" 0 "$inactive" "$active" 1 10 || fail "no complete press within 10 s of the open"
nap 1.5 # past the door's travel: no second press may follow

t_open=$(mark_time open-cmd)
ev=$(trace_events)
t_req=$(awk -v g="$g" '$2 == "dir" && $3 == g && $4 == "out" { print $1; exit }' <<< "$ev")
[ -n "$t_req" ] || fail "no request of gpio $g as an output in the trace"
before=$(awk -v g="$g" -v r="$t_req" '$2 == "value" && $3 == g && $1 < r - 1000000' <<< "$ev" | wc -l)
idle=$(awk -v g="$g" -v o="$t_open" '$2 == "value" && $3 == g && $1 <= o { print $4 }' <<< "$ev")
n_idle=$(grep -c . <<< "$idle" || true)
bad=$(grep -cvx "$inactive" <<< "$idle" || true)
first=$(head -n1 <<< "$idle")
log "level sets from request to open: $(tr '\n' ' ' <<< "$idle")"
check "no level set before the request (saw $before)" [ "$before" = 0 ]
check "the request set the line to $inactive (got '$first')" [ "$first" = "$inactive" ]
check "$n_idle level set(s) between request and open, all $inactive ($bad active)" [ "$bad" = 0 ]

mapfile -t p < <(line_levels "$g" "$SIM_LABEL" 0 "$inactive" | pulses "$active")
check "exactly one press (saw ${#p[@]})" [ ${#p[@]} -eq 1 ]
read -r p_start p_end width <<< "${p[0]}"
check "the press started after the open command" [ "$p_start" -gt "$t_open" ]
check "the line ended at $inactive" _level_is "$SIM_SYS" 0 "$inactive"
metric request_to_open_ms "$(ms_between "$t_req" "$t_open") (line held, never active)"
metric open_cmd_to_press_ms "$(ms_between "$t_open" "$p_start") (marker before garage-pins -> press edge)"
metric press_ms "$(ms "$width") (asked 300; error $(ms $((width - 300000000))) ms)"
check "press width within 300 ms +-50 ms" in_range "$width" 250000000 350000000
pass "line at $inactive from request to open ($n_idle set(s), none active); one press of $(ms "$width") ms"

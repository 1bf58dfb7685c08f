#!/bin/bash
# Open from the CLI: `garage-pins open` gives one 300 ms press; the door reports OPENING for its
# travel, then OPEN; after the auto-close interval the daemon presses again by itself, and the
# door goes CLOSING, then CLOSED. Press widths and the spacing of the two presses come from the
# gpio_value tracepoint; the state changes from polling the socket every 100 ms (so +-100 ms).
# shellcheck source=SCRIPTDIR/../lib/scenario.sh
source "$ST_LIB/scenario.sh"
require_daemon

PULSE_MS=300 TRAVEL_S=2 AUTO_S=3
sim_chip label=st-relay lines=1 names=relay
g=$SIM_BASE sock=$ST_WORK/g.sock
trace_start
garaged_start d "$sock" "$SIM_CHIP:relay" --pulse-ms $PULSE_MS --travel-s $TRAVEL_S --auto-close-s $AUTO_S
# The watcher runs until the scenario ends (60 s is only its own bound); status_watch returns once
# it has reported the state it found, so it cannot miss the first change.
status_watch "$sock" 60
check "the door is CLOSED before the open (the watcher's first report: $WATCH_FIRST)" [ "$WATCH_FIRST" = CLOSED ]
trace_mark open-cmd
t_open=$(mark_time open-cmd)
reply=$(garage_pins open --socket "$sock" --pin "$MASTER_PIN")
check "garage-pins open answered OK (got '$reply')" [ "$reply" = OK ]
# Every wait is anchored at what must come before it: the presses after the open command, CLOSED
# after the auto-close press (the watcher's first mark was a CLOSED too).
wait_pulses "$g" "$SIM_LABEL" 0 0 1 "$t_open" 1 10 || fail "no press within 10 s of the open"
wait_pulses "$g" "$SIM_LABEL" 0 0 1 "$t_open" 2 $((TRAVEL_S + AUTO_S + 10)) ||
    fail "no auto-close press within $((TRAVEL_S + AUTO_S + 10)) s of the open"
s2=$(line_levels "$g" "$SIM_LABEL" 0 0 | pulses 1 | awk -v t="$t_open" '$1 >= t && ++n == 2 { print $1 }')
wait_status CLOSED "$s2" $((TRAVEL_S + 5)) || fail "the door never reported CLOSED after the auto-close press"

mapfile -t p < <(line_levels "$g" "$SIM_LABEL" 0 0 | pulses 1)
check "exactly two presses: the open and the auto-close (saw ${#p[@]})" [ ${#p[@]} -eq 2 ]
read -r s1 _ w1 <<< "${p[0]}"
read -r s2 _ w2 <<< "${p[1]}"

want=$((PULSE_MS * 1000000))
metric open_press_ms "$(ms "$w1") (asked $PULSE_MS; error $(ms $((w1 - want))) ms)"
metric auto_close_press_ms "$(ms "$w2") (asked $PULSE_MS; error $(ms $((w2 - want))) ms)"
metric open_cmd_to_press_ms "$(ms_between "$t_open" "$s1")"
gap=$((s2 - s1)) want_gap=$(( (TRAVEL_S + AUTO_S) * 1000000000 ))
metric press_to_auto_close_press_ms "$(ms "$gap") (travel ${TRAVEL_S} s + auto-close ${AUTO_S} s = $(ms "$want_gap"); error $(ms $((gap - want_gap))) ms)"

# The door's travel, as the socket reported it. All four marks are in the trace: the watcher
# writes them in order and CLOSED after the auto-close press was waited for. CLOSING is looked
# for after OPEN, not after the auto-close press: the daemon reports CLOSING from the moment it
# decides to press, and its press thread sets the line a moment later, so a poll can fall between.
t_opening=$(mark_after status-OPENING "$t_open") t_opened=$(mark_after status-OPEN "$s1")
t_closing=$(mark_after status-CLOSING "${t_opened:-$s1}") t_closed=$(mark_after status-CLOSED "$s2")
log "status changes: $(tr '\n' ';' < "$ST_OUT/status-watch.txt")"
check "the door reported OPENING, OPEN, CLOSING, CLOSED" \
    [ -n "$t_opening" -a -n "$t_opened" -a -n "$t_closing" -a -n "$t_closed" ]
metric travel_open_ms "$(ms_between "$s1" "$t_opened") (press -> OPEN seen on the socket; travel ${TRAVEL_S} s)"
metric travel_close_ms "$(ms_between "$s2" "$t_closed") (auto-close press -> CLOSED seen on the socket)"

check "open press $(press_window "$PULSE_MS")" press_ok "$w1" "$PULSE_MS"
check "auto-close press $(press_window "$PULSE_MS")" press_ok "$w2" "$PULSE_MS"
check "auto-close press $((TRAVEL_S + AUTO_S))s +-0.5 s after the open press" \
    in_range "$gap" $((want_gap - 500000000)) $((want_gap + 500000000))
check "OPEN reported $TRAVEL_S s +-0.5 s after the press" \
    in_range $((t_opened - s1)) $((TRAVEL_S * 1000000000 - 500000000)) $((TRAVEL_S * 1000000000 + 500000000))
check "OPENING reported before OPEN" [ "$t_opening" -lt "$t_opened" ]
check "CLOSING reported within 0.5 s of the auto-close press ($(ms_between "$s2" "$t_closing") ms)" \
    in_range $((t_closing - s2)) -500000000 500000000
check "the line ended at 0" _level_is "$SIM_SYS" 0 0
pass "open press $(ms "$w1") ms, auto-close press $(ms "$w2") ms $(ms "$gap") ms later (want $(ms "$want_gap"))"

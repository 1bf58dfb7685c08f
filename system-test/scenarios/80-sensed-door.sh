#!/bin/bash
# A sensed door in a real kernel: its limit switches are gpio-sim input lines driven through the
# sim's pull attribute (as a reed switch pulls a line), the warning output and the light are
# output lines. The daemon reads the switches as libgpiod edge events. Checked from the kernel's
# gpio_value stamps: the open press; auto-close only after the warning output has been on for
# warn-s; no press at all for a door someone closed by hand before auto-close. Figures: a switch
# edge to the light coming on (the debounce plus the reaction), and the warning to the press.
# shellcheck source=SCRIPTDIR/../lib/scenario.sh
source "$ST_LIB/scenario.sh"
require_daemon

WARN_S=1 TRAVEL_S=8 AUTO_S=2 DEBOUNCE_MS=50
sim_chip label=st-door lines=5 names=relay,closed,open,warn,light pullup=1
chip=$SIM_CHIP label=$SIM_LABEL sys=$SIM_SYS
relay=$SIM_BASE warn=$((SIM_BASE + 3)) light=$((SIM_BASE + 4))
sock=$ST_WORK/d.sock
trace_start
garaged_start d "$sock" "$chip:relay" --sensor-closed "$chip:closed" --sensor-open "$chip:open" \
    --warn "$chip:warn" --warn-s $WARN_S --light "$chip:light" --light-s 60 \
    --sensor-debounce-ms $DEBOUNCE_MS --travel-s $TRAVEL_S --auto-close-s $AUTO_S

# switch NAME up|down: the reed switch closes (up: the line reads active) or opens.
switch() { case $1 in closed) sim_pull "$sys" 1 "$2" ;; open) sim_pull "$sys" 2 "$2" ;; esac; }

# The watcher asks every 100 ms and marks each change in the trace (a python start per
# request would take a second under TCG); wait_status waits for a mark after an anchor.
status_watch "$sock" 120
check "the door starts CLOSED, as sensed (the watcher's first report: $WATCH_FIRST)" [ "$WATCH_FIRST" = CLOSED ]

# 1. Open from the shell, then the door moves as the opener would move it.
trace_mark open-cmd
t_open=$(mark_time open-cmd)
reply=$(garage_pins open --socket "$sock" --pin "$MASTER_PIN")
check "garage-pins open answered OK (got '$reply')" [ "$reply" = OK ]
wait_pulses "$relay" "$label" 0 0 1 "$t_open" 1 10 || fail "no press within 10 s of the open"
trace_mark leave-closed
t_leave=$(mark_time leave-closed)
switch closed down
wait_value "$light" 1 "$t_leave" 10 || fail "the light did not come on when the door left CLOSED"
t_light=$(value_after "$light" 1 "$t_leave")
metric switch_edge_to_light_ms "$(ms_between "$t_leave" "$t_light") (debounce $DEBOUNCE_MS ms + reaction; the edge is the mark just before the pull)"
wait_status OPENING "$t_leave" 10 || fail "the door did not report OPENING after the closed switch opened"
trace_mark arrive-open
t_arrive=$(mark_time arrive-open)
switch open up
wait_status OPEN "$t_arrive" 10 || fail "the door did not report OPEN after the open switch closed"

# 2. Auto-close: the warning first, the press WARN_S later, and never before.
wait_value "$warn" 1 "$t_arrive" $((AUTO_S + 10)) || fail "no warning within $((AUTO_S + 10)) s of OPEN"
warned_press "$relay" "$label" "$warn" "$t_arrive" $WARN_S auto-close
t_warn=$T_WARN t_press=$T_PRESS
metric open_to_warning_ms "$(ms_between "$t_arrive" "$t_warn") (auto-close $AUTO_S s, from the open switch's pull)"
switch open down
switch closed up
wait_status CLOSED "$t_press" 10 || fail "the door did not report CLOSED after the closed switch closed"
wait_value "$warn" 0 "$t_press" 10 || fail "the warning did not go off"

# 3. Opened by its remote, closed by hand before auto-close: seen, and no press or warning after.
trace_mark by-hand
t_hand=$(mark_time by-hand)
switch closed down
switch open up
wait_status OPEN "$t_hand" 10 || fail "the door opened by hand was not reported OPEN"
trace_mark closing-by-hand
t_closing=$(mark_time closing-by-hand)
switch open down
switch closed up
wait_status CLOSED "$t_closing" 10 || fail "the door closed by hand was not reported CLOSED"
t_closed_by_hand=$(trace_now)
# An interval in which nothing may happen: longer than auto-close plus its warning, anchored at
# the kernel's stamp of the door being reported closed.
nap_until $((t_closed_by_hand + (AUTO_S + WARN_S + 1) * 1000000000))
check "no press after the door was closed by hand" [ -z "$(line_levels "$relay" "$label" 0 0 | pulses 1 | awk -v t="$t_hand" '$1 >= t')" ]
check "no warning after the door was closed by hand" [ -z "$(value_after "$warn" 1 "$t_hand")" ]
check "the history says who moved it" grep -q "not by garaged" <(garage_pins log --socket "$sock" --pin "$MASTER_PIN")

mapfile -t p < <(line_levels "$relay" "$label" 0 0 | pulses 1)
check "two presses in all: the open and the auto-close (saw ${#p[@]})" [ ${#p[@]} -eq 2 ]
read -r _ _ w2 <<< "${p[1]}"
check "auto-close press $(press_window 300)" press_ok "$w2" 300
pass "edge to light $(ms_between "$t_leave" "$t_light") ms, warning to press $(ms_between "$t_warn" "$t_press") ms; closed by hand: no press"

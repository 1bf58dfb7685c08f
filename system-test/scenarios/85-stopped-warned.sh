#!/bin/bash
# A one-switch door resting off its closed switch, with a warning output (issue 18, finding B5):
# the door is STOPPED at start, and a press from anywhere but CLOSED may close it on a
# one-button opener, so the book app's O=1 must bring the warning first and the press only a
# whole warning later. Checked from the kernel's gpio_value stamps: the warning line goes on,
# the relay's one press starts no sooner than warn-s after it, and a second O=1 while the door
# moves presses nothing more.
# shellcheck source=SCRIPTDIR/../lib/scenario.sh
source "$ST_LIB/scenario.sh"
require_daemon

WARN_S=1 TRAVEL_S=8
sim_chip label=st-stopped lines=3 names=relay,closed,warn
chip=$SIM_CHIP label=$SIM_LABEL sys=$SIM_SYS
relay=$SIM_BASE warn=$((SIM_BASE + 2))
sim_pull "$sys" 1 down  # the reed switch is open: the door is not at CLOSED
sock=$ST_WORK/d.sock
trace_start
garaged_start d "$sock" "$chip:relay" --sensor-closed "$chip:closed" --warn "$chip:warn" --warn-s $WARN_S \
    --travel-s $TRAVEL_S --auto-close-s 0

state=$(door_status "$sock")
check "the door starts STOPPED: off its only switch, where it is is not known (got '$state')" [ "$state" = "S STOPPED" ]

trace_mark open-cmd
t_open=$(mark_time open-cmd)
reply=$(garage_pins open --socket "$sock" --pin "$MASTER_PIN")
check "garage-pins open answered OK (got '$reply')" [ "$reply" = OK ]
warned_press "$relay" "$label" "$warn" "$t_open" $WARN_S open
t_warn=$T_WARN t_press=$T_PRESS
metric open_to_warning_ms "$(ms_between "$t_open" "$t_warn") (from the mark before garage-pins open)"

# The door moves now (believed OPENING for the travel time): the app's O=1 again is harmless.
reply=$(garage_pins open --socket "$sock" --pin "$MASTER_PIN")
check "a second open while the door moves changes nothing and says so (got '$reply')" [ "$reply" = "already opening: nothing pressed" ]
t_second=$(trace_now)
nap_until $((t_second + (WARN_S + 1) * 1000000000))
mapfile -t p < <(line_levels "$relay" "$label" 0 0 | pulses 1)
check "one press in all (saw ${#p[@]})" [ ${#p[@]} -eq 1 ]
read -r _ _ w1 <<< "${p[0]}"
check "the press $(press_window 300)" press_ok "$w1" 300
pass "STOPPED at start; O=1 warned $(ms_between "$t_warn" "$t_press") ms before its one press"

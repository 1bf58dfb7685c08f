#!/bin/bash
# Two doors on one chip (issue 20), on the real kernel. First a line given to both doors under
# two names (its line name for one, its offset for the other): the config cannot tell, the
# kernel refuses the second request, and garaged stops naming the door, having pressed
# nothing. Then two doors on two lines: one packet asks the first door (the book's O=1) and the
# gate (@gate:O=1); both presses start before either ends, each lasts its own pulse, and
# neither line moves again.
# shellcheck source=SCRIPTDIR/../lib/scenario.sh
source "$ST_LIB/scenario.sh"
require_daemon

sim_chip label=st-doors lines=2 names=relay-a,relay-b
chip=$SIM_CHIP label=$SIM_LABEL
ra=$SIM_BASE rb=$((SIM_BASE + 1))
sock=$ST_WORK/d.sock
[ -f "$PINS" ] || make_pins "$PINS"
trace_start

start_daemon twice --pins "$PINS" --socket "$sock" --no-ble \
    --door.left.relay "$chip:relay-a" --door.gate.relay "$chip:0"
wait_exit "$DAEMON_PID" 30 || fail "garaged did not stop with one line given to two doors"
check "garaged stopped (status $EXIT_RC) with one line given to two doors" [ "$EXIT_RC" = 1 ]
check "its message names the door whose line was taken: $(tail -n 1 "$ST_OUT/twice.log")" grep -q "door gate" "$ST_OUT/twice.log"
check "nothing was pressed" [ -z "$(line_levels "$ra" "$label" 0 0 | pulses 1)" ]

start_daemon d --pins "$PINS" --socket "$sock" --no-ble \
    --door.left.relay "$chip:relay-a" --door.left.pulse-ms 300 --door.left.travel-s 2 --door.left.auto-close-s 0 \
    --door.gate.relay "$chip:relay-b" --door.gate.pulse-ms 500 --door.gate.travel-s 2 --door.gate.auto-close-s 0
wait_ready "$DAEMON_PID" "$sock"
trace_mark open-both
t_open=$(mark_time open-both)
reply=$(sock_send "$sock" "${MASTER_PIN}O=1
${MASTER_PIN}@gate:O=1")
check "the first door's O=1 answered OK (got '$reply')" [ "$reply" = OK ]
wait_pulses "$ra" "$label" 0 0 1 "$t_open" 1 10 || fail "no press of the first door within 10 s"
wait_pulses "$rb" "$label" 1 0 1 "$t_open" 1 10 || fail "no press of the gate within 10 s"
read -r a_start a_end a_width <<< "$(line_levels "$ra" "$label" 0 0 | pulses 1 | head -n 1)"
read -r b_start _ b_width <<< "$(line_levels "$rb" "$label" 1 0 | pulses 1 | head -n 1)"
metric presses_apart_ms "$(ms_between "$a_start" "$b_start") (the gate's press after the first door's, one packet)"
metric first_door_press_ms "$(ms "$a_width") (asked 300)"
metric gate_press_ms "$(ms "$b_width") (asked 500)"
check "the gate's press started while the first door's was under way" [ "$b_start" -lt "$a_end" ]
check "the first door's press $(press_window 300)" press_ok "$a_width" 300
check "the gate's press $(press_window 500)" press_ok "$b_width" 500
state=$(sock_send "$sock" "${MASTER_PIN}@2:S")
check "the gate reports its own state (got '$state')" [ "${state#S OPEN}" != "$state" ]
nap_until $((b_start + 3000000000))
check "one press of the first door in all" [ "$(line_levels "$ra" "$label" 0 0 | pulses 1 | wc -l)" -eq 1 ]
check "one press of the gate in all" [ "$(line_levels "$rb" "$label" 1 0 | pulses 1 | wc -l)" -eq 1 ]
pass "two doors pressed $(ms_between "$a_start" "$b_start") ms apart, each for its own pulse ($(ms "$a_width") / $(ms "$b_width") ms)"

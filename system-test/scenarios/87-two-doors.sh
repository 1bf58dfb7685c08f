#!/bin/bash
# Two doors on one chip (issue 20), on the real kernel, each with its own closed switch. First a
# line given to both doors under two names (its line name for one, its offset for the other):
# the config cannot tell, the kernel refuses the second request, and garaged stops naming the
# door, having pressed nothing. Then two doors on two lines: one packet asks the first door (the
# book's O=1) and the gate (@gate:O=1); both presses start before either ends, each lasts its
# own pulse. The gate's switch, made by hand, brings the gate to CLOSED and leaves the first
# door OPEN. A PIN limited to the first door is refused the gate, which does not move.
# shellcheck source=SCRIPTDIR/../lib/scenario.sh
source "$ST_LIB/scenario.sh"
require_daemon

sim_chip label=st-doors lines=4 names=relay-a,relay-b,closed-a,closed-b
chip=$SIM_CHIP label=$SIM_LABEL sys=$SIM_SYS
ra=$SIM_BASE rb=$((SIM_BASE + 1))
sim_pull "$sys" 2 up   # both doors rest on their closed switches
sim_pull "$sys" 3 up
sock=$ST_WORK/d.sock
[ -f "$PINS" ] || make_pins "$PINS"
trace_start

start_daemon twice --pins "$PINS" --socket "$sock" --no-ble \
    --door.left.relay "$chip:relay-a" --door.gate.relay "$chip:0"
wait_exit "$DAEMON_PID" 30 || fail "garaged did not stop with one line given to two doors"
check "garaged stopped (status $EXIT_RC) with one line given to two doors" [ "$EXIT_RC" = 1 ]
check "its message names the door whose line was taken: $(tail -n 1 "$ST_OUT/twice.log")" grep -q "door gate" "$ST_OUT/twice.log"
check "nothing was pressed" [ -z "$(line_levels "$ra" "$label" 0 0 | pulses 1)" ]

door() { # door NAME RELAY SWITCH PULSE_MS: one door's flags
    echo "--door.$1.relay $chip:$2 --door.$1.sensor-closed $chip:$3 --door.$1.sensor-debounce-ms 0" \
         "--door.$1.pulse-ms $4 --door.$1.travel-s 2 --door.$1.auto-close-s 0"
}
# shellcheck disable=SC2046  # each flag and value is one word
start_daemon d --pins "$PINS" --socket "$sock" --no-ble $(door left relay-a closed-a 300) $(door gate relay-b closed-b 500)
wait_ready "$DAEMON_PID" "$sock"
check "both doors start CLOSED on their switches" [ "$(sock_send "$sock" "${MASTER_PIN}@2:S")" = "S CLOSED" ]

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

# Both doors leave their switches and, with no open switch, are taken OPEN after the travel.
sim_pull "$sys" 2 down
sim_pull "$sys" 3 down
# shellcheck disable=SC2329  # called by wait_until
_open_now() { [ "$(sock_send "$sock" "${MASTER_PIN}S")" = "S OPEN" ] && [ "$(sock_send "$sock" "${MASTER_PIN}@2:S")" = "S OPEN" ]; }
wait_until 10 "both doors OPEN" _open_now || fail "the doors did not both reach OPEN"
# The gate closed by hand: its switch made again. The gate is CLOSED; the first door is not.
sim_pull "$sys" 3 up
# shellcheck disable=SC2329  # called by wait_until
_gate_closed() { [ "$(sock_send "$sock" "${MASTER_PIN}@gate:S")" = "S CLOSED" ]; }
wait_until 10 "the gate CLOSED by its switch" _gate_closed || fail "the gate's switch did not bring it to CLOSED"
left=$(sock_send "$sock" "${MASTER_PIN}S")
check "the first door is still OPEN after the gate's switch moved (got '$left')" [ "$left" = "S OPEN" ]

# A PIN limited to the first door: refused the gate, which does not move.
reply=$(garage_pins add 24680 --label guest --doors left --socket "$sock" --pin "$MASTER_PIN")
check "the guest's PIN was stored for the first door only (got '$reply')" [ "$reply" = "stored in slot 1 (guest) for left" ]
t_guest=$(trace_now)
reply=$(sock_send "$sock" "24680@gate:O=1")
check "the guest's PIN is refused the gate (got '$reply')" [ "$reply" = "ERR DENIED" ]
nap_until $((t_guest + 1000000000))
check "the gate was not pressed for the guest" [ "$(line_levels "$rb" "$label" 1 0 | pulses 1 | wc -l)" -eq 1 ]
check "the first door was pressed once in all" [ "$(line_levels "$ra" "$label" 0 0 | pulses 1 | wc -l)" -eq 1 ]
pass "two doors pressed $(ms_between "$a_start" "$b_start") ms apart, each for its own pulse ($(ms "$a_width") / $(ms "$b_width") ms); the gate's switch moved the gate only; a PIN limited to the first door was refused the gate"

#!/bin/bash
# A second garaged on the same chip and line is refused: it exits non-zero with a clear error
# saying the line is busy, without touching the line; the first keeps working. The second one
# has its own PIN table and socket, so the line is the only thing the two share. `garaged doctor`
# says the line is free before, held by the running garaged while it runs, and in use for a
# second table; it never touches the line itself.
# shellcheck source=SCRIPTDIR/../lib/scenario.sh
source "$ST_LIB/scenario.sh"
require_daemon

sim_chip label=st-relay lines=1 names=relay
g=$SIM_BASE
trace_start
[ -f "$PINS" ] || make_pins "$PINS"
make_pins "$ST_WORK/b.bin"
# doctor ARGS...: garaged doctor on this line, its report in $DOCTOR and its status in $DOCTOR_RC.
doctor() {
    DOCTOR_RC=0
    DOCTOR=$(timeout 30 "$GARAGED" doctor --relay "$SIM_CHIP:0" --no-ble "$@" 2>&1) || DOCTOR_RC=$?
    log "garaged doctor $*: status $DOCTOR_RC"$'\n'"$DOCTOR"
}
trace_mark doctor
doctor --pins "$PINS" --socket "$ST_WORK/a.sock"
trace_mark doctor-done
check "doctor passes a free line (status $DOCTOR_RC)" [ "$DOCTOR_RC" = 0 ]
check "doctor says the line exists and is free" grep -q '^ok    relay: .* exists and is free' <<< "$DOCTOR"
touched=$(trace_events | awk -v g="$g" -v a="$(mark_time doctor)" -v b="$(mark_time doctor-done)" \
    '$1 >= a && $1 <= b && ($2 == "value" || $2 == "dir") && $3 == g' | wc -l)
check "doctor did not touch the line ($touched event(s))" [ "$touched" = 0 ]
garaged_start first "$ST_WORK/a.sock" "$SIM_CHIP:0" --travel-s 1 --auto-close-s 0
first=$DAEMON_PID
doctor --pins "$PINS" --socket "$ST_WORK/a.sock"
check "doctor beside the running daemon passes (status $DOCTOR_RC)" [ "$DOCTOR_RC" = 0 ]
check "doctor says the running garaged holds the line" grep -q "^ok    relay: .* is held by the running garaged (pid $first)" <<< "$DOCTOR"
check "doctor says a garaged answers on the socket" grep -q '^ok    socket: .*a garaged answers on it' <<< "$DOCTOR"
doctor --pins "$ST_WORK/b.bin" --socket "$ST_WORK/b.sock"
check "doctor for a second table fails (status $DOCTOR_RC)" [ "$DOCTOR_RC" = 1 ]
check "doctor says another garaged holds the line" grep -q '^FAIL  relay: .* is in use by "garaged", a garaged running with another table' <<< "$DOCTOR"
trace_mark second
start_daemon second --pins "$ST_WORK/b.bin" --socket "$ST_WORK/b.sock" --relay "$SIM_CHIP:0" --no-ble
second=$DAEMON_PID
wait_exit "$second" 20 || fail "a second garaged on $SIM_CHIP:0 was still running after 20 s"
rc=$EXIT_RC
msg=$(grep -i 'busy' "$ST_OUT/second.log" | head -n1 | sed -E 's/^[0-9T:.-]+ [A-Z]+ //' || true)
log "second garaged: status $rc; log: $(cat "$ST_OUT/second.log")"
check "the second garaged exited non-zero (status $rc)" [ "$rc" != 0 ]
check "its error says the line is busy" [ -n "$msg" ]
check "it left no socket behind" [ ! -e "$ST_WORK/b.sock" ]
metric second_daemon "status $rc after $(ms_between "$(mark_time second)" "$(exit_time "$second")") ms: $msg"
t_second=$(mark_time second)
touched=$(trace_events | awk -v g="$g" -v t="$t_second" '$1 >= t && ($2 == "value" || $2 == "dir") && $3 == g' | wc -l)
check "the refused daemon did not touch the line ($touched event(s))" [ "$touched" = 0 ]

# The first still owns the line and still presses.
check "the first garaged is still running" proc_alive "$first"
trace_mark open-first
t_open=$(mark_time open-first)
reply=$(garage_pins open --socket "$ST_WORK/a.sock" --pin "$MASTER_PIN")
check "the first garaged answered OK (got '$reply')" [ "$reply" = OK ]
wait_pulses "$g" "$SIM_LABEL" 0 0 1 "$t_open" 1 10 || fail "the first garaged did not press"
garaged_stop "$first"
check "the first garaged exited 0 (status $EXIT_RC)" [ "$EXIT_RC" = 0 ]
pass "refused with status $rc: ${msg:0:200}"

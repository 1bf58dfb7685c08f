#!/bin/bash
# The relay line named by its line name (CHIP:NAME), the chip by its label (LABEL:NAME and
# LABEL:OFFSET) or its path (/dev/CHIP:NAME). Two chips carry the same line names, so a spec that
# picks the wrong chip or line shows up as a press on the wrong gpio. An unknown name is refused.
# shellcheck source=SCRIPTDIR/../lib/scenario.sh
source "$ST_LIB/scenario.sh"
require_daemon

sim_chip label=st-decoy lines=3 names=door,relay,spare
decoy_base=$SIM_BASE
sim_chip label=st-garage lines=3 names=door,relay,spare
chip=$SIM_CHIP base=$SIM_BASE label=$SIM_LABEL
trace_start
done_cases=()

spec_case() { # spec_case SPEC OFFSET: garaged on SPEC must press line OFFSET of st-garage only
    local spec=$1 off=$2 n=${#done_cases[@]} sock reply t0 others
    sock=$ST_WORK/c$n.sock
    trace_mark "case-$n"
    t0=$(mark_time "case-$n")
    garaged_start "case$n" "$sock" "$spec" --travel-s 1 --auto-close-s 0
    reply=$(garage_pins open --socket "$sock" --pin "$MASTER_PIN")
    check "[$spec] garage-pins open answered OK (got '$reply')" [ "$reply" = OK ]
    # Anchored at this case: an earlier case pressed the same line already.
    wait_pulses $((base + off)) "$label" "$off" 0 1 "$t0" 1 10 || fail "[$spec] no press on $chip line $off"
    garaged_stop "$DAEMON_PID"
    others=$(trace_events | awk -v t="$t0" -v g=$((base + off)) -v lo="$decoy_base" -v hi=$((base + 2)) \
        '$1 >= t && $2 == "value" && $3 != g && $3 >= lo && $3 <= hi { print $3 }' | sort -u | tr '\n' ' ')
    check "[$spec] no other line of either chip was touched (${others:-none})" [ -z "$others" ]
    read -r _ _ w <<< "$(line_levels $((base + off)) "$label" "$off" 0 | awk -v t="$t0" '$1 >= t' | pulses 1 | head -n1)"
    metric "$spec" "-> $chip line $off, press $(ms "$w") ms"
    done_cases+=("$spec")
}

spec_case "$chip:relay" 1
spec_case "$label:relay" 1
spec_case "$label:2" 2
spec_case "/dev/$chip:spare" 2

# An unknown line name: refused at start with a message naming it.
start_daemon unknown --pins "$PINS" --socket "$ST_WORK/u.sock" --relay "$label:nosuch" --no-ble
wait_exit "$DAEMON_PID" 20 || fail "garaged with an unknown line name was still running after 20 s"
check "an unknown line name is refused (status $EXIT_RC)" [ "$EXIT_RC" != 0 ]
check "the refusal names the line" grep -q nosuch "$ST_OUT/unknown.log"
metric unknown_line "status $EXIT_RC: $(head -c 200 "$ST_OUT/unknown.log")"
pass "pressed the right line for: ${done_cases[*]}; unknown name refused"

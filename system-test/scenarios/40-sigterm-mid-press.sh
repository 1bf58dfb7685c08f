#!/bin/bash
# SIGTERM in the middle of a press: garaged either completes the press or cuts it short, leaves
# the line inactive, and exits 0 within 1 s (its contract). Two presses: the default 300 ms one,
# and a 2000 ms one where finishing would take longer than the 1 s allowed.
source "$ST_LIB/scenario.sh"
require_daemon

sim_chip label=st-relay lines=1 names=relay
g=$SIM_BASE
trace_start
summary=()

term_case() { # term_case PULSE_MS DELAY_S
    local pulse=$1 delay=$2 sock=$ST_WORK/t$1.sock pid reply
    garaged_start "d$pulse" "$sock" "$SIM_CHIP:0" --pulse-ms "$pulse" --travel-s 3 --auto-close-s 0
    pid=$DAEMON_PID
    trace_mark "open-$pulse"
    reply=$(garage_pins open --socket "$sock" --pin "$MASTER_PIN")
    check "[$pulse ms] garage-pins open answered OK (got '$reply')" [ "$reply" = OK ]
    wait_level "$SIM_SYS" 0 1 10 || fail "[$pulse ms] the press did not start within 10 s"
    nap "$delay"
    trace_mark "term-$pulse"
    kill -TERM "$pid"
    wait_exit "$pid" 5 || fail "[$pulse ms] garaged still running 5 s after SIGTERM"
    local rc=$EXIT_RC t_open t_term t_exit start end width after
    t_open=$(mark_time "open-$pulse") t_term=$(mark_time "term-$pulse") t_exit=$(exit_time "$pid")
    read -r start end width <<< "$(line_levels "$g" "$SIM_LABEL" 0 0 |
        awk -v t="$t_open" '$1 >= t' | pulses 1 | head -n1)"
    check "[$pulse ms] the press started before the SIGTERM" [ -n "$start" -a "${start:-0}" -lt "$t_term" ]
    check "[$pulse ms] the press ended" [ "$end" != - ]
    check "[$pulse ms] SIGTERM landed in the middle of the press" [ "$end" -gt "$t_term" ]
    check "[$pulse ms] garaged exited 0 (status $rc)" [ "$rc" = 0 ]
    check "[$pulse ms] the line is at 0 after exit" _level_is "$SIM_SYS" 0 0
    after=$(line_levels "$g" "$SIM_LABEL" 0 0 | awk -v t="$end" '$1 > t && $2 == 1' | wc -l)
    check "[$pulse ms] no active level after the press ended ($after)" [ "$after" = 0 ]
    local how=completed
    [ "$width" -ge $((pulse * 1000000 - 2000000)) ] || how="cut short"
    metric "term_${pulse}ms" "press $(ms "$width") ms of $pulse ($how); SIGTERM $(ms_between "$start" "$t_term") ms into it; release $(ms_between "$t_term" "$end") ms and exit $(ms_between "$t_term" "$t_exit") ms after SIGTERM"
    check "[$pulse ms] exit within 1 s of SIGTERM ($(ms_between "$t_term" "$t_exit") ms)" \
        [ -n "$t_exit" -a $((t_exit - t_term)) -le 1000000000 ]
    summary+=("$pulse ms press $how at $(ms "$width") ms, exit after $(ms_between "$t_term" "$t_exit") ms")
}

term_case 300 0.1
term_case 2000 0.3
pass "${summary[0]}; ${summary[1]}"

#!/bin/bash
# SIGTERM in the middle of a press: garaged either completes the press or cuts it short, leaves
# the line inactive, and exits 0 within 1 s (its contract). Two presses: the default 300 ms one,
# and a 2000 ms one where finishing would take longer than the 1 s allowed.
# shellcheck source=SCRIPTDIR/../lib/scenario.sh
source "$ST_LIB/scenario.sh"
require_daemon

sim_chip label=st-relay lines=1 names=relay
g=$SIM_BASE
trace_start
summary=()

# term_case PULSE_MS DELAY_S: one daemon, one open, SIGTERM DELAY_S after the press starts.
# Sets MISSED=1 (to try again) when the SIGTERM missed the press: a miss of the harness under
# load, not of the daemon.
term_case() {
    local pulse=$1 delay=$2 try=$3 tag=$1-$3 sock=$ST_WORK/t$1-$3.sock pid t_open
    MISSED=0
    garaged_start "d$tag" "$sock" "$SIM_CHIP:0" --pulse-ms "$pulse" --travel-s 3 --auto-close-s 0
    pid=$DAEMON_PID
    trace_mark "open-$tag"
    t_open=$(mark_time "open-$tag")
    open_async "$sock" "$tag"
    wait_level "$SIM_SYS" 0 1 10 || fail "[$pulse ms] the press did not start within 10 s"
    # Aim, not a wait: the press is under way (the line is active); the SIGTERM goes DELAY_S
    # after this shell saw it. A plain nap on purpose: reading the press's stamp from the trace
    # first costs more than the delay under TCG. Whether it landed inside the press is then
    # checked from the kernel's stamps, and a miss is tried again.
    nap "$delay"
    trace_mark "term-$tag"
    kill -TERM "$pid"
    wait_exit "$pid" 5 || fail "[$pulse ms] garaged still running 5 s after SIGTERM"
    local rc=$EXIT_RC t_term t_exit start end width after
    open_wait "$tag"
    t_term=$(mark_time "term-$tag") t_exit=$(exit_time "$pid")
    read -r start end width <<< "$(line_levels "$g" "$SIM_LABEL" 0 0 |
        awk -v t="$t_open" '$1 >= t' | pulses 1 | head -n1)"
    check "[$pulse ms] the press started before the SIGTERM" [ -n "$start" -a "${start:-0}" -lt "$t_term" ]
    check "[$pulse ms] the press ended" [ "$end" != - ]
    if [ "$end" -le "$t_term" ]; then
        log "[$pulse ms] try $try: the SIGTERM came $(ms_between "$end" "$t_term") ms after the press had ended"
        MISSED=1
        return 0
    fi
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

# term_mid_press PULSE_MS DELAY_S: term_case, up to 3 tries to land inside the press.
term_mid_press() {
    local try
    for try in 1 2 3; do
        term_case "$1" "$2" "$try"
        [ "$MISSED" = 1 ] || return 0
    done
    fail "[$1 ms] 3 tries, and the SIGTERM never landed inside the press (the guest is too slow?)"
}

term_mid_press 300 0.1
term_mid_press 2000 0.3
pass "${summary[0]}; ${summary[1]}"

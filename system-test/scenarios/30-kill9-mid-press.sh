#!/bin/bash
# kill -9 of garaged in the middle of a press: the kernel releases the line when the holder dies,
# so it returns to its pull (0: the relay is released); a restarted garaged on the same line,
# table and socket path claims it inactive and does not press. The press is 2 s long so that the
# kill lands in its middle for sure; the release is stamped by the kprobe on gpio-sim's free().
# shellcheck source=SCRIPTDIR/../lib/scenario.sh
source "$ST_LIB/scenario.sh"
require_daemon
have_release_probe || fail "no sim_free kprobe: the release cannot be timed"

sim_chip label=st-relay lines=1 names=relay
g=$SIM_BASE sock=$ST_WORK/g.sock
trace_start
garaged_start d1 "$sock" "$SIM_CHIP:0" --pulse-ms 2000 --travel-s 3 --auto-close-s 0
pid1=$DAEMON_PID
trace_mark open
t_open=$(mark_time open)
open_async "$sock" open
wait_level "$SIM_SYS" 0 1 10 || fail "the press did not start within 10 s"
# Aim, not a wait: the press is under way (the line is active); the kill goes 0.3 s after this
# shell saw it, well inside the 2 s press. The checks below confirm from the kernel's stamps that
# it landed inside the press.
nap 0.3
trace_mark kill9
kill -KILL "$pid1"
wait_exit "$pid1" 5 || fail "garaged still there 5 s after SIGKILL"
check "the line is back at 0 once garaged is gone" _level_is "$SIM_SYS" 0 0
open_wait open

t_kill=$(mark_time kill9)
t_exit=$(exit_time "$pid1")
levels=$(line_levels "$g" "$SIM_LABEL" 0 0)
read -r p_start p_end _ <<< "$(pulses 1 <<< "$levels" | awk -v t="$t_open" '$1 >= t && !d { d = 1; print }')"
t_free=$(trace_events | awk -v l="$SIM_LABEL" -v t="$t_kill" '$2 == "free" && $3 == l && $4 == 0 && $1 >= t && !d { d = 1; print $1 }')
check "the kill landed in the middle of the press (press from $p_start, kill at $t_kill)" \
    [ -n "$p_start" -a "$p_start" -lt "$t_kill" ]
check "no release by garaged itself before the kill (the press was cut by the kill)" \
    [ "$p_end" = - -o "${p_end:-0}" -ge "$t_kill" ]
check "the kernel released the line after the kill" [ -n "$t_free" ]
metric press_before_kill_ms "$(ms_between "$p_start" "$t_kill")"
metric kill_to_release_ms "$(ms_between "$t_kill" "$t_free") (SIGKILL marker -> gpio-sim free(): relay released)"
[ -z "$t_exit" ] || metric kill_to_exit_ms "$(ms_between "$t_kill" "$t_exit") (main thread exit)"
metric press_width_ms "$(ms_between "$p_start" "$t_free") (asked 2000, cut by the kill)"

# Restart on the same line, table and socket path (the old socket file is stale).
trace_mark restart
garaged_start d2 "$sock" "$SIM_CHIP:0" --pulse-ms 2000 --travel-s 3 --auto-close-s 0
pid2=$DAEMON_PID
# A deliberate interval in which nothing may happen: 3 s (longer than a press) from the moment
# the restarted daemon answers on its socket; a daemon that "resumed" the press would show here.
nap 3
st=$(door_status "$sock")
t_restart=$(mark_time restart)
after=$(line_levels "$g" "$SIM_LABEL" 0 0 | awk -v t="$t_restart" '$1 >= t { print $2 }')
n_after=$(grep -c . <<< "$after" || true)
active_after=$(grep -cx 1 <<< "$after" || true)
log "levels after the restart: $(tr '\n' ' ' <<< "$after"); status: $st"
check "the restarted daemon claimed the line ($n_after level set(s) after restart)" [ "$n_after" -ge 1 ]
check "the restarted daemon never set the line active ($active_after active)" [ "$active_after" = 0 ]
check "the line stayed at 0" _level_is "$SIM_SYS" 0 0
check "the restarted daemon does not report a moving door (status '$st')" \
    [ "$st" = "S CLOSED" -o "$st" = "S OPEN" -o "${st#S OPEN }" != "$st" ]
metric restart "$n_after level set(s) in 3 s after the restart, none active; status '$st'"
garaged_stop "$pid2"
pass "killed $(ms_between "$p_start" "$t_kill") ms into a press; line released $(ms_between "$t_kill" "$t_free") ms after SIGKILL; restart did not press"

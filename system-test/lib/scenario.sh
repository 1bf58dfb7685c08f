# shellcheck shell=bash
# Helpers for scenarios, sourced first by every scenarios/NN-name.sh (inside the guest).
#
# A scenario is one bash script that ends with `pass "summary"`, `fail "reason"` or `skip "why"`.
# Anything unexpected (a failing command, a deadline) also ends it with a FAIL that says where.
# `metric NAME VALUE` records a figure; the host prints them under the verdict.
#
# Environment from guest-main.sh: ST_NAME, ST_OUT (this scenario's folder in the results share),
# ST_WORK (scratch on tmpfs), ST_LIB, ST_BIN_DIR (the project's built binaries).
#
# Timing comes only from the kernel: the gpio/gpio_value and gpio/gpio_direction tracepoints,
# sched/sched_process_exit, markers written to trace_marker, and a kprobe on gpio-sim's free(),
# all stamped with trace_clock=mono. Polling (wait_until) only decides when to look or act.

set -Eeuo pipefail

: "${ST_NAME:?}" "${ST_OUT:?}" "${ST_WORK:?}" "${ST_LIB:?}" "${ST_BIN_DIR:?}"
mkdir -p "$ST_WORK"
cd "$ST_WORK"

GARAGED=$ST_BIN_DIR/garaged
GARAGE_PINS=$ST_BIN_DIR/garage-pins
# Without --config garaged reads /etc/garaged.conf when it exists, and the VM sees the host's /etc:
# a scenario's daemon and doctor read only the files it names.
export GARAGED_CONFIG=
MASTER_PIN=12345
TRACE=/sys/kernel/tracing
ST_PIDS=()
ST_SIMS=()
ST_TRACING=0

# ---------------------------------------------------------------------------------------------
# Verdicts, logs, figures

log() { local up _; read -r up _ < /proc/uptime; printf '[%s] %s\n' "$up" "$*" >&2; }

metric() { # metric NAME VALUE...
    local name=$1; shift
    printf '%s: %s\n' "$name" "$*" >> "$ST_OUT/metrics"
    log "metric $name: $*"
}

_verdict() {
    [ -s "$ST_OUT/result" ] || printf '%s %s: %s\n' "$1" "$ST_NAME" "$2" > "$ST_OUT/result"
    log "$1: $2"
}
pass() { _verdict PASS "$*"; exit 0; }
fail() { _verdict FAIL "$*"; exit 1; }
skip() { _verdict SKIP "$*"; exit 0; }

# check DESCRIPTION CMD...: fail the scenario with DESCRIPTION unless CMD succeeds.
check() {
    local desc=$1; shift
    if "$@"; then log "ok: $desc"; else fail "$desc"; fi
}

in_range() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }  # in_range V LO HI (integers)

# press_ok WIDTH_NS WANT_MS: a press the relay would register, and no gross stretch. Never more
# than 2 ms short; at most ST_PRESS_SLACK_MS (150) long, because under TCG a vCPU thread that
# the 2-core host deschedules wakes the guest's timer late (a 359 ms press was seen once, the
# daemon's own clock agreeing, with nothing of the daemon's between set and release). The exact
# error is always reported as a metric; the 2 ms goal is held on the host by the integration
# tests and scripts/bench.sh, which run on a real clock.
press_ok() { in_range "$1" $(($2 * 1000000 - 2000000)) $(($2 * 1000000 + ${ST_PRESS_SLACK_MS:-150} * 1000000)); }
press_window() { echo "$1 ms (-2/+${ST_PRESS_SLACK_MS:-150} ms under TCG)"; }

# Only the scenario's own shell gives the verdict; a failing subshell makes its caller fail.
_st_on_err() { [ "$BASHPID" = "$$" ] || return 0; _verdict FAIL "unexpected error (status $1) at ${BASH_SOURCE[1]##*/}:$2: $3"; }
trap '_st_on_err $? $LINENO "$BASH_COMMAND"' ERR

_st_cleanup() {
    local rc=$? p d
    trap - ERR
    set +e
    for p in "${ST_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
    for p in "${ST_PIDS[@]}"; do
        for _ in $(seq 40); do proc_exited "$p" && break; nap 0.05; done
        kill -KILL "$p" 2>/dev/null
    done
    [ "$ST_TRACING" = 1 ] && cp "$TRACE/trace" "$ST_OUT/trace.txt" 2>/dev/null
    for d in "${ST_SIMS[@]}"; do sim_remove "$d"; done
    [ -s "$ST_OUT/result" ] || _verdict FAIL "ended with status $rc without a verdict"
}
trap _st_cleanup EXIT
trap '_verdict FAIL "stopped by SIGTERM: the scenario deadline (${ST_SCENARIO_TIMEOUT:-?}s) was reached"; exit 1' TERM

# ---------------------------------------------------------------------------------------------
# Deadlines. Every wait has one.

now_us() { echo "${EPOCHREALTIME/./}"; }

# nap SECONDS: sleep without forking (a read with a timeout on a FIFO nobody writes to); under
# TCG every fork+exec costs milliseconds, which matters when aiming at the middle of a press.
rm -f "$ST_WORK/.nap"; mkfifo "$ST_WORK/.nap"
exec {_ST_NAP_FD}<> "$ST_WORK/.nap"
nap() { read -r -t "$1" -u "$_ST_NAP_FD" _ || true; }

# wait_until SECONDS DESCRIPTION CMD...: poll CMD every 20 ms. CMD status 0 = done, 1 = not yet,
# anything else = give up at once. Returns 0 when done, 1 otherwise (and logs why).
wait_until() {
    local limit=$1 desc=$2; shift 2
    local end=$(( $(now_us) + ${limit%.*} * 1000000 )) rc
    while :; do
        rc=0; "$@" || rc=$?
        [ $rc -eq 0 ] && return 0
        if [ $rc -ne 1 ]; then log "gave up waiting for $desc (status $rc)"; return 1; fi
        if [ "$(now_us)" -ge "$end" ]; then log "deadline: no $desc within ${limit}s"; return 1; fi
        nap 0.02
    done
}

# ---------------------------------------------------------------------------------------------
# gpio-sim chips

# sim_chip [label=LABEL] [lines=N] [names=n0,n1,...] [pullup=o1,o2,...]
# Makes a live chip with one bank. Sets SIM_DEV (platform device), SIM_CHIP (gpiochipN),
# SIM_LABEL, SIM_BASE (global number of line 0, as in the tracepoints) and SIM_SYS (sysfs folder
# holding sim_gpioN/{value,pull}). Removed when the scenario ends.
sim_chip() {
    local label="" lines=1 names="" pullup="" kv i nm
    for kv in "$@"; do
        case $kv in
            label=*) label=${kv#*=} ;; lines=*) lines=${kv#*=} ;;
            names=*) names=${kv#*=} ;; pullup=*) pullup=${kv#*=} ;;
            *) fail "sim_chip: unknown argument $kv" ;;
        esac
    done
    local d=/sys/kernel/config/gpio-sim/st-$$-${#ST_SIMS[@]}
    mkdir "$d" "$d/bank0"
    ST_SIMS+=("$d")
    [ -z "$label" ] || echo "$label" > "$d/bank0/label"
    echo "$lines" > "$d/bank0/num_lines"
    i=0
    for nm in ${names//,/ }; do
        mkdir "$d/bank0/line$i"
        [ "$nm" = "-" ] || echo "$nm" > "$d/bank0/line$i/name"
        i=$((i + 1))
    done
    echo 1 > "$d/live"
    SIM_DEV=$(cat "$d/dev_name")
    SIM_CHIP=$(cat "$d/bank0/chip_name")
    SIM_SYS=/sys/devices/platform/$SIM_DEV/$SIM_CHIP
    SIM_BASE="" SIM_LABEL=""
    local c
    for c in /sys/class/gpio/gpiochip*; do
        if [ "$(readlink -f "$c/device")" = "/sys/devices/platform/$SIM_DEV" ]; then
            SIM_BASE=$(cat "$c/base"); SIM_LABEL=$(cat "$c/label")
        fi
    done
    [ -n "$SIM_BASE" ] || fail "sim_chip: no base number found for $SIM_CHIP"
    for i in ${pullup//,/ }; do sim_pull "$SIM_SYS" "$i" up; done
    log "sim chip $SIM_CHIP (device $SIM_DEV, label '$SIM_LABEL', base $SIM_BASE, $lines lines${names:+, names $names})"
}

sim_remove() {
    local d=$1 l
    echo 0 > "$d/live" 2>/dev/null
    for l in "$d"/bank0/line*; do [ -d "$l" ] && rmdir "$l"; done
    rmdir "$d/bank0" "$d" 2>/dev/null || log "could not remove $d"
}

sim_value() { cat "$1/sim_gpio$2/value"; }          # sim_value SIM_SYS OFFSET -> 0|1 (physical)
sim_pull() { echo "pull-$3" > "$1/sim_gpio$2/pull"; } # sim_pull SIM_SYS OFFSET up|down

# ---------------------------------------------------------------------------------------------
# Kernel trace capture and parsing

# trace_start: empty the buffer and record gpio events, process exits, markers (and the sim_free
# kprobe when present), stamped with CLOCK_MONOTONIC.
trace_start() {
    echo 0 > "$TRACE/tracing_on"
    echo mono > "$TRACE/trace_clock"
    echo 4096 > "$TRACE/buffer_size_kb"
    : > "$TRACE/trace"
    echo 1 > "$TRACE/events/gpio/gpio_value/enable"
    echo 1 > "$TRACE/events/gpio/gpio_direction/enable"
    # Only the exits of the project's processes (set EXIT_FILTER before trace_start for others).
    echo "${EXIT_FILTER:-comm ~ \"garage*\"}" > "$TRACE/events/sched/sched_process_exit/filter"
    echo 1 > "$TRACE/events/sched/sched_process_exit/enable"
    if [ -d "$TRACE/events/st/sim_free" ]; then echo 1 > "$TRACE/events/st/sim_free/enable"; fi
    echo 1 > "$TRACE/tracing_on"
    ST_TRACING=1
}
trace_mark() { echo "st: $*" > "$TRACE/trace_marker"; }
have_release_probe() { [ -d "$TRACE/events/st/sim_free" ]; }

# trace_events: the buffer as normalized lines, oldest first, times in ns (CLOCK_MONOTONIC):
#   T value GPIO V      a set of the line's physical value (gets are dropped)
#   T dir GPIO in|out   a direction change (a request as output shows "value" then "dir out")
#   T free LABEL OFF    gpio-sim's free(): the holder released the line, it returns to its pull
#   T exit PID COMM     a task exited (one per thread; the main thread has PID = process id)
#   T mark TEXT         a trace_mark
trace_events() {
    awk '
    match($0, / [0-9]+\.[0-9]+: /) {
        ts = substr($0, RSTART + 1, RLENGTH - 3); split(ts, p, ".")
        t = p[1] * 1000000000 + p[2] * 10 ^ (9 - length(p[2]))
        rest = substr($0, RSTART + RLENGTH); split(rest, f, " ")
        if (f[1] == "gpio_value:" && f[3] == "set") printf "%.0f value %s %s\n", t, f[2], f[4]
        else if (f[1] == "gpio_direction:") printf "%.0f dir %s %s\n", t, f[2], f[3]
        else if (f[1] == "sim_free:") {
            l = rest; sub(/.*label="/, "", l); sub(/".*/, "", l)
            o = rest; sub(/.*offset=/, "", o); sub(/ .*/, "", o)
            printf "%.0f free %s %s\n", t, l, o
        } else if (f[1] == "sched_process_exit:") {
            c = rest; sub(/.*comm=/, "", c); sub(/ pid=.*/, "", c)
            q = rest; sub(/.*pid=/, "", q); sub(/ .*/, "", q)
            printf "%.0f exit %s %s\n", t, q, c
        } else if (f[1] == "tracing_mark_write:") {
            m = rest; sub(/^ *tracing_mark_write: st: /, "", m)
            printf "%.0f mark %s\n", t, m
        }
    }' "$TRACE/trace"
}

# trace_has REGEX: some normalized event line matches. It looks at the whole trace: as a wait
# condition it is only right for an event that cannot have happened before (otherwise anchor the
# wait: wait_mark_after, wait_pulses). Reads to the end on purpose.
trace_has() { trace_events | awk -v r="$1" '$0 ~ r { f = 1 } END { exit f ? 0 : 1 }'; }

# line_levels GPIO LABEL OFFSET PULL: "T V" for every level the line takes: sets, and the return
# to PULL when its holder releases it.
line_levels() {
    trace_events | awk -v g="$1" -v l="$2" -v o="$3" -v pull="$4" '
        $2 == "value" && $3 == g { print $1, $4 }
        $2 == "free" && $3 == l && $4 == o { print $1, pull }'
}

# pulses ACTIVE < levels: "START END WIDTH" (ns) for each stretch at the ACTIVE level;
# END and WIDTH are "-" when the line is still active at the end.
pulses() {
    awk -v a="$1" '
        $2 == a && !on { on = 1; s = $1 }
        $2 != a && on { on = 0; printf "%.0f %.0f %.0f\n", s, $1, $1 - s }
        END { if (on) printf "%.0f - -\n", s }'
}

# mark_time TEXT / exit_time PID: the stamp (ns) of the first such mark / exit; empty if none.
# (The readers never stop early: a broken pipe would count as a failure under pipefail.)
mark_time() { trace_events | awk -v m="$1" '$2 == "mark" && $3 == m && !d { d = 1; printf "%.0f\n", $1 }'; }
# mark_after TEXT T: the stamp of the first mark TEXT at or after T (ns); empty if none.
mark_after() { trace_events | awk -v m="$1" -v t="$2" '$2 == "mark" && $3 == m && $1 >= t && !d { d = 1; printf "%.0f\n", $1 }'; }
exit_time() { trace_events | awk -v p="$1" '$2 == "exit" && $3 == p && !d { d = 1; printf "%.0f\n", $1 }'; }
# wait_mark_after TEXT T SECONDS: until a mark TEXT stamped at or after T (ns) is in the trace.
# Anchor T at the event that must come first, so that an older mark TEXT cannot satisfy it.
_mark_after_seen() { [ -n "$(mark_after "$1" "$2")" ]; }
wait_mark_after() { wait_until "$3" "mark $1 after $(ms "$2") ms" _mark_after_seen "$1" "$2"; }
# trace_now: the trace clock (ns) now, as the stamp of a mark written for the purpose.
trace_now() { local m="now-${EPOCHREALTIME/./}"; trace_mark "$m"; mark_time "$m"; }
# nap_until T: nap until the trace clock has passed T (ns). Not a wait for an event: only for an
# interval in which a scenario checks that NOTHING happens, anchored at the kernel's stamp of
# what the interval starts from (e.g. a press's start + 2 s). Two trace reads: under TCG too
# slow to aim a signal into a short press (40-sigterm-mid-press naps right after wait_level).
nap_until() {
    local now; now=$(trace_now)
    [ "$1" -le "$now" ] || nap "$(awk -v d=$(($1 - now)) 'BEGIN { printf "%.3f", d / 1e9 }')"
}
ms() { awk -v n="$1" 'BEGIN { printf "%.3f", n / 1e6 }'; }            # ns -> "123.456"
ms_between() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b - a) / 1e6 }'; }

# ---------------------------------------------------------------------------------------------
# Processes

# proc_exited PID: the process is gone or a zombie.
proc_exited() {
    local s
    s=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
    s=${s##*) }
    [ "${s%% *}" = Z ]
}
proc_alive() { ! proc_exited "$1"; }

# wait_exit PID SECONDS: wait for PID (a child of this script) to end; sets EXIT_RC.
wait_exit() {
    wait_until "$2" "exit of pid $1" proc_exited "$1" || return 1
    EXIT_RC=0; wait "$1" || EXIT_RC=$?
    return 0
}

# ---------------------------------------------------------------------------------------------
# The daemon under test

require_daemon() {
    { [ -x "$GARAGED" ] && [ -x "$GARAGE_PINS" ]; } ||
        fail "garaged/garage-pins not built in $ST_BIN_DIR (run without --no-build)"
}

# make_pins FILE: a PIN table whose master PIN is MASTER_PIN.
make_pins() {
    timeout 30 "$GARAGE_PINS" init --pins "$1" --master "$MASTER_PIN" --force \
        > "$ST_OUT/pins-init.log" 2>&1 || { cat "$ST_OUT/pins-init.log" >&2; fail "garage-pins init failed"; }
}

# start_daemon TAG ARGS...: garaged ARGS in the background, stderr+stdout to $ST_OUT/TAG.log.
# Sets DAEMON_PID. Stopped (TERM, then KILL) when the scenario ends if still running.
start_daemon() {
    local tag=$1; shift
    log "start $tag: garaged $*"
    "$GARAGED" "$@" > "$ST_OUT/$tag.log" 2>&1 &
    DAEMON_PID=$!
    ST_PIDS+=("$DAEMON_PID")
}

# Any failure of the request is "not yet" (status 1): sock-send's own failure statuses (2: no
# reply within 5 s, 124: timeout) would otherwise make wait_until give up on a slow start.
_ready() {
    local r
    proc_alive "$1" || return 2
    [ -S "$2" ] || return 1
    r=$(door_status "$2" 2> /dev/null) || return 1
    [ "${r#S }" != "$r" ]
}
# wait_ready PID SOCKET [SECONDS]: the daemon is up when its socket answers a status request
# with a status line (a socket file alone could be a stale one left by a killed daemon).
wait_ready() {
    wait_until "${3:-30}" "socket $2 of pid $1" _ready "$1" "$2" && return 0
    proc_alive "$1" && fail "daemon pid $1 did not create $2 within ${3:-30}s"
    wait "$1" && rc=0 || rc=$?
    fail "daemon pid $1 exited with status $rc before it was ready: $(tail -n 3 "$ST_OUT"/*.log | tr '\n' ' ')"
}

# garaged_start TAG SOCKET RELAY [ARGS...]: garaged on the relay spec with the scenario's PIN
# table ($PINS, made on first use) and no Bluetooth; returns once its socket answers.
PINS=$ST_WORK/pins.bin
garaged_start() {
    local tag=$1 sock=$2 relay=$3; shift 3
    [ -f "$PINS" ] || make_pins "$PINS"
    start_daemon "$tag" --pins "$PINS" --socket "$sock" --relay "$relay" --no-ble "$@"
    wait_ready "$DAEMON_PID" "$sock"
    log "$tag ready (pid $DAEMON_PID)"
}

# garaged_stop PID [SECONDS]: SIGTERM and wait (default 5 s); sets EXIT_RC. Fails on the deadline.
garaged_stop() {
    kill -TERM "$1"
    wait_exit "$1" "${2:-5}" || fail "garaged pid $1 still running ${2:-5}s after SIGTERM"
}

# status_watch SOCKET SECONDS: in the background, ask the door's state every 100 ms on one
# connection and write each change to the trace as a mark "status-STATE" (so it gets a kernel
# stamp; the state itself is only known to within the polling interval). Returns once the
# watcher's first mark (the state it found) is in the trace, so that nothing the scenario does
# next can be missed; sets WATCH_PID and WATCH_FIRST (that first state).
_first_status() {
    trace_events | awk -v t="$1" '$2 == "mark" && $1 >= t && $3 ~ /^status-/ && !d { d = 1; print substr($3, 8) }'
}
_watch_started() {
    local alive=0; proc_alive "$WATCH_PID" && alive=1   # alive before looking: it may mark, then stop
    [ -n "$(_first_status "$1")" ] || return $((alive ? 1 : 2))
}
status_watch() {
    local t0; t0=$(trace_now)
    python3 "$ST_LIB/status-watch.py" "$1" "$MASTER_PIN" "$2" > "$ST_OUT/status-watch.txt" 2>&1 &
    WATCH_PID=$!
    ST_PIDS+=("$WATCH_PID")
    wait_until 30 "status-watch's first report" _watch_started "$t0" ||
        fail "status-watch did not report the door's state within 30 s: $(tr '\n' ' ' < "$ST_OUT/status-watch.txt")"
    # shellcheck disable=SC2034 # for the scenario
    WATCH_FIRST=$(_first_status "$t0")
}
# wait_status STATE T SECONDS: until the watcher marked status-STATE at or after T (ns); gives up
# at once if the watcher has stopped (it would never mark it).
_status_seen() {
    local alive=0; proc_alive "$WATCH_PID" && alive=1
    _mark_after_seen "status-$1" "$2" || return $((alive ? 1 : 2))
}
wait_status() { wait_until "$3" "status $1 after $(ms "$2") ms" _status_seen "$1" "$2"; }

# wait_pulses GPIO LABEL OFFSET PULL ACTIVE AFTER COUNT SECONDS: until COUNT complete presses
# that started at or after AFTER (ns: a mark written just before the command that causes them)
# are in the trace; presses from before the anchor do not count.
_n_pulses() {
    [ "$(line_levels "$1" "$2" "$3" "$4" | pulses "$5" | awk -v t="$6" '$2 != "-" && $1 >= t' | wc -l)" -ge "$7" ]
}
wait_pulses() { wait_until "$8" "$7 complete press(es) on gpio $1 after $(ms "$6") ms" _n_pulses "$@"; }
# press_start GPIO LABEL OFFSET PULL ACTIVE AFTER: the stamp of the first press (complete or
# not) that started at or after AFTER; empty if none.
press_start() { line_levels "$1" "$2" "$3" "$4" | pulses "$5" | awk -v t="$6" '$1 >= t && !d { d = 1; print $1 }'; }

# wait_level SIM_SYS OFFSET VALUE SECONDS: poll the sim's sysfs value (cheap, no fork), to act
# while a press is under way. Only for deciding when to act: timings come from the trace.
_level_is() { local v; read -r v < "$1/sim_gpio$2/value"; [ "$v" = "$3" ]; }
wait_level() { wait_until "$4" "level $3 on $1 line $2" _level_is "$1" "$2" "$3"; }

# sock_send SOCKET LINE: one request on the daemon's socket, prints the reply line.
sock_send() { timeout 10 python3 "$ST_LIB/sock-send.py" "$1" "$2"; }
door_status() { sock_send "$1" "${MASTER_PIN}S"; }

# value_after GPIO VALUE T: the stamp of the first set of GPIO (global number) to VALUE at or
# after T; empty if none. wait_value GPIO VALUE T SECONDS waits for one.
value_after() { trace_events | awk -v g="$1" -v v="$2" -v t="$3" '$1 >= t && $2 == "value" && $3 == g && $4 == v && !d { d = 1; print $1 }'; }
_value_seen() { [ -n "$(value_after "$1" "$2" "$3")" ]; }
wait_value() { wait_until "$4" "gpio $1 set to $2" _value_seen "$1" "$2" "$3"; }

# warned_press RELAY LABEL WARN T WARN_S WHAT: after T, the warning line WARN goes on, then the
# relay (RELAY on chip LABEL) presses; checks the press started a whole WARN_S seconds after the
# warning, records both figures and sets T_WARN and T_PRESS (the kernel's stamps).
warned_press() {
    local relay=$1 label=$2 warn=$3 t=$4 warn_s=$5 what=$6
    wait_value "$warn" 1 "$t" $((warn_s + 10)) || fail "no warning before the $what"
    T_WARN=$(value_after "$warn" 1 "$t")
    wait_pulses "$relay" "$label" 0 0 1 "$t" 1 $((warn_s + 10)) || fail "no $what press after the warning"
    T_PRESS=$(line_levels "$relay" "$label" 0 0 | pulses 1 | awk -v t="$t" '$1 >= t && !d { d = 1; print $1 }')
    metric warning_to_press_ms "$(ms_between "$T_WARN" "$T_PRESS") (warn-s $warn_s, the $what)"
    check "the $what press came only after the whole warning ($(ms_between "$T_WARN" "$T_PRESS") ms >= $((warn_s * 1000)))" \
        [ $((T_PRESS - T_WARN)) -ge $((warn_s * 1000000000)) ]
}

# garage_pins ARGS...: the CLI with a deadline; prints its output.
garage_pins() { timeout 15 "$GARAGE_PINS" "$@" 2>&1; }

# open_async SOCKET TAG: `garage-pins open` in the background (under load the CLI can take longer
# to exit than a press lasts); open_wait TAG then waits for it and fails unless it printed OK.
open_async() {
    timeout 15 "$GARAGE_PINS" open --socket "$1" --pin "$MASTER_PIN" > "$ST_WORK/open-$2.txt" 2>&1 &
    OPEN_PID=$!
    ST_PIDS+=("$OPEN_PID")
}
open_wait() {
    wait_exit "$OPEN_PID" 15 || fail "[$1] garage-pins open did not return within 15 s"
    local reply; reply=$(cat "$ST_WORK/open-$1.txt")
    check "[$1] garage-pins open answered OK (got '$reply')" [ "$EXIT_RC" = 0 -a "$reply" = OK ]
}

# uart_probe: a kprobe (event st/uart_out: reg, val, port) on every write the 8250 driver makes
# to a UART's register, enabled by the scenario after trace_start (made once a boot: a later
# scenario finds it there). Two functions are named io_serial_out (early_printk's too): the
# driver's is the one beside set_io_from_upio, and the probe takes its address.
uart_probe() {
    local fn
    [ ! -d "$TRACE/events/st/uart_out" ] || return 0
    fn=$(awk '$3 == "io_serial_out" { a = $1; next } $3 == "set_io_from_upio" && a && !d { d = 1; print a } { a = "" }' /proc/kallsyms)
    [ -n "$fn" ] || fail "no 8250 io_serial_out in /proc/kallsyms: the UART's bytes cannot be stamped"
    echo "p:st/uart_out 0x$fn reg=%si:u32 val=%dx:u8 port=%di:x64" >> "$TRACE/kprobe_events"
}
# uart_line_set DIVISOR LCR: the last line set up the driver wrote (in the st/uart_out events)
# has the divisor latch (LCR bit 0x80 set, then DLL, DLM) at DIVISOR (115200 / baud) and the line
# control's word length, stop bits and parity enable (its low 4 bits) as LCR's, and with parity
# on, its even-parity bit 0x10 too (the driver sets that bit whatever the parity enable): 3 is
# 8N1, 27 (0x1b) 8E1.
uart_line_set() {
    awk -v want_div="$1" -v want_lcr="$2" '/ uart_out: / { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
            if (v["reg"] == 3) { dlab = v["val"] >= 128; lcr = v["val"] % 64 }
            else if (dlab && v["reg"] == 0) dll = v["val"]; else if (dlab && v["reg"] == 1) dlm = v["val"] }
         END { parity_on = want_lcr % 16 >= 8
               exit !(dll + 256 * dlm == want_div && lcr % 16 == want_lcr % 16 &&
                      (!parity_on || int(lcr / 16) % 2 == int(want_lcr / 16) % 2)) }' "$TRACE/trace"
}

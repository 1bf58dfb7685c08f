# shellcheck shell=bash
# Bluetooth helpers for scenarios, sourced by a Bluetooth scenario right after lib/scenario.sh
# (whose helpers and variables they use: log, fail, check, metric, wait_until, wait_exit,
# proc_alive, ST_PIDS, TRACE). Packages (the scenario's `# packages:` line): bluez and
# bluez-test-tools (btvirt, btmgmt, btmon, hciconfig, gatttool), bluez-source for the phone.
#
# The radio: hci_vhci + `btvirt -L -l2` make two LE controllers on one emulated radio, hci0
# (ADDR0, for garaged) and hci1 (00:AA:01:01:00:01, the phone), powered with mgmt "power on" only
# (no bluetoothd). Setup, in this order: bt_modules_start (in the background, while the scenario
# sets up the rest), bt_modules_wait, btvirt_start, btmon_start, bt_power_on hci0 hci1.
#
# Kernel stamps: kprobes on the bluetooth module (kprobes_add, read with ev_kprobe) and btmon's
# packet times (btmon_att), which a `trace_mark "wall $EPOCHREALTIME"` puts on the trace clock.
# Sourcing this file sets an EXIT trap: scenario.sh's cleanup, then the kprobes' removal.

# BTGATT: BlueZ's btgatt-client, which system-test/run extracts from bluez-source when a scenario
# lists that package (the scenario checks that it is there).
BTGATT=$ST_PROJECT/.cache/system-test/bluez/btgatt-client
ADDR0=00:AA:01:00:00:00  # hci0: garaged; hci1 (00:AA:01:01:00:01) is the phone

# ---------------------------------------------------------------------------------------------
# Controllers

# mgmt ARGS...: btmgmt with a deadline. btmgmt prints nothing when its stdin cannot be polled
# (the scenario's is /dev/null): a pipe.
mgmt() { true | timeout -k 2 10 btmgmt "$@"; }
# reset_failures: how many HCI Resets have timed out so far ("Opcode 0x0c03 failed" in dmesg).
reset_failures() { dmesg | grep -c 'Opcode 0x0c03 failed' || true; }
# two_controllers FAILURES_BEFORE: both in mgmt's index list (set up), or status 2 as soon as a
# new HCI Reset timed out (that controller is dead: btvirt must be started again).
two_controllers() {
    [ "$(reset_failures)" = "$1" ] || return 2
    [ "$(mgmt info 2>/dev/null | grep -c '^hci[0-9]:')" -ge 2 ]
}
# hci_up HCI: the adapter is up and running (hciconfig).
hci_up() { hciconfig "$1" | grep -q 'UP RUNNING'; }

# bt_modules_start: modprobe hci_vhci and load the AF_ALG algorithms btvirt uses, in the
# background (sets MODPROBE_PID; output in $ST_WORK/modprobe.log); bt_modules_wait then waits for
# it (60 s) and fails unless it succeeded.
# btvirt's emulated controllers open AF_ALG sockets (ecb(aes), cmac(aes)) after the kernel has
# already sent the first one its HCI Reset: loading those modules on demand under TCG takes longer
# than the kernel's 2 s timeout ("hci0: Opcode 0x0c03 failed: -110"), so they are loaded first.
bt_modules_start() {
    log "modprobe hci_vhci and the AF_ALG algorithms btvirt uses, in the background"
    {
        modprobe hci_vhci && python3 -c '
import socket
for kind, name in (("skcipher", "ecb(aes)"), ("hash", "cmac(aes)")):
    socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0).bind((kind, name))'
    } > "$ST_WORK/modprobe.log" 2>&1 &
    MODPROBE_PID=$!
}
bt_modules_wait() {
    wait_exit "$MODPROBE_PID" 60 || fail "modprobe hci_vhci still running after 60 s"
    check "modprobe hci_vhci, AF_ALG ecb(aes) and cmac(aes) ($(cat "$ST_WORK/modprobe.log"))" [ "$EXIT_RC" = 0 ]
}

# btvirt_start: two LE controllers on one emulated radio (`btvirt -L -l2`, its output in
# $ST_OUT/btvirt.log; sets BTVIRT_PID), both in mgmt's index list. Should a controller still miss
# its HCI Reset, btvirt starts again: 4 attempts, then a FAIL; metric btvirt_attempts if it took
# more than one.
btvirt_start() {
    local attempt f0
    for attempt in 1 2 3 4; do
        f0=$(reset_failures)
        btvirt -L -l2 > "$ST_OUT/btvirt.log" 2>&1 &
        BTVIRT_PID=$!
        ST_PIDS+=("$BTVIRT_PID")
        wait_until 15 "two controllers in btmgmt info" two_controllers "$f0" && break
        log "btvirt attempt $attempt failed: $(dmesg | grep -i 'bluetooth: hci' | tail -n 2 | tr '\n' ' ')"
        kill -TERM "$BTVIRT_PID"
        wait_exit "$BTVIRT_PID" 5 || fail "btvirt did not exit"
        [ "$attempt" != 4 ] || fail "btvirt: no two working controllers in 4 attempts"
    done
    [ "$attempt" = 1 ] || metric btvirt_attempts "$attempt (a controller's HCI Reset went unanswered before)"
}

# btmon_start: `btmon -t` in the background, its decoded log in $ST_OUT/btmon.txt.
# btmon sees only what happens once its monitor socket is open; the kernel then lists the
# controllers present ("= New Index"): it returns once both are listed (15 s), so start it
# before anything it should record.
_btmon_ready() { local n; n=$(grep -c '^= New Index: .*\[hci[01]\]' "$ST_OUT/btmon.txt" 2> /dev/null) || true; [ "${n:-0}" -ge 2 ]; }
btmon_start() {
    stdbuf -oL btmon -t > "$ST_OUT/btmon.txt" 2>&1 &
    ST_PIDS+=("$!")
    wait_until 15 "btmon listing hci0 and hci1" _btmon_ready || fail "btmon did not start capturing within 15 s"
}

# bt_power_on HCI...: power each adapter on through mgmt; fails unless btmgmt says it is powered.
bt_power_on() {
    local hci out
    for hci in "$@"; do
        out=$(mgmt -i "$hci" power on) || fail "btmgmt -i $hci power on failed: $out"
        check "$hci powered through mgmt ($out)" grep -q 'settings: powered' <<< "$out"
    done
}

# ---------------------------------------------------------------------------------------------
# Kernel stamps: kprobes on the bluetooth module, in their own group, removed at the end.
#   stbt/adv_cc      hci_cc_le_set_adv_enable: an LE Set Advertise Enable completed (status=N)
#   stbt/att_accept  l2cap_sock_new_connection_cb: a connection accepted on an L2CAP listener
# kprobes_add (after trace_start) adds and enables them and sets HAVE_KPROBES=1; it fails
# (status 1) when the kernel does not offer them.

KPROBES=(
    "p:stbt/adv_cc bluetooth:hci_cc_le_set_adv_enable status=+0(%si):u8"
    "p:stbt/att_accept bluetooth:l2cap_sock_new_connection_cb"
)
# shellcheck disable=SC2034 # for the scenario
HAVE_KPROBES=0
kprobes_add() {
    local k
    for k in "${KPROBES[@]}"; do echo "$k" >> "$TRACE/kprobe_events" || return 1; done
    for k in adv_cc att_accept; do echo 1 > "$TRACE/events/stbt/$k/enable" || return 1; done
    # shellcheck disable=SC2034 # for the scenario
    HAVE_KPROBES=1
}
kprobes_remove() {
    local k
    for k in adv_cc att_accept; do
        [ -e "$TRACE/events/stbt/$k/enable" ] || continue
        echo 0 > "$TRACE/events/stbt/$k/enable"
        echo "-:stbt/$k" >> "$TRACE/kprobe_events"
    done
}
# The library's cleanup first (it saves the trace while the kprobe events still decode).
_ble_cleanup() { local rc=$?; trap - ERR; (exit "$rc"); _st_cleanup; kprobes_remove 2>/dev/null; }
trap _ble_cleanup EXIT

# ev_kprobe NAME AFTER [TEXT]: the first kprobe hit NAME at or after AFTER (ns) whose line holds TEXT.
ev_kprobe() {
    awk -v n="$1:" -v t="$2" -v m="${3:-}" '
    match($0, / [0-9]+\.[0-9]+: /) {
        ts = substr($0, RSTART + 1, RLENGTH - 3); split(ts, p, ".")
        s = p[1] * 1000000000 + p[2] * 10 ^ (9 - length(p[2]))
        rest = substr($0, RSTART + RLENGTH); split(rest, f, " ")
        if (f[1] == n && s >= t && index(rest, m) && !d) { d = 1; printf "%.0f\n", s }
    }' "$TRACE/trace"
}

# btmon_att HCI PDU N: the stamp (ns, trace clock) of the Nth ATT PDU named PDU that btmon saw
# on HCI, from btmon's time of day (UTC here) and the "wall" mark. Reads $EV, a snapshot of
# trace_events the scenario wrote to a file (e.g. `EV=$ST_WORK/events.txt; trace_events > "$EV"`).
btmon_att() {
    local m w
    read -r m w <<< "$(awk '$2 == "mark" && $3 == "wall" && !d { d = 1; print $1, $4 }' "$EV")"
    awk -v hci="[$1]" -v pdu="ATT: $2 (" -v n="$3" -v m="$m" -v w="$w" '
        /^[<>] ACL Data/ { hdr = $0; next }
        /^[^ ]/ { hdr = "" }
        hdr != "" && index($0, pdu) && index(hdr, hci) && ++k == n && !d {
            d = 1; c = split(hdr, f, " "); split(f[c], a, ":")
            printf "%.0f\n", m + (a[1] * 3600 + a[2] * 60 + a[3] - w % 86400) * 1e9
        }' "$ST_OUT/btmon.txt"
}

# ---------------------------------------------------------------------------------------------
# The phone: btgatt-client on hci1, its stdin a FIFO held open here, everything it prints
# (every ATT PDU with -v) in $ST_OUT/phone-N.txt. Waits grep that file for plain text (the tool
# colours only its prompt and the labels of its service dump). A phone started again appends to
# its file: phone_out gives only what the current btgatt-client printed, so no wait or check can
# be satisfied by the output of an earlier one.

declare -A PHONE_FD PHONE_PID PHONE_FROM
# phone_start N: phone N connects from hci1 to ADDR0 (in the background; sets PHONE_PID[N]).
phone_start() {
    local fifo=$ST_WORK/phone-$1.in fd
    PHONE_FROM[$1]=$(( $(stat -c %s "$ST_OUT/phone-$1.txt" 2> /dev/null || echo 0) + 1 ))
    [ -p "$fifo" ] || mkfifo "$fifo"
    exec {fd}<> "$fifo"
    PHONE_FD[$1]=$fd
    stdbuf -oL "$BTGATT" -i hci1 -d "$ADDR0" -t public -v < "$fifo" >> "$ST_OUT/phone-$1.txt" 2>&1 &
    PHONE_PID[$1]=$!
    ST_PIDS+=("$!")
    log "phone $1: btgatt-client pid $! connecting to $ADDR0 from hci1"
}
# phone_out N: what the current phone N printed; phone_has N TEXT: that holds TEXT.
phone_out() { tail -c "+${PHONE_FROM[$1]}" "$ST_OUT/phone-$1.txt" 2> /dev/null; }
phone_has() { phone_out "$1" | grep -F -- "$2" > /dev/null; }  # not -q: no broken pipe for tail
# phone_cmd N LINE: type LINE into phone N's btgatt-client prompt.
phone_cmd() { log "phone $1: $2"; echo "$2" >&"${PHONE_FD[$1]}"; }
# _phone_sees N TEXT: phone N printed TEXT; status 2 once it has exited (for wait_until).
_phone_sees() {  # alive before looking: the phone may print TEXT and exit in between
    local alive=0; proc_alive "${PHONE_PID[$1]}" && alive=1
    phone_has "$1" "$2" || return $((alive ? 1 : 2))
}
# phone_wait N SECONDS TEXT: until phone N printed TEXT (gives up when it exited).
phone_wait() { wait_until "$2" "phone $1: '$3'" _phone_sees "$1" "$3"; }
# phone_tail N [LINES]: the last LINES (2) of phone N's file on one line, colours removed.
phone_tail() { sed 's/\x1B\[[0-9;]*m//g' "$ST_OUT/phone-$1.txt" | tail -n "${2:-2}" | tr '\n' ' '; }
# phone_quit N: SIGTERM to phone N; fails unless it exits within 5 s.
phone_quit() {
    kill -TERM "${PHONE_PID[$1]}"
    wait_exit "${PHONE_PID[$1]}" 5 || fail "phone $1: btgatt-client did not exit on SIGTERM"
}

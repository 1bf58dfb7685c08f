#!/bin/bash
# packages: bluez bluez-test-tools bluez-source
# Open over Bluetooth LE through the real kernel: hci_vhci + btvirt make two LE controllers on an
# emulated radio; garaged serves GATT on hci0 (raw HCI advertising, the kernel's L2CAP ATT
# channel) and hci1 plays the phone, with BlueZ's own clients (no bluetoothd; mgmt "power on"
# only). Part 1: gatttool walks every handle with Find Information; btgatt-client discovers
# services, characteristics and descriptors, enables notifications on the CCCD and writes
# `<PIN>O=1` without response, as the book's app: one 300 ms press (gpio_value tracepoint) and an
# `OK` notification. Part 2: hci0 is powered off with the phone connected: garaged keeps serving
# its local socket (status, and a close that presses); powered on again, a phone opens again
# without garaged being restarted. Kernel stamps for Bluetooth come from kprobes on the bluetooth
# module (advertising enabled, ATT connection accepted) and from btmon; nothing is timed by polling.
# shellcheck source=SCRIPTDIR/../lib/scenario.sh
source "$ST_LIB/scenario.sh"
require_daemon

BTGATT=$ST_PROJECT/.cache/system-test/bluez/btgatt-client
[ -x "$BTGATT" ] || fail "no $BTGATT (system-test/run extracts it from bluez-source)"
ADDR0=00:AA:01:00:00:00  # hci0: garaged; hci1 (00:AA:01:01:00:01) is the phone
PULSE_MS=300 TRAVEL_S=1
OPEN_BYTES="0x31 0x32 0x33 0x34 0x35 0x4f 0x3d 0x31"  # "12345O=1" (MASTER_PIN)
t_begin=$(now_us)

# ---------------------------------------------------------------------------------------------
# Bluetooth helpers

# btmgmt prints nothing when its stdin cannot be polled (the scenario's is /dev/null): a pipe.
mgmt() { true | timeout -k 2 10 btmgmt "$@"; }
reset_failures() { dmesg | grep -c 'Opcode 0x0c03 failed' || true; }
# two_controllers FAILURES_BEFORE: both in mgmt's index list (set up), or status 2 as soon as a
# new HCI Reset timed out (that controller is dead: btvirt must be started again).
two_controllers() {
    [ "$(reset_failures)" = "$1" ] || return 2
    [ "$(mgmt info 2>/dev/null | grep -c '^hci[0-9]:')" -ge 2 ]
}
hci_up() { hciconfig "$1" | grep -q 'UP RUNNING'; }

# Kernel stamps: kprobes on the bluetooth module, in their own group, removed at the end.
KPROBES=(
    "p:stbt/adv_cc bluetooth:hci_cc_le_set_adv_enable status=+0(%si):u8"
    "p:stbt/att_accept bluetooth:l2cap_sock_new_connection_cb"
)
HAVE_KPROBES=0
kprobes_add() {
    local k
    for k in "${KPROBES[@]}"; do echo "$k" >> "$TRACE/kprobe_events" || return 1; done
    for k in adv_cc att_accept; do echo 1 > "$TRACE/events/stbt/$k/enable" || return 1; done
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

# The phone: btgatt-client on hci1, its stdin a FIFO held open here, everything it prints
# (every ATT PDU with -v) in $ST_OUT/phone-N.txt. Waits grep that file for plain text (the tool
# colours only its prompt and the labels of its service dump). A phone started again appends to
# its file: phone_out gives only what the current btgatt-client printed, so no wait or check can
# be satisfied by the output of an earlier one.
declare -A PHONE_FD PHONE_PID PHONE_FROM
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
phone_out() { tail -c "+${PHONE_FROM[$1]}" "$ST_OUT/phone-$1.txt" 2> /dev/null; }
phone_has() { phone_out "$1" | grep -F -- "$2" > /dev/null; }  # not -q: no broken pipe for tail
phone_cmd() { log "phone $1: $2"; echo "$2" >&"${PHONE_FD[$1]}"; }
_phone_sees() {  # alive before looking: the phone may print TEXT and exit in between
    local alive=0; proc_alive "${PHONE_PID[$1]}" && alive=1
    phone_has "$1" "$2" || return $((alive ? 1 : 2))
}
# phone_wait N SECONDS TEXT: until phone N printed TEXT (gives up when it exited).
phone_wait() { wait_until "$2" "phone $1: '$3'" _phone_sees "$1" "$3"; }
phone_tail() { sed 's/\x1B\[[0-9;]*m//g' "$ST_OUT/phone-$1.txt" | tail -n "${2:-2}" | tr '\n' ' '; }
phone_quit() {
    kill -TERM "${PHONE_PID[$1]}"
    wait_exit "${PHONE_PID[$1]}" 5 || fail "phone $1: btgatt-client did not exit on SIGTERM"
}

# The layout GarageGATT.swift promises, as btgatt-client prints its discovery.
EXPECTED_LAYOUT="service - start: 0x0001, end: 0x0005, type: primary, uuid: 00001800-0000-1000-8000-00805f9b34fb
charac - start: 0x0002, value: 0x0003, props: 0x02, ext_props: 0x0000, uuid: 00002a00-0000-1000-8000-00805f9b34fb
charac - start: 0x0004, value: 0x0005, props: 0x02, ext_props: 0x0000, uuid: 00002a01-0000-1000-8000-00805f9b34fb
service - start: 0x0006, end: 0x0009, type: primary, uuid: 00001801-0000-1000-8000-00805f9b34fb
charac - start: 0x0007, value: 0x0008, props: 0x20, ext_props: 0x0000, uuid: 00002a05-0000-1000-8000-00805f9b34fb
descr - handle: 0x0009, uuid: 00002902-0000-1000-8000-00805f9b34fb
service - start: 0x000a, end: 0x000f, type: primary, uuid: 6e400001-b5a3-f393-e0a9-e50e24dcca9e
charac - start: 0x000b, value: 0x000c, props: 0x0c, ext_props: 0x0000, uuid: 6e400002-b5a3-f393-e0a9-e50e24dcca9e
charac - start: 0x000d, value: 0x000e, props: 0x10, ext_props: 0x0000, uuid: 6e400003-b5a3-f393-e0a9-e50e24dcca9e
descr - handle: 0x000f, uuid: 00002902-0000-1000-8000-00805f9b34fb"
# Every handle and its attribute type, as gatttool --char-desc (Find Information) prints them.
EXPECTED_HANDLES="0x0001 00002800 0x0002 00002803 0x0003 00002a00 0x0004 00002803 0x0005 00002a01 \
0x0006 00002800 0x0007 00002803 0x0008 00002a05 0x0009 00002902 \
0x000a 00002800 0x000b 00002803 0x000c 6e400002 0x000d 00002803 0x000e 6e400003 0x000f 00002902"
DISCOVERED='- handle: 0x000f, uuid: 00002902-'  # the last line of btgatt-client's discovery dump

# phone_open N: subscribe (CCCD 0x000f), write the open as a Write Command to 0x000c, wait for
# a complete press that started after the write and for the OK notification on 0x000e.
phone_open() {
    local t
    phone_cmd "$1" "register-notify 0x000e"
    phone_wait "$1" 10 'Registered notify handler!' ||
        fail "phone $1: enabling notifications failed: $(phone_tail "$1")"
    check "phone $1 wrote 01 00 to the CCCD 0x000f (Write Request 0x12, Write Response 0x13)" \
        phone_has "$1" '< 12 0f 00 01 00 '
    trace_mark "ble-open-$1"
    t=$(mark_time "ble-open-$1")
    phone_cmd "$1" "write-value -w 0x000c $OPEN_BYTES"
    wait_pulses "$g" "$SIM_LABEL" 0 0 1 "$t" 1 10 || fail "phone $1: no press within 10 s of the write"
    phone_wait "$1" 10 'Handle Value Not/Ind: 0x000e - (2 bytes): 4f 4b' ||
        fail "phone $1: no OK notification on 0x000e within 10 s of the write"
    check "phone $1 sent the open as a Write Command (opcode 0x52) to 0x000c" \
        phone_has "$1" '< 52 0c 00 31 32 33 34 35 4f 3d 31 '
}

door_is() { [ "$(door_status "$sock")" = "S $1" ]; }
_log_has() { grep -qE "$1" "$ST_OUT/d.log"; }
_log_count() { [ "$(grep -c -E "$1" "$ST_OUT/d.log")" -ge "$2" ]; }
log_count() { grep -c -E "$1" "$ST_OUT/d.log" || true; }  # log_count REGEX: lines of d.log so far

# ---------------------------------------------------------------------------------------------
# The relay and the PIN table while the Bluetooth modules load.
# btvirt's emulated controllers open AF_ALG sockets (ecb(aes), cmac(aes)) after the kernel has
# already sent the first one its HCI Reset: loading those modules on demand under TCG takes longer
# than the kernel's 2 s timeout ("hci0: Opcode 0x0c03 failed: -110"), so they are loaded first.
log "modprobe hci_vhci and the AF_ALG algorithms btvirt uses, in the background"
{
    modprobe hci_vhci && python3 -c '
import socket
for kind, name in (("skcipher", "ecb(aes)"), ("hash", "cmac(aes)")):
    socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0).bind((kind, name))'
} > "$ST_WORK/modprobe.log" 2>&1 &
MODPROBE_PID=$!
sim_chip label=st-relay lines=1 names=relay
g=$SIM_BASE sock=$ST_WORK/g.sock
make_pins "$PINS"
cat /usr/bin/btvirt /usr/bin/btmgmt /usr/bin/btmon /usr/bin/gatttool "$BTGATT" > /dev/null  # warm the 9p cache
wait_exit "$MODPROBE_PID" 60 || fail "modprobe hci_vhci still running after 60 s"
check "modprobe hci_vhci, AF_ALG ecb(aes) and cmac(aes) ($(cat "$ST_WORK/modprobe.log"))" [ "$EXIT_RC" = 0 ]

# ---------------------------------------------------------------------------------------------
# Two LE controllers on one emulated radio. Should a controller still miss its HCI Reset, btvirt
# starts again.
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
stdbuf -oL btmon -t > "$ST_OUT/btmon.txt" 2>&1 &
ST_PIDS+=("$!")
# btmon sees only what happens once its monitor socket is open; the kernel then lists the
# controllers present ("= New Index"): wait for both before anything it should record.
_btmon_ready() { local n; n=$(grep -c '^= New Index: .*\[hci[01]\]' "$ST_OUT/btmon.txt" 2> /dev/null) || true; [ "${n:-0}" -ge 2 ]; }
wait_until 15 "btmon listing hci0 and hci1" _btmon_ready || fail "btmon did not start capturing within 15 s"
for i in 0 1; do
    out=$(mgmt -i "hci$i" power on) || fail "btmgmt -i hci$i power on failed: $out"
    check "hci$i powered through mgmt ($out)" grep -q 'settings: powered' <<< "$out"
done

# ---------------------------------------------------------------------------------------------
# garaged on hci0.
trace_start
kprobes_add || log "no kprobes on the bluetooth module: no kernel stamps for advertising and connections"
trace_mark "wall $EPOCHREALTIME"  # one instant on both clocks, to put btmon's stamps on the trace's
start_daemon d --pins "$PINS" --socket "$sock" --relay "$SIM_CHIP:relay" \
    --pulse-ms $PULSE_MS --travel-s $TRAVEL_S --auto-close-s 0 --ble-adapter hci0
wait_ready "$DAEMON_PID" "$sock"
wait_until 15 "advertising in garaged's log" _log_has ' advertising detail=' ||
    fail "garaged did not start advertising on hci0: $(grep -E 'bluetooth|advertis' "$ST_OUT/d.log" | tail -n 3 | tr '\n' ' ')"

# ---------------------------------------------------------------------------------------------
# Part 1: the phone finds the service and opens.
# Find Information (0x04) over 0x0001-0xffff: every attribute, descriptors included.
rc=0
timeout 30 gatttool -i hci1 -b "$ADDR0" -t public --char-desc > "$ST_OUT/gatttool.txt" 2>&1 || rc=$?
handles=$(sed -n 's/^handle = \(0x[0-9a-f]*\), uuid = \([0-9a-f]*\)-.*/\1 \2/p' "$ST_OUT/gatttool.txt" | tr '\n' ' ')
check "gatttool --char-desc (Find Information) shows every handle of GarageGATT (status $rc; got: $handles)" \
    [ "$rc:${handles% }" = "0:$EXPECTED_HANDLES" ]

phone_start 1
# DISCOVERED is the last line of the dump, which follows "GATT discovery procedures complete":
# once it is there, so is the whole layout.
phone_wait 1 30 "$DISCOVERED" || fail "phone 1: no complete discovery within 30 s: $(phone_tail 1 3)"
layout=$(phone_out 1 | sed 's/\x1B\[[0-9;]*m//g' | sed -n '/GATT discovery procedures complete/,$p' |
    sed -n 's/^[[:space:]]*\(service\|charac\|descr\) - /\1 - /p')
if [ "$layout" != "$EXPECTED_LAYOUT" ]; then
    diff <(echo "$EXPECTED_LAYOUT") <(echo "$layout") >&2 || true
    fail "the discovered layout differs from GarageGATT's handles (diff above)"
fi
log "ok: discovered layout: GAP 0x0001-0x0005, GATT 0x0006-0x0009, NUS 0x000A-0x000F (write 0x000C, notify 0x000E, CCCD 0x000F)"
phone_open 1
phone_cmd 1 "read-value 0x000f"
phone_wait 1 10 'Read value (2 bytes): 01 00' || fail "phone 1: the CCCD 0x000f did not read back 01 00: $(phone_tail 1)"
log "ok: phone 1 read the CCCD 0x000f back: 01 00"
wait_until $((TRAVEL_S + 5)) "door OPEN" door_is OPEN || fail "the door did not report OPEN after the Bluetooth open"

# ---------------------------------------------------------------------------------------------
# Part 2: hci0 powered off with the phone connected.
n_unavailable=$(log_count ' bluetooth-unavailable ') n_serving=$(log_count ' bluetooth-serving ')
trace_mark power-off
mgmt -i hci0 power off > /dev/null || fail "btmgmt -i hci0 power off failed"
wait_until 10 "phone 1 disconnected" proc_exited "${PHONE_PID[1]}" ||
    fail "phone 1 still connected 10 s after hci0 was powered off"
# A phone that tries to connect now must wait: nothing may answer for a powered-off hci0.
phone_start 2
wait_until 5 "a new bluetooth-unavailable in garaged's log" _log_count ' bluetooth-unavailable ' $((n_unavailable + 1)) ||
    fail "garaged did not notice that hci0 went down"
check "garaged still running with hci0 down" proc_alive "$DAEMON_PID"
st=$(garage_pins status --socket "$sock" --pin "$MASTER_PIN") || fail "garage-pins status failed with hci0 down: $st"
check "garage-pins status answers with hci0 down (got: $(tr -s ' \n' ' ' <<< "$st"))" grep -q OPEN <<< "$st"
trace_mark local-close
t_close=$(mark_time local-close)
reply=$(garage_pins close --socket "$sock" --pin "$MASTER_PIN") || true
check "garage-pins close answered OK with hci0 down (got '$reply')" [ "$reply" = OK ]
wait_pulses "$g" "$SIM_LABEL" 0 0 1 "$t_close" 1 10 || fail "no press for the local close with hci0 down"
wait_until $((TRAVEL_S + 5)) "door CLOSED" door_is CLOSED || fail "the door did not report CLOSED"
trace_mark hci0-checked
hci0_stayed_down=1
hci_up hci0 && hci0_stayed_down=0

# Did phone 2 connect to the powered-off hci0? Its controller may be left advertising (see the
# metric); such a link leads nowhere, so it goes before hci0 comes back. Decided on what phone 2
# did, not on a single look at its output: first it must be in connect() (btgatt-client flushes
# "Connecting to device..." just before the call), then it gets a deliberate 3 s interval in
# which nothing may answer for hci0 (a leftover advertising answers at once).
phone_wait 2 10 'Connecting to device...' || fail "phone 2 did not start connecting: $(phone_tail 2)"
ghost=0
if wait_until 3 "phone 2 connected to the powered-off hci0" _phone_sees 2 'Connecting to device... Done'; then
    ghost=1
    phone_quit 2
    _no_link() { [ "$(hcitool -i hci1 con | grep -c LE)" = 0 ]; }
    wait_until 15 "hci1's link to the powered-off hci0 gone" _no_link || fail "hci1 kept its link to the powered-off hci0"
else
    log "ok: phone 2 waits while hci0 is off: $(phone_tail 2 1)"
fi

trace_mark power-on
mgmt -i hci0 power on > /dev/null || fail "btmgmt -i hci0 power on failed"
# The phone already waiting in connect(), or (after a ghost connection) a new one at once.
[ $ghost = 0 ] || phone_start 3
ph=$((2 + ghost))
for try in 1 2 3; do
    phone_wait $ph 25 "$DISCOVERED" && break
    proc_alive "${PHONE_PID[$ph]}" && fail "phone $ph: connected but no discovery within 25 s: $(phone_tail $ph)"
    log "phone $ph gave up ($(phone_tail $ph 1)): again"
    [ "$try" != 3 ] || fail "phone $ph could not connect in 3 tries after hci0 came back"
    phone_start $ph
done
# garaged logs from a thread of its own: its lines are waited for, not read once.
wait_until 5 "a new bluetooth-serving line in garaged's log" _log_count ' bluetooth-serving ' $((n_serving + 1)) ||
    fail "garaged serves hci0 again, but logged no new bluetooth-serving line"
phone_open $ph
n=$(line_levels "$g" "$SIM_LABEL" 0 0 | pulses 1 | wc -l)
check "exactly three presses in all: Bluetooth open, local close, Bluetooth open (saw $n)" [ "$n" = 3 ]
BLE_OPEN='source="bluetooth 00:AA:01:01:00:01" command=open'
wait_until 5 "garaged's log line for the second Bluetooth open" _log_count "$BLE_OPEN" 2 ||
    fail "garaged did not log the second Bluetooth open"
check "garaged logged both Bluetooth opens, no more" [ "$(log_count "$BLE_OPEN")" = 2 ]
phone_quit $ph
garaged_stop "$DAEMON_PID"
check "garaged exited 0 on SIGTERM" [ "$EXIT_RC" = 0 ]

# ---------------------------------------------------------------------------------------------
# Figures, from one snapshot of the trace.
EV=$ST_WORK/events.txt
trace_events > "$EV"
ev_mark() { awk -v m="$1" '$2 == "mark" && $3 == m && !d { d = 1; print $1 }' "$EV"; }
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
# on HCI, from btmon's time of day (UTC here) and the "wall" mark.
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
want=$((PULSE_MS * 1000000))
mapfile -t P < <(awk -v g="$g" '$2 == "value" && $3 == g { print $1, $4 }' "$EV" | pulses 1)
fails=()
for i in 0 1 2; do
    read -r s _ w <<< "${P[$i]}"
    name=(ble_open local_close_while_down ble_open_after_power_cycle)
    metric "${name[$i]}_press_ms" "$(ms "$w") (asked $PULSE_MS; error $(ms $((w - want))) ms)"
    press_ok "$w" "$PULSE_MS" || fails+=("${name[$i]} press $(ms "$w") ms, not $(press_window "$PULSE_MS")")
    PS[i]=$s
done
t_w1=$(ev_mark ble-open-1) t_on=$(ev_mark power-on) t_off=$(ev_mark power-off) t_chk=$(ev_mark hci0-checked)
metric ble_write_to_press_ms "$(ms_between "$t_w1" "${PS[0]}") (write-value typed into btgatt-client -> relay on)"
t_tx=$(btmon_att hci1 'Write Command' 1) t_ok=$(btmon_att hci1 'Handle Value Notification' 1)
[ -z "$t_tx" ] || [ -z "$t_ok" ] ||
    metric ble_write_to_ok_notification_ms "$(ms_between "$t_tx" "$t_ok") (Write Command sent by hci1 -> OK notification received by hci1, btmon)"
metric local_close_while_down "status and close answered; hci0 $([ $hci0_stayed_down = 1 ] && echo still off || echo up again) $(ms_between "$t_off" "$t_chk") ms after the power off"
if [ $hci0_stayed_down = 1 ]; then
    metric garaged_on_down_adapter "left hci0 off as the owner asked (README: an adapter powered off while garaged runs stays off); it logged: $(grep -o 'why="[^"]*"' "$ST_OUT/d.log" | head -n 1)"
fi
if [ $ghost = 1 ]; then
    seen=$(awk '/^[<>@=]/ { h = "" }
        /^< HCI Command: LE Set Adve/ && /\[hci0\]/ { h = $NF }
        h != "" && /Advertising: Enabled/ { on = 1; t = h } h != "" && /Advertising: Disabled/ { on = 0 }
        /Powered: Disabled/ { off = 1 }
        off && /^= Close Index/ && /\[hci0\]/ && !d { d = 1
            printf "advertising %s when hci0 closed at %s (last LE Set Advertise Enable on at %s)", on ? "still on" : "off", $NF, t }
        ' "$ST_OUT/btmon.txt")
    metric advertising_outlives_power_off "a phone connected to hci0 while hci0 was powered off: the controller kept the connectable advertising garaged had enabled with raw HCI commands, with no host behind it (btmon: $seen); Linux 6.1's mgmt power-off disables no advertising it did not create (hci_power_off_sync -> hci_clear_adv_sync only removes timed mgmt instances), hci_vhci does not reset the controller on close, and garaged cannot send HCI commands to an adapter that is already down"
fi
metric power_on_to_open_press_ms "$(ms_between "$t_on" "${PS[2]}") (btmgmt power on -> relay on; phone $ph $([ $ghost = 0 ] && echo 'was waiting in connect()' || echo 'started right after the power on'))"
if [ "$HAVE_KPROBES" = 1 ]; then
    # After the power-on reset, garaged's first advertising command (the disable) fails: the
    # first successful Set Advertise Enable completion is the enable.
    t_adv=$(ev_kprobe adv_cc "$t_on" 'status=0') t_acc=$(ev_kprobe att_accept "$t_on")
    [ -z "$t_adv" ] || metric power_on_to_advertising_ms "$(ms_between "$t_on" "$t_adv") (btmgmt power on -> LE Set Advertise Enable completed)"
    [ -z "$t_acc" ] || metric power_on_to_phone_connected_ms "$(ms_between "$t_on" "$t_acc") (btmgmt power on -> phone's ATT connection accepted on garaged's listener)"
    [ -n "$t_adv" ] && [ -n "$t_acc" ] || fails+=("no kernel stamp for advertising or the connection after power-on")
fi
# From btmon: the kernel done powering hci0 on again -> garaged's first advertising command.
read -r t_up t_cmd <<< "$(awk '
    /^@ MGMT Command: Set Powered/ && /\[hci0\]/ { c = 1; next }
    c && /Powered: Disabled/ { off = 1 } c && /Powered: Enabled/ && off { on = 1 }
    /^[@<>=]/ { c = 0 }
    on && /^@ MGMT Event: Command Complete/ && /\[hci0\]/ { ev = $NF; next }
    on && ev != "" && up == "" && /Set Powered/ { up = ev }
    up != "" && /^< HCI Command: LE Set Adve/ && /\[hci0\]/ && /0x0006/ && !d { d = 1; print up, $NF }
    ' "$ST_OUT/btmon.txt")"
if [ -n "${t_cmd:-}" ]; then
    metric adapter_up_to_advertising_ms "$(awk -v a="$t_up" -v b="$t_cmd" 'BEGIN { split(a, x, ":"); split(b, y, ":")
        printf "%.3f", ((y[1] - x[1]) * 3600 + (y[2] - x[2]) * 60 + y[3] - x[3]) * 1000 }') (hci0 powered on by the kernel -> garaged's first advertising command; garaged re-checks every second)"
fi
metric scenario_s "$(( ($(now_us) - t_begin) / 1000000 ))"
[ ${#fails[@]} = 0 ] || fail "${fails[*]}"
summary="BLE open press $(ms "$(awk '{ print $3 }' <<< "${P[0]}")") ms; hci0 off: local socket served; back on: phone opened $(ms_between "$t_on" "${PS[2]}") ms after power-on"
[ $ghost = 0 ] || summary="$summary; hci0's controller went on advertising while powered off (metric advertising_outlives_power_off)"
pass "$summary"

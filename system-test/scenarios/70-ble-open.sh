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
# shellcheck source=SCRIPTDIR/../lib/bluetooth.sh
source "$ST_LIB/bluetooth.sh"
require_daemon

[ -x "$BTGATT" ] || fail "no $BTGATT (system-test/run extracts it from bluez-source)"
PULSE_MS=300 TRAVEL_S=1
OPEN_BYTES="0x31 0x32 0x33 0x34 0x35 0x4f 0x3d 0x31"  # "12345O=1" (MASTER_PIN)
t_begin=$(now_us)

# ---------------------------------------------------------------------------------------------
# The scenario's helpers (lib/bluetooth.sh has the Bluetooth ones)

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
bt_modules_start
sim_chip label=st-relay lines=1 names=relay
g=$SIM_BASE sock=$ST_WORK/g.sock
make_pins "$PINS"
cat /usr/bin/btvirt /usr/bin/btmgmt /usr/bin/btmon /usr/bin/gatttool "$BTGATT" > /dev/null  # warm the 9p cache
bt_modules_wait

# ---------------------------------------------------------------------------------------------
# Two LE controllers on one emulated radio. Should a controller still miss its HCI Reset, btvirt
# starts again.
btvirt_start
btmon_start
bt_power_on hci0 hci1

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
    metric garaged_on_down_adapter "left hci0 off as the owner asked (docs/bluetooth.md: an adapter powered off while garaged runs stays off); it logged: $(grep -o 'why="[^"]*"' "$ST_OUT/d.log" | head -n 1)"
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

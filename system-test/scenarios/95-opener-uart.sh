#!/bin/bash
# A Security+ 2.0 opener on a real kernel's UART (issue 31): garaged's opener device is the
# guest's /dev/ttyS1, qemu's emulated 16550A; its host end is Tests/secplus/fakeopener.py, which
# run starts from the "# host-opener:" line below and which echoes every byte, as the one-wire bus
# does. garaged sets the port to 9600 8N1 raw itself. Checked: the door CLOSED from the opener's
# STATUS, an open request to OPEN, a close to CLOSED after the opener's light flashed as the
# warning, every packet (DOOR_ACTION press and release, LIGHT) accepted by the fake.
# Timed on one clock, the guest kernel's trace (CLOCK_MONOTONIC): from the request (a mark the
# client writes on its open connection just before it sends) to the bytes garaged's port writes
# into the UART's transmit register (a kprobe on the 8250 driver's io_serial_out). qemu hands each
# such byte to the host end in the same instant, but it does not pace them: its 16550 sends at
# once whatever the divisor, so the 19 bytes' 19.8 ms at 9600 baud are missing from "request to
# the last byte" here, and the figure for a real wire is request to the first byte plus 19.8 ms.
# The host's read times of the same packets (another clock) give the press-to-release spacing
# again, as a check that the guest's stamps are the bytes the fake read.
# host-opener: --state closed --travel-s 1
# timeout: 90
# shellcheck source=SCRIPTDIR/../lib/scenario.sh
source "$ST_LIB/scenario.sh"
require_daemon

FAKE_LOG=$ST_RESULTS/host-opener.jsonl
DEV=/dev/ttyS1
WIRE_NS=$((19 * 10 * 1000000000 / 9600))   # 19 bytes of 10 bits (8N1) at 9600 baud
WARN_S=1   # the close's warning: with no warn output, the opener's light flashes this long
[ -f "$FAKE_LOG" ] || fail "no fake opener on the host (run starts it for a scenario with a '# host-opener:' line)"
[ -c "$DEV" ] || fail "$DEV is missing: qemu was started without the opener's -serial port"
uart=$(grep '^1:' /proc/tty/driver/serial || true)
check "$DEV is an emulated 16550A ($uart)" grep -q 'uart:16550A' <<< "$uart"

# Every write to an 8250 register, with the port and the value (the console's too: the reader
# tells the opener's port by its first bytes).
uart_probe
trace_start
echo 1 > "$TRACE/events/st/uart_out/enable"

sock=$ST_WORK/o.sock
make_pins "$PINS"
t0=$(trace_now)
start_daemon d --pins "$PINS" --socket "$sock" --no-ble --auto-close-s 0 --warn-s $WARN_S --opener "secplus2:$DEV"
wait_ready "$DAEMON_PID" "$sock"
status_watch "$sock" 60
wait_status CLOSED "$t0" 20 || fail "the door did not become CLOSED from the opener's STATUS (first report: $WATCH_FIRST)"
# Asked at start, the openings count answered too: from then on the line is quiet until a request.
_openings_known() { RECORD=$(garage_pins status --json --socket "$sock" --pin "$MASTER_PIN") || return 1; grep -q '"openings":[0-9]' <<< "$RECORD"; }
wait_until 20 "the opener's count of openings in the status record" _openings_known ||
    fail "the opener's OPENINGS answer never reached garaged: $RECORD"
check "the door's position comes from the opener (mode opener: $RECORD)" grep -q '"mode":"opener"' <<< "$RECORD"
# 9600 8N1 as garaged asked the kernel (stty) and as the driver programmed the 16550: the divisor
# latch (LCR bit 0x80 set, then DLL, DLM) 115200 / 12 = 9600, and LCR 0x03 (8 bits, 1 stop bit, no
# parity) in its low bits.
check "the driver set the 16550's divisor to 12 (9600 baud) and 8N1" uart_line_set 12 3
settings=$(stty -F "$DEV" -a)
check "garaged set $DEV to 9600 8N1 raw ($(head -n 1 <<< "$settings"))" \
    awk '/speed 9600 baud/ { s = 1 } /(^| )cs8( |$)/ && /(^| )-parenb( |$)/ && /(^| )-cstopb( |$)/ { f = 1 }
         /(^| )-icanon( |$)/ && /(^| )-echo( |$)/ { r = 1 } /(^| )-opost( |$)/ { o = 1 } END { exit !(s && f && r && o) }' <<< "$settings"

# _actions N: at least N DOOR_ACTION packets in the fake's log (a press and a release per move).
_actions() { [ "$(grep -c '"name": "DOOR_ACTION"' "$FAKE_LOG")" -ge "$1" ]; }
# move VERB LINE STATE: send LINE with a kernel mark just before it, then wait for the door to
# report STATE and for the fake to have read the move's release; sets T_REQ.
move() {
    local verb=$1 line=$2 state=$3 before reply
    before=$(grep -c '"name": "DOOR_ACTION"' "$FAKE_LOG" || true)
    reply=$(timeout 10 python3 "$ST_LIB/sock-send.py" --mark "$verb-req" "$sock" "${MASTER_PIN}$line")
    check "the $verb request was answered OK (got '$reply')" [ "$reply" = OK ]
    T_REQ=$(mark_time "$verb-req")
    wait_until $((WARN_S + 10)) "the $verb's press and release at the fake" _actions $((before + 2)) ||
        fail "the fake opener did not read the $verb's press and release: $(tail -n 3 "$FAKE_LOG" | tr '\n' ' ')"
    wait_status "$state" "$T_REQ" 15 || fail "the door did not report $state after the $verb"
}
move open O=1 OPEN
t_open=$T_REQ
move close O=0 CLOSED
t_close=$T_REQ
garaged_stop "$DAEMON_PID"
check "garaged exited 0 after SIGTERM (status $EXIT_RC)" [ "$EXIT_RC" = 0 ]

echo 0 > "$TRACE/events/st/uart_out/enable"
cp "$TRACE/trace" "$ST_WORK/uart-trace.txt"
python3 "$ST_LIB/opener-wire.py" "$ST_WORK/uart-trace.txt" "$FAKE_LOG" > "$ST_OUT/wire.txt" 2> "$ST_OUT/wire-error.log" ||
    fail "the UART's bytes: $(cat "$ST_OUT/wire-error.log")"
log "packets on the wire: $(wc -l < "$ST_OUT/wire.txt"); first/last/break on/off/name/nibble/byte1/rolling/accepted/host start/host last"
all_accepted() { awk '$9 != "true" { exit 1 }' "$ST_OUT/wire.txt"; }
check "every packet garaged wrote reached the fake and was accepted" all_accepted
check "the fake read no packet garaged's UART did not send" \
    [ "$(grep -c '"rolling"' "$FAKE_LOG")" -eq "$(wc -l < "$ST_OUT/wire.txt")" ]

# figures VERB NIBBLE T_REQ NOTE: the move's press and release (the first DOOR_ACTION pair with
# this nibble after the request), checked and recorded; NOTE says what the request's figures hold.
figures() {
    local verb=$1 nibble=$2 t=$3 note=$4 press release pf pl pb pe rl hp hr
    press=$(awk -v t="$t" -v n="$nibble" '$1 >= t && $5 == "DOOR_ACTION" && $6 == n && $7 == 1 && !d { d = 1; print }' "$ST_OUT/wire.txt")
    release=$(awk -v t="$t" -v n="$nibble" '$1 >= t && $5 == "DOOR_ACTION" && $6 == n && $7 == 0 && !d { d = 1; print }' "$ST_OUT/wire.txt")
    check "the $verb's press and release are on the wire after the request" [ -n "$press" -a -n "$release" ]
    read -r pf pl pb pe _ _ _ _ _ hp _ <<< "$press"
    read -r _ rl _ _ _ _ _ _ _ _ hr <<< "$release"
    check "a break came before the $verb's press (set $pb, cleared $pe)" [ "$pb" != - -a "$pe" != - ]
    # All the figures in one awk (under TCG every fork costs a few hundred ms).
    local f
    read -r -a f < <(awk -v t="$t" -v pf="$pf" -v pl="$pl" -v pb="$pb" -v pe="$pe" -v rl="$rl" -v hp="$hp" -v hr="$hr" -v w="$WIRE_NS" \
        'BEGIN { printf "%.3f %.3f %.3f %.3f %.3f %.3f %.3f %.3f %.3f %.3f\n", (pf - t) / 1e6, (pe - pb) / 1e6, (pl - t) / 1e6, (pl - pf) / 1e6,
                 (pf + w - t) / 1e6, w / 1e6, (rl - t) / 1e6, (rl - pl) / 1e6, (hr - hp) / 1e6, (rl - pf) / 1e6 }')
    metric "${verb}_request_to_first_byte_ms" "${f[0]} ($note; the break included: ${f[1]} ms as the kernel set and cleared it)"
    metric "${verb}_request_to_last_byte_of_press_ms" "${f[2]} (qemu sends the 19 bytes at once: first to last ${f[3]} ms)"
    [ "$verb" != open ] || metric "${verb}_on_a_9600_baud_wire_ms" "${f[4]} (request to the press's first byte + ${f[5]} ms for 19 bytes 8N1; goal 25 ms)"
    metric "${verb}_request_to_last_byte_of_release_ms" "${f[6]} (the release ${f[7]} ms after the press, as a wall panel sends it)"
    # The same spacing on the host's clock, from the fake's reads: the guest's stamps are the bytes it read.
    metric "${verb}_press_to_release_host_vs_guest_ms" "${f[8]} vs ${f[9]} (host: first read of the press to the read completing the release)"
    FIG_WIRE=${f[4]} FIG_PRESS=$pf
}
figures open 1 "$t_open" "nothing before it"
open_wire=$FIG_WIRE
figures close 0 "$t_close" "the ${WARN_S} s warning included"
# The close's warning without a warn output: the opener's light flashed (LIGHT packets on the
# wire between the request and the press), and the press waited for the whole warning.
flashes=$(awk -v a="$t_close" -v b="$FIG_PRESS" '$1 >= a && $1 < b && $5 == "LIGHT"' "$ST_OUT/wire.txt" | wc -l)
metric close_warning_light_packets "$flashes (LIGHT on and off, and the light put back, within warn-s $WARN_S s)"
check "the opener's light flashed before the close ($flashes LIGHT packets)" [ "$flashes" -ge 2 ]
check "the close press came after the whole warning ($(ms_between "$t_close" "$FIG_PRESS") ms >= $((WARN_S * 1000)))" \
    [ $((FIG_PRESS - t_close)) -ge $((WARN_S * 1000000000)) ]
pass "CLOSED, OPEN, CLOSED from the opener's STATUS over the emulated 16550A, the close after $flashes LIGHT flashes; open request to the press's last byte on a 9600 baud wire $open_wire ms"

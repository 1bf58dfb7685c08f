#!/bin/bash
# A Security+ 1.0 opener on a real kernel's UART (issue 38): garaged's opener device is the
# guest's /dev/ttyS2, qemu's emulated 16550A; its host end is a pty whose master is
# Tests/secplus/fakeopener1.py, which run starts from the "# host-opener1:" line below and which
# echoes every byte, as the shared wire does. garaged sets the port to 1200 8E1 raw with parity
# checked and bad bytes ignored (INPCK IGNPAR) itself. Checked: the speed and parity in the
# divisor and line control the driver writes, in stty, and on the host's pty (qemu passes the
# guest's line settings on to a host serial device); the door CLOSED from the opener's answers;
# a stray byte on the wire dropped (see below); an open from CLOSED (one toggle at once, OPENING);
# a STOP from Home Assistant (MQTT) while it opens: the light flashed for the whole warning, then
# one toggle, STOPPED.
# A parity error cannot be made here: qemu's 16550 never sets the line status's parity bit (its
# chardevs carry bytes only; a parity setting goes one way, to a host serial device), and a pty
# carries no parity either. So the byte a real wire carries idle with bad parity (0xFF), which the
# kernel drops before garaged on a real UART, arrives here as a good byte: garaged must drop it
# itself, silently, and refuse a byte no question awaited (0x9C) with one log line. The kernel's
# `pe:` count for the port is recorded to show it (docs/decisions.md).
# host-opener1: --state closed --travel-s 20
# packages: mosquitto mosquitto-clients
# timeout: 90
# shellcheck source=SCRIPTDIR/../lib/scenario.sh
source "$ST_LIB/scenario.sh"
require_daemon

FAKE_LOG=$ST_RESULTS/host-opener1.jsonl
CONTROL=$ST_RESULTS/host-opener1.control
DEV=/dev/ttyS2
WARN_S=1
[ -f "$CONTROL" ] || fail "no fake 1.0 opener on the host (run starts it for a scenario with a '# host-opener1:' line)"
[ -c "$DEV" ] || fail "$DEV is missing: qemu was started without the 1.0 opener's -serial port"
uart=$(grep '^2:' /proc/tty/driver/serial || true)
check "$DEV is an emulated 16550A ($uart)" grep -q 'uart:16550A' <<< "$uart"

# Home Assistant's STOP comes over MQTT: a broker on the guest's loopback.
ip link set lo up
port=1883
printf 'listener %s 127.0.0.1\nallow_anonymous true\nuser root\npersistence false\n' "$port" > "$ST_WORK/mosquitto.conf"
/usr/sbin/mosquitto -c "$ST_WORK/mosquitto.conf" > "$ST_OUT/mosquitto.log" 2>&1 &
ST_PIDS+=("$!")
_broker_up() { mosquitto_pub -h 127.0.0.1 -p "$port" -t st/ping -m 1 2> /dev/null; }
wait_until 10 "the MQTT broker on 127.0.0.1:$port" _broker_up || fail "mosquitto did not start: $(cat "$ST_OUT/mosquitto.log")"

uart_probe
trace_start
echo 1 > "$TRACE/events/st/uart_out/enable"
sock=$ST_WORK/o1.sock
make_pins "$PINS"
t0=$(trace_now)
node=st1door
start_daemon d --pins "$PINS" --socket "$sock" --no-ble --auto-close-s 0 --warn-s $WARN_S --opener "secplus1:$DEV" \
    --opener-listen-s 1 --mqtt "mqtt://127.0.0.1:$port" --mqtt-client-id $node --mqtt-commands
wait_ready "$DAEMON_PID" "$sock"
status_watch "$sock" 60
wait_status CLOSED "$t0" 20 || fail "the door did not become CLOSED from the opener's answers (first report: $WATCH_FIRST)"
check "the driver set the 16550's divisor to 96 (1200 baud) and 8E1 (line control 0x1b)" uart_line_set 96 27
settings=$(stty -F "$DEV" -a)
check "garaged set $DEV to 1200 8E1 raw, parity checked and bad bytes ignored ($(head -n 1 <<< "$settings"))" \
    awk '/speed 1200 baud/ { s = 1 } /(^| )cs8( |$)/ && /(^| )parenb( |$)/ && /(^| )-parodd( |$)/ && /(^| )-cstopb( |$)/ { f = 1 }
         /(^| )inpck( |$)/ && /(^| )ignpar( |$)/ { p = 1 } /(^| )-icanon( |$)/ && /(^| )-echo( |$)/ { r = 1 } END { exit !(s && f && p && r) }' <<< "$settings"
host_baud=$(awk -F'"baud": ' 'NF > 1 { split($2, a, /[,}]/); print a[1]; exit }' "$FAKE_LOG")
check "the host's end of the wire was set to 1200 baud by qemu from the guest's driver (fake saw '$host_baud')" [ "$host_baud" = 1200 ]

# _fake N WHO BYTE: at least N bytes BYTE from WHO in the fake's log.
_fake() { [ "$(grep -c "\"who\": \"$2\", \"byte\": $3," "$FAKE_LOG")" -ge "$1" ]; }
# The stray bytes: the idle 0xFF (bad parity on a real wire) and 0x9C, which nothing asked for.
pe_before=$(sed -n 's/^2:.* pe:\([0-9]*\).*/\1/p' /proc/tty/driver/serial)
echo idle >> "$CONTROL"
echo garbage >> "$CONTROL"
wait_until 5 "the fake's 0xFF and 0x9C on the wire" _fake 1 opener 156 || fail "the fake did not send the stray bytes"
_refused() { grep -q 'opener-\(byte\|answer\)-refused.*byte=9c' "$ST_OUT/d.log"; }
wait_until 5 "garaged refusing 0x9C in its log" _refused || fail "garaged did not say it refused 0x9C: $(tail -n 5 "$ST_OUT/d.log")"
check "the idle 0xFF was dropped without a word" bash -c "! grep -q 'byte=ff' '$ST_OUT/d.log'"
pe_after=$(sed -n 's/^2:.* pe:\([0-9]*\).*/\1/p' /proc/tty/driver/serial)
metric kernel_parity_errors "${pe_before:-0} -> ${pe_after:-0} (qemu's 16550 never reports a parity error: the stray bytes reached garaged, which dropped them)"
state=$(door_status "$sock")
check "the door is still CLOSED after the stray bytes (got '$state')" [ "$state" = "S CLOSED" ]
check "no door press after the stray bytes" bash -c "! grep -q '\"who\": \"garaged\", \"byte\": 48,' '$FAKE_LOG'"

# Open from CLOSED: one toggle (0x30 press, 0x31 release), no warning.
reply=$(timeout 10 python3 "$ST_LIB/sock-send.py" --mark open-req "$sock" "${MASTER_PIN}O=1")
check "the open request was answered OK (got '$reply')" [ "$reply" = OK ]
t_open=$(mark_time open-req)
wait_until 5 "the open's toggle at the fake" _fake 1 garaged 48 || fail "the fake read no door press after the open"
wait_until 5 "the open's release at the fake" _fake 1 garaged 49 || fail "the fake read no door release after the open"
check "the open's toggle reached the door while CLOSED" grep -q '"who": "garaged", "byte": 48, "state": "closed"' "$FAKE_LOG"
check "an open from CLOSED is not warned (no light press)" bash -c "! grep -q '\"who\": \"garaged\", \"byte\": 50,' '$FAKE_LOG'"
wait_status OPENING "$t_open" 10 || fail "the door did not report OPENING after the open"
first_press=$(awk -F'"t": ' '/"who": "garaged", "byte": 48,/ { split($2, a, ","); print a[1]; exit }' "$FAKE_LOG")

# STOP while it opens: the light flashes for the whole warning, then one toggle; STOPPED.
t_stop=$(trace_now)
mosquitto_pub -h 127.0.0.1 -p "$port" -t "garaged/$node/command" -m STOP
wait_until $((WARN_S + 10)) "the stop's toggle at the fake" _fake 2 garaged 48 || fail "the fake read no toggle for the stop"
check "the stop's toggle reached the door while OPENING" grep -q '"who": "garaged", "byte": 48, "state": "opening"' "$FAKE_LOG"
wait_status STOPPED "$t_stop" 10 || fail "the door did not report STOPPED after the stop"
_done() { grep -q 'opener-toggles-done reason=stop toggles=1 door=stopped' "$ST_OUT/d.log"; }
wait_until 5 "the stop's toggles done in the log" _done || fail "garaged did not say the stop was done: $(tail -n 5 "$ST_OUT/d.log")"
# The warning on the host's clock: the light presses (0x32) between the open's toggle and the
# stop's, and the stop's toggle a whole warning after the first of them.
read -r flashes warned_ms < <(awk -F'"t": ' -v a="$first_press" '
    /"who": "garaged"/ { split($2, f, ","); t = f[1] }
    /"who": "garaged", "byte": 50,/ && t > a && !stop { n++; if (!first) first = t }
    /"who": "garaged", "byte": 48,/ && t > a && !stop { stop = t }
    END { printf "%d %.0f\n", n, first ? (stop - first) * 1000 : -1 }' "$FAKE_LOG")
metric stop_warning "$flashes light presses, the toggle $warned_ms ms after the first (warn-s $WARN_S)"
check "the light flashed before the stop's toggle ($flashes presses)" [ "$flashes" -ge 1 ]
check "the stop's toggle came a whole warning after the first flash ($warned_ms ms >= $((WARN_S * 1000)))" [ "$warned_ms" -ge $((WARN_S * 1000)) ]

garaged_stop "$DAEMON_PID"
check "garaged exited 0 after SIGTERM (status $EXIT_RC)" [ "$EXIT_RC" = 0 ]
pass "CLOSED over the emulated 16550A at 1200 8E1, stray bytes dropped, OPENING on one toggle, STOPPED after a ${WARN_S} s warning ($flashes flashes)"

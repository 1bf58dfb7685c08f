#!/bin/bash
# packages: bluez bluez-test-tools
# pypi: bumble
# timeout: 300
# --ble-security paired through the real kernel: garaged on hci0 is the pairing agent and key
# store over the management socket; the phone is Google's Bumble (lib/ble-phone.py) on hci1
# through an HCI user channel, with the kernel's Security Manager on garaged's side. In order:
#   0. while a bluetoothd runs, paired mode serves nothing and says why (log, doctor); once it
#      is gone, garaged serves;
#   A. a phone that never paired writes the open: Insufficient Authentication (0x05), no press;
#   B. it tries to pair while no window is open: refused, no bond;
#   C. `garage-pins pair --label anna`, replacing a window opened just before (whose garage-pins
#      is told and ends), opens the window and prints the passkey, which the phone
#      types (LE Secure Connections, Passkey Entry): bonded, and its open presses once;
#   D. garaged restarts: the phone, now under a resolvable private address, is recognised by the
#      IRK garaged loaded, encrypts with its stored key, no pairing, and opens again;
#   E. a phone that pairs with legacy pairing inside a window is refused and cannot open;
#   F. `garage-pins unpair anna`: the phone can no longer encrypt or open.
# Two presses in all (C and D); every other write is refused. No bluetoothd runs.
# shellcheck source=SCRIPTDIR/../lib/scenario.sh
source "$ST_LIB/scenario.sh"
# shellcheck source=SCRIPTDIR/../lib/bluetooth.sh
source "$ST_LIB/bluetooth.sh"
require_daemon

BUMBLE=$ST_PROJECT/.cache/system-test/bumble
[ -f "$BUMBLE/key" ] || fail "no Bumble in $BUMBLE (system-test/run installs it for '# pypi: bumble')"
PULSE_MS=300 TRAVEL_S=1
OPEN=12345O=1  # MASTER_PIN's open
t_begin=$(now_us)

# phone N ARGS...: ble-phone.py in the background, its stdout in phone-N.txt, stderr in phone-N.err.
declare -A PID T_START
phone() {
    local n=$1; shift
    log "phone $n: ble-phone.py $*"
    T_START[$n]=$(now_us)
    PYTHONPATH=$BUMBLE /usr/bin/python3 "$ST_LIB/ble-phone.py" --timeout-s 90 "$@" > "$ST_OUT/phone-$n.txt" 2> "$ST_OUT/phone-$n.err" &
    PID[$n]=$!
    ST_PIDS+=("$!")
}
# phone_end N: waits for its exit (120 s); PHONE_RC; a metric with its lines.
phone_end() {
    wait_exit "${PID[$1]}" 120 || fail "phone $1 still running after 120 s: $(tr '\n' ' ' < "$ST_OUT/phone-$1.txt")"
    PHONE_RC=$EXIT_RC
    metric "phone_$1" "$(( ($(now_us) - T_START[$1]) / 1000 )) ms, status $PHONE_RC: $(tr '\n' ' ' < "$ST_OUT/phone-$1.txt")"
}
said() { grep -q -- "$2" "$ST_OUT/phone-$1.txt"; }
never_said() { ! said "$@"; }
_said_or_gone() { said "$1" "$2" && return 0; proc_alive "${PID[$1]}" || return 2; return 1; }

# pair_start TAG ARGS...: `garage-pins pair ARGS` in the background (output in TAG.txt), waiting
# until the window is open; PAIR_PID.
_window_open() { grep -q '^pairing window open' "$ST_OUT/$1.txt"; }
pair_start() {
    local tag=$1; shift
    timeout 150 "$GARAGE_PINS" pair --socket "$sock" --pin "$MASTER_PIN" "$@" > "$ST_OUT/$tag.txt" 2>&1 &
    PAIR_PID=$!
    ST_PIDS+=("$PAIR_PID")
    wait_until 10 "garage-pins pair: window open" _window_open "$tag" || fail "garage-pins pair $*: $(cat "$ST_OUT/$tag.txt")"
}
# give_passkey PHONE TAG FILE: when the phone asks, the passkey garage-pins pair printed goes
# into FILE (the phone polls it): the owner reading it off the Pi and typing it on the phone.
_passkey_shown() { grep -q '^passkey: [0-9]\{6\}' "$ST_OUT/$1.txt"; }
give_passkey() {
    wait_until 90 "phone $1 asking for the passkey" _said_or_gone "$1" PASSKEY-ASKED ||
        fail "phone $1 never asked for a passkey: $(tr '\n' ' ' < "$ST_OUT/phone-$1.txt")"
    wait_until 30 "garage-pins pair showing the passkey" _passkey_shown "$2" || fail "no passkey shown: $(cat "$ST_OUT/$2.txt")"
    sed -n 's/^passkey: \([0-9]\{6\}\).*/\1/p' "$ST_OUT/$2.txt" | head -n 1 > "$3"
}
presses() { line_levels "$g" "$SIM_LABEL" 0 0 | pulses 1 | wc -l; }
_log_has() { grep -qE "$1" "$ST_OUT/$2.log"; }
never_logged() { [ -n "$1" ] && ! grep -qiE "$1" "$ST_OUT"/d*.log; }  # never_logged REGEX

# ---------------------------------------------------------------------------------------------
bt_modules_start
sim_chip label=st-relay lines=1 names=relay
g=$SIM_BASE sock=$ST_WORK/g.sock
make_pins "$PINS"
PYTHONPATH=$BUMBLE /usr/bin/python3 -c 'import bumble.device, bumble.transport.hci_socket' || fail "cannot import Bumble"
bt_modules_wait
btvirt_start
btmon_start
bt_power_on hci0
hciconfig hci1 down  # Bumble takes hci1 through a user channel: it must be down
trace_start

DAEMON_ARGS=(--pins "$PINS" --socket "$sock" --relay "$SIM_CHIP:relay" --pulse-ms "$PULSE_MS" --travel-s "$TRAVEL_S"
    --auto-close-s 0 --ble-adapter hci0 --ble-security paired)
# 0. A process named bluetoothd (a copy of sleep: only its name matters to garaged and doctor).
cp /bin/sleep "$ST_WORK/bluetoothd"
"$ST_WORK/bluetoothd" 600 &
FAKE_BLUETOOTHD=$!
ST_PIDS+=("$FAKE_BLUETOOTHD")
start_daemon d1 "${DAEMON_ARGS[@]}"
wait_ready "$DAEMON_PID" "$sock"
wait_until 10 "garaged refusing to serve beside bluetoothd" _log_has 'bluetooth-unavailable .*cannot work alongside bluetoothd' d1 ||
    fail "0: garaged did not say it cannot work beside bluetoothd: $(grep -E 'bluetooth' "$ST_OUT/d1.log" | tail -n 2 | tr '\n' ' ')"
check "0: nothing served or advertised beside bluetoothd" never_logged 'advertising detail=|pairing-agent '
DOCTOR_RC=0
DOCTOR=$(timeout 30 "$GARAGED" doctor "${DAEMON_ARGS[@]}" 2>&1) || DOCTOR_RC=$?
log "garaged doctor: status $DOCTOR_RC"$'\n'"$DOCTOR"
check "0: garaged doctor fails paired mode beside bluetoothd (status $DOCTOR_RC)" \
    grep -q 'FAIL .*bluetoothd is running .*--ble-security paired does not serve beside it' <<< "$DOCTOR"
check "0: garaged doctor exits 1" [ "$DOCTOR_RC" = 1 ]
kill "$FAKE_BLUETOOTHD"
wait_until 20 "advertising once bluetoothd is gone" _log_has 'advertising detail=' d1 ||
    fail "garaged did not start advertising after bluetoothd left: $(grep -E 'bluetooth|pairing' "$ST_OUT/d1.log" | tail -n 3 | tr '\n' ' ')"
wait_until 10 "the pairing agent ready" _log_has ' pairing-agent ' d1 || fail "no pairing-agent line in garaged's log"

# A. Never paired: told to pair, no press.
phone 1 --subscribe --write "$OPEN"
phone_end 1
check "A: the unpaired phone's CCCD and open writes got Insufficient Authentication (0x05)" \
    [ "$(grep -c '^WRITE-ERROR 0x05' "$ST_OUT/phone-1.txt")" = 2 ]
check "A: no press" [ "$(presses)" = 0 ]

# B. Pairing with no window open.
phone 2 --pair --keys "$ST_WORK/keys.json" --passkey-file "$ST_WORK/pk-none" --passkey-wait-s 20
phone_end 2
check "B: pairing outside the window failed ($(grep -E '^PAIR' "$ST_OUT/phone-2.txt" | tr '\n' ' '))" never_said 2 '^PAIRED'

# C. The owner opens a window and, before any phone comes, asks again: the first is told it was
# replaced and ends; the second stays open. The phone pairs with the passkey and opens.
pair_start pair-first --label first --seconds 120
FIRST_PID=$PAIR_PID
pair_start pair-anna --label anna --admin --seconds 120
wait_exit "$FIRST_PID" 10 || fail "C: the replaced garage-pins pair did not end: $(cat "$ST_OUT/pair-first.txt")"
check "C: the replaced garage-pins pair exited 1 (status $EXIT_RC)" [ "$EXIT_RC" = 1 ]
check "C: the replaced garage-pins pair was told why ($(tr '\n' ' ' < "$ST_OUT/pair-first.txt"))" \
    grep -q '^pairing window closed: replaced by a new garage-pins pair' "$ST_OUT/pair-first.txt"
not_told() { ! grep -q "$1" "$2"; }
check "C: the replacing garage-pins pair was not told of the first window's end" \
    not_told 'pairing window closed' "$ST_OUT/pair-anna.txt"
trace_mark pair-c
t_c=$(mark_time pair-c)
phone 3 --pair --keys "$ST_WORK/keys.json" --passkey-file "$ST_WORK/pk-anna" --subscribe --write "$OPEN"
give_passkey 3 pair-anna "$ST_WORK/pk-anna"
phone_end 3
wait_exit "$PAIR_PID" 15 || fail "garage-pins pair did not end after the phone paired: $(cat "$ST_OUT/pair-anna.txt")"
check "C: garage-pins pair exited 0 ($(tr '\n' ' ' < "$ST_OUT/pair-anna.txt"))" [ "$EXIT_RC" = 0 ]
check "C: garage-pins pair said paired anna" grep -q '^paired anna (00:AA:01:01:00:01), admin' "$ST_OUT/pair-anna.txt"
check "C: the phone paired with LE Secure Connections, authenticated" said 3 '^PAIRED sc=1 auth=1'
check "C: both writes accepted over the encrypted link" [ "$(grep -c '^WRITE-OK' "$ST_OUT/phone-3.txt")" = 2 ]
wait_pulses "$g" "$SIM_LABEL" 0 0 1 "$t_c" 1 10 || fail "C: no press after the paired phone's open"
check "C: the OK notification" said 3 '^NOTIFY OK'
wait_until 5 "the open logged with the phone's label" _log_has 'source="bluetooth anna 00:AA:01:01:00:01" command=open' d1 ||
    fail "C: the open was not logged as anna's"
phones=$(garage_pins phones --socket "$sock" --pin "$MASTER_PIN") || fail "garage-pins phones: $phones"
check "C: garage-pins phones lists anna as admin ($(tr -s ' \n' ' ' <<< "$phones"))" grep -qE '^anna +yes +00:AA:01:01:00:01' <<< "$phones"
hist=$(garage_pins log --socket "$sock" --pin "$MASTER_PIN") || fail "garage-pins log: $hist"
check "C: the history has the pairing and anna's opening" \
    grep -qE 'pair +anna +bluetooth 00:AA:01:01:00:01' <<< "$hist"
check "C: the history names the phone that opened" grep -qE 'open .*bluetooth anna 00:AA:01:01:00:01 +pressed' <<< "$hist"
check "C: the bonds file is 0600" [ "$(stat -c %a "$PINS.bonds")" = 600 ]
check "C: no key in garaged's log" never_logged "$(sed -n 's/.*"ltk":"\([0-9A-Fa-f]*\)".*/\1/p' "$PINS.bonds")"

# D. Restart, with the kernel's copy of the key removed first (as a reboot would): garaged loads
# it again from its file; the phone encrypts and opens.
garaged_stop "$DAEMON_PID"
out=$(mgmt -i hci0 unpair -t 1 00:AA:01:01:00:01 2>&1) || fail "btmgmt unpair: $out"
log "the kernel forgot the phone's key: $(tr '\n' ' ' <<< "$out")"
start_daemon d2 "${DAEMON_ARGS[@]}"
wait_ready "$DAEMON_PID" "$sock"
wait_until 20 "the pairing agent after the restart" _log_has ' pairing-agent .*phones=1' d2 || fail "D: garaged did not load the bond"
wait_until 20 "advertising after the restart" _log_has 'advertising detail=' d2 || fail "D: no advertising after the restart"
trace_mark restart-d
t_d=$(mark_time restart-d)
phone 4 --keys "$ST_WORK/keys.json" --private --encrypt --subscribe --write "$OPEN"
phone_end 4
check "D: the phone came from a resolvable private address ($(head -n 1 "$ST_OUT/phone-4.txt"))" said 4 '^ADDRESS [0-9A-F:]* resolvable=1'
check "D: encrypted with the stored key" said 4 '^ENCRYPTED'
check "D: no new pairing" never_said 4 PASSKEY-ASKED
check "D: both writes accepted" [ "$(grep -c '^WRITE-OK' "$ST_OUT/phone-4.txt")" = 2 ]
wait_pulses "$g" "$SIM_LABEL" 0 0 1 "$t_d" 1 10 || fail "D: no press after the bonded phone's open"
wait_until 5 "the open logged as anna's, by her identity address" _log_has 'source="bluetooth anna 00:AA:01:01:00:01" command=open' d2 ||
    fail "D: the private address was not resolved to anna: $(grep -E 'command=open' "$ST_OUT/d2.log" | tail -n 1)"

# E. Legacy pairing inside a window: refused, undone, no press.
pair_start pair-legacy --label legacy --seconds 90
phone 5 --pair --legacy --keys "$ST_WORK/keys-legacy.json" --passkey-file "$ST_WORK/pk-legacy" --write "$OPEN"
give_passkey 5 pair-legacy "$ST_WORK/pk-legacy"
phone_end 5
_refused() { grep -q '^refused: .*legacy pairing' "$ST_OUT/pair-legacy.txt"; }
wait_until 10 "garage-pins pair reporting the refusal" _refused || fail "E: no refusal: $(cat "$ST_OUT/pair-legacy.txt")"
check "E: the legacy phone's open was not accepted ($(grep -E '^(WRITE|DISC|PAIR)' "$ST_OUT/phone-5.txt" | tr '\n' ' '))" never_said 5 '^WRITE-OK'
kill "$PAIR_PID" 2> /dev/null || true
phones=$(garage_pins phones --socket "$sock" --pin "$MASTER_PIN") || fail "garage-pins phones: $phones"
check "E: still only anna is bonded ($(tr -s ' \n' ' ' <<< "$phones"))" [ "$(grep -c 00:AA <<< "$phones" || true)" = 1 ]

# F. Unpaired: the key is gone from the file and the kernel.
out=$(garage_pins unpair anna --socket "$sock" --pin "$MASTER_PIN") || fail "garage-pins unpair: $out"
check "F: garage-pins unpair anna ($out)" [ "$out" = "unpaired anna" ]
phone 6 --keys "$ST_WORK/keys.json" --encrypt --write "$OPEN"
phone_end 6
check "F: the unpaired phone cannot encrypt ($(grep -E '^(ENC|WRITE)' "$ST_OUT/phone-6.txt" | tr '\n' ' '))" never_said 6 '^WRITE-OK'
check "exactly two presses in all: the paired open and the open after the restart (saw $(presses))" [ "$(presses)" = 2 ]
garaged_stop "$DAEMON_PID"
check "garaged exited 0" [ "$EXIT_RC" = 0 ]

metric scenario_s "$(( ($(now_us) - t_begin) / 1000000 ))"
pass "unpaired write 0x05, no press; pairing outside the window refused; passkey pairing opened; after a restart the phone, from a private address, opened without pairing; legacy refused; unpaired phone refused"

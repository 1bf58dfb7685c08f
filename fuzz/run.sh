#!/usr/bin/env bash
# Builds the libFuzzer target and fuzzes DoorCore's parsers for a while (default 60 s), starting
# from a small seed corpus of real requests and PDUs. Exits non-zero on the first crash, leaving
# the input that caused it in fuzz/crashes/.
# Usage: fuzz/run.sh [SECONDS]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
seconds="${1:-60}"

swift build -c release --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address --product FuzzDoorCore 2>&1 | { grep -v '^\[' || true; }
bin="$(swift build -c release --show-bin-path)/FuzzDoorCore"

corpus=.corpus
mkdir -p "$corpus" crashes
seed() { printf "$2" > "$corpus/seed-$1"; }
seed codec '\x0012345O=1'; seed codec-e '\x0012345E\x01abcde'; seed codec-d '\x0012345D12'
seed att-mtu '\x01\x03\x02\xf7\x00'; seed att-group '\x01\x07\x10\x01\x00\xff\xff\x00\x28'
seed att-write '\x01\x0b\x52\x0c\x0012345O=1'; seed att-cccd '\x01\x05\x12\x0f\x00\x01\x00'
seed eeprom '\x02\x01\x31\x32\x33\x34\x35\x00\x00\x00\x00\x00\x00'
seed lines '\x0412345O=1\r\n12345S\n'; seed controller '\x0512345Aabcde\n12345P\nabcdeO=1\nwrongS\n'
seed paired '\x06\x00\x05\x12\x0f\x00\x01\x00\x33\x0b\x12\x0c\x0012345O=1'
seed mgmt '\x07\x17\x00\x00\x00\x0c\x00\x01\x00\x01\x01\xaa\x00\x01\x40\xe2\x01\x00\x00'
seed bonds '\x07{"label":"a","admin":true,"address":"00:AA:01:01:00:01","address_type":"public","ltk":"000102030405060708090A0B0C0D0E0F","ltk_type":3,"central":0,"enc_size":16,"ediv":0,"rand":"0000000000000000","since":1}\n'
seed door '\x0512345O=1\n\x03\n\x01\n\x02x\n\x04\n\x04\n12345H=1\n12345O=0\n\x04\n'

seed tlv '\x08\x06\x01\x01\x00\x01\x00\x13\x01\x10\x01\x00\x09\x02ab'; seed tlv-error '\x08\x06\x01\x02\x07\x01\x03\x08\x01\x3c'
seed http '\x09\x05GET /accessories HTTP/1.1\r\nHost: garage._hap._tcp.local\r\n\r\n'
seed http-pipe '\x09\x03PUT /characteristics HTTP/1.1\r\nContent-Type: application/hap+json\r\nContent-Length: 2\r\n\r\n{}GET /characteristics?id=1.9,1.10&ev=1 HTTP/1.1\r\n\r\n'
seed http-pair '\x09\x07POST /pair-setup HTTP/1.1\r\nContent-Type: application/pairing+tlv8\r\nContent-Length: 6\r\n\r\n\x06\x01\x01\x00\x01\x00'
seed http-chunked '\x09\x01POST /pairings HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'
seed frames '\x0a\x05GET /accessories HTTP/1.1\r\n\r\n'
seed pairing '\x0b\x06\x01\x01\x00\x01\x00\xff\x06\x01\x03\x03\x01\x00\x04\x01\x00\xff\x06\x01\x01\x03\x20AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'
seed rekey '\x0cGET /accessories HTTP/1.1\r\n\r\n\xff\x05\x40\x02'; seed rekey-clean '\x0c\xff\x10\x20'
# A Security+ 2.0 STATUS (the fourth published capture) after noise, then its first 10 bytes again.
seed secplus '\x0d\x07\xff\x55\x01\x55\x01\x00\xa4\x27\x8e\xfb\x1c\xd6\x7f\x9b\x28\x05\x93\xcf\xb4\x40\xcb\x06\x55\x01\x00\xa4\x27\x8e\xfb\x1c\xd6\x7f'

log=.fuzz.log
set +e
SWIFT_BACKTRACE=enable=no "$bin" "$corpus" -max_total_time="$seconds" -max_len=300 \
    -artifact_prefix=crashes/ -print_final_stats=1 >"$log" 2>&1
rc=$?
set -e
grep -E "^(Done|stat::|==[0-9]+==|SUMMARY|artifact_prefix)" "$log" || true
((rc == 0)) || { echo "fuzz: FAILED (exit $rc); the input is in fuzz/crashes/, the full log in fuzz/$log" >&2; tail -40 "$log" >&2; }
exit "$rc"

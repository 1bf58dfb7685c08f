#!/usr/bin/env bash
# Starts garaged on the simulated relay line with a fresh demo PIN table (master PIN 12345),
# everything under ./.demo, and says how to open the door from a second shell. Ctrl-C stops it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# Without --config garaged reads /etc/garaged.conf when it exists: not the installed package's file here.
export GARAGED_CONFIG=

scripts/deps.sh --swift
swift build
bin="$(swift build --show-bin-path)"
demo="$PWD/.demo"
mkdir -p "$demo"
rm -f "$demo"/pins.eeprom.events* "$demo"/pins.eeprom.labels "$demo"/pins.eeprom.autoclose "$demo"/pins.eeprom.door \
    "$demo"/relay.trace   # fresh: nothing from an earlier run
"$bin/garage-pins" init --pins "$demo/pins.eeprom" --master 12345 --force >/dev/null

cat >&2 <<MSG

garaged is starting on a simulated relay line (no hardware).
  PIN table:   $demo/pins.eeprom   (master PIN 12345)
  relay trace: $demo/relay.trace   (one line per relay transition: <CLOCK_MONOTONIC ns> <0|1>)

In a second shell, open the door, ask what it is doing, and watch the relay:
  $bin/garage-pins open   --socket $demo/garaged.sock --pin 12345
  $bin/garage-pins status --socket $demo/garaged.sock --pin 12345
  tail -f $demo/relay.trace

Stop the daemon with Ctrl-C.

MSG
exec "$bin/garaged" --pins "$demo/pins.eeprom" --socket "$demo/garaged.sock" \
    --relay "sim:$demo/relay.trace" --no-ble "$@"

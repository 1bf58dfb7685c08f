#!/usr/bin/env python3
"""opener-wire.py TRACE FAKE_LOG: the Security+ 2.0 packets garaged wrote to the guest's UART, as
the kernel stamped them, each beside what the host's fake opener made of it. For scenarios with a
"# host-opener:" line (95-opener-uart).

TRACE is a copy of the trace buffer with the st/uart_out kprobe on the 8250 driver's io_serial_out
(`reg=%si:u32 val=%dx:u8 port=%di:x64`): every write to a register of an 8250 port, stamped with
trace_clock=mono. The opener's port is the one whose transmit register (reg 0, the divisor's low
byte while the line control register's bit 0x80 is set) got 55 01 00 first;
its transmit bytes are cut into 19-byte packets, each decoded with Tests/secplus/fakeopener.py's
decoder. The break before a packet is the line control register (reg 3) with bit 0x40 set, then
cleared. FAKE_LOG is the fake's JSON lines (host CLOCK_MONOTONIC, another clock): a packet is
matched to the fake's entry with the same rolling code, command and byte1 (a DOOR_ACTION's press
and release share their code).

Prints one line per packet, times in ns ("-" when absent):
  FIRST LAST BREAK_ON BREAK_OFF NAME NIBBLE BYTE1 ROLLING ACCEPTED HOST_START HOST_T
and exits 1 saying why when the bytes do not make whole packets or a packet does not decode."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.environ.get("ST_PROJECT", os.path.dirname(__file__) + "/../.."), "Tests/secplus"))
import fakeopener  # noqa: E402  (the decoder: the fake and this reader agree on the wire)

LINE = re.compile(r" (\d+)\.(\d+): uart_out: .*reg=(\d+) val=(\d+) port=(0x[0-9a-f]+)")


def writes(trace):
    """(ns, reg, value, port) for every register write in the trace, oldest first."""
    out = []
    for line in open(trace, errors="replace"):
        m = LINE.search(line)
        if m:
            s, frac, reg, val, port = m.groups()
            out.append((int(s) * 10**9 + int(frac) * 10 ** (9 - len(frac)), int(reg), int(val), port))
    return out


def main():
    trace, fake_log = sys.argv[1], sys.argv[2]
    all_writes = writes(trace)
    streams, dlab = {}, {}
    for t, reg, val, port in all_writes:
        if reg == 3:
            dlab[port] = bool(val & 0x80)
        elif reg == 0 and not dlab.get(port):  # with the divisor latch open, reg 0 is the divisor
            streams.setdefault(port, []).append((t, val))
    opener = next((p for p, s in streams.items() if [v for _, v in s[:3]] == [0x55, 0x01, 0x00]), None)
    if opener is None:
        sys.exit(f"opener-wire: no 8250 port began with 55 01 00 ({len(all_writes)} register writes in the trace)")
    tx = streams[opener]
    if len(tx) % 19:
        sys.exit(f"opener-wire: {len(tx)} bytes on port {opener}: not whole 19-byte packets")
    lcr = [(t, v) for t, reg, v, p in all_writes if p == opener and reg == 3]
    host = {}
    for line in open(fake_log):
        e = json.loads(line)
        if "rolling" in e:
            host.setdefault((e["rolling"], e["command"], e["byte1"]), e)
    previous_last = 0
    for i in range(0, len(tx), 19):
        raw = bytes(v for _, v in tx[i:i + 19])
        first, last = tx[i][0], tx[i + 18][0]
        try:
            rolling, fixed, data = fakeopener.decode(raw)
        except ValueError as e:
            sys.exit(f"opener-wire: packet {i // 19 + 1} ({raw.hex()}) does not decode: {e}")
        command = (fixed >> 24) & 0xF00 | data & 0xFF
        nibble, byte1 = (data >> 8) & 0xF, (data >> 16) & 0xFF
        # The break belongs to this packet: set and cleared after the previous packet's last byte.
        on = [t for t, v in lcr if previous_last < t < first and v & 0x40]
        off = [t for t, v in lcr if on and on[-1] < t < first and not v & 0x40]
        previous_last = last
        e = host.get((rolling, command, byte1))
        print(first, last, on[-1] if on else "-", off[-1] if off else "-", fakeopener.NAMES.get(command, hex(command)), nibble, byte1, rolling,
              "-" if e is None else str(e["accepted"]).lower(),
              "-" if e is None else int(e["start"] * 1e9), "-" if e is None else int(e["t"] * 1e9))


if __name__ == "__main__":
    main()

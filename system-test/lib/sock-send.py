#!/usr/bin/env python3
"""sock-send.py [--mark TEXT] SOCKET LINE: send LINE plus a newline as one packet on the daemon's
local socket (SOCK_SEQPACKET) and print the first reply line (after the reason record, if any). --mark writes "st: TEXT" to the
kernel's trace_marker just before the send, on an open connection: the request's kernel stamp. Exit 2 on no reply within 5 s, 1 on a connection error. Statuses 1
and 2 are not wait_until's "not yet" / "give up": a wait condition built on this (scenario.sh's
_ready) must map every failure to "not yet" itself, or a slow first reply ends the wait."""
import socket
import sys

args = sys.argv[1:]
mark = None
if args[:1] == ["--mark"]:
    mark, args = args[1], args[2:]
path, line = args[0], args[1]
# Opened first: between the mark and the send there is only the mark's write.
marker = open("/sys/kernel/tracing/trace_marker", "w") if mark is not None else None
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.settimeout(5)
try:
    s.connect(path)
    if marker is not None:
        marker.write(f"st: {mark}\n")
        marker.flush()
    s.sendall(line.encode() + b"\n")
    # A refusal's or a no-op's reason comes first as its own record ({"reason":...}): the
    # reply is the line after it.
    buf = b""
    while True:
        lines = buf.split(b"\n")
        done = [l for l in lines[:-1] if not l.startswith(b'{"reason":')]
        if done:
            buf = done[0] + b"\n"
            break
        chunk = s.recv(256)
        if not chunk:
            buf = lines[-1]
            break
        buf += chunk
except socket.timeout:
    print("sock-send: no reply within 5 s", file=sys.stderr)
    sys.exit(2)
except OSError as e:
    print(f"sock-send: {e}", file=sys.stderr)
    sys.exit(1)
print(buf.decode(errors="replace").split("\n")[0])

#!/usr/bin/env python3
"""sock-send.py SOCKET LINE: send LINE plus a newline as one packet on the daemon's local socket
(SOCK_SEQPACKET) and print the first reply line. Exit 2 on no reply within 5 s, 1 on a connection error. Statuses 1
and 2 are not wait_until's "not yet" / "give up": a wait condition built on this (scenario.sh's
_ready) must map every failure to "not yet" itself, or a slow first reply ends the wait."""
import socket
import sys

path, line = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.settimeout(5)
try:
    s.connect(path)
    s.sendall(line.encode() + b"\n")
    buf = b""
    while b"\n" not in buf:
        chunk = s.recv(256)
        if not chunk:
            break
        buf += chunk
except socket.timeout:
    print("sock-send: no reply within 5 s", file=sys.stderr)
    sys.exit(2)
except OSError as e:
    print(f"sock-send: {e}", file=sys.stderr)
    sys.exit(1)
print(buf.decode(errors="replace").split("\n")[0])

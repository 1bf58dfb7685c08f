#!/usr/bin/env python3
"""sock-send.py SOCKET LINE: send LINE plus a newline on the daemon's Unix stream socket and
print the first reply line. Exit 2 on no reply within 5 s, 1 on a connection error."""
import socket
import sys

path, line = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
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

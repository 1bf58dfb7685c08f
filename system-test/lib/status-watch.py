#!/usr/bin/env python3
"""status-watch.py SOCKET PIN SECONDS: ask the daemon for the door's state every 100 ms on one
connection; on every change write "st: status-STATE REPLY" to the kernel's trace_marker (so the
change gets a CLOCK_MONOTONIC stamp in the trace) and print it. Stops after SECONDS or when the
daemon goes away."""
import socket
import sys
import time

path, pin, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
marker = open("/sys/kernel/tracing/trace_marker", "w", buffering=1)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(5)
s.connect(path)
f = s.makefile("rwb", buffering=0)
end = time.monotonic() + seconds
last = None
while time.monotonic() < end:
    s.sendall(f"{pin}S\n".encode())
    reply = f.readline().decode(errors="replace").strip()
    if not reply:
        print("status-watch: the daemon closed the connection", flush=True)
        break
    state = reply.split()[1] if reply.startswith("S ") and len(reply.split()) > 1 else "?"
    if state != last:
        marker.write(f"st: status-{state} {reply}\n")
        print(f"{time.monotonic():.3f} {reply}", flush=True)
        last = state
    time.sleep(0.1)

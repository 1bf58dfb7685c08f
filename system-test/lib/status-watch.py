#!/usr/bin/env python3
"""status-watch.py SOCKET PIN SECONDS: ask the daemon for the door's state every 100 ms on one
connection; on every change write "st: status-STATE REPLY" to the kernel's trace_marker (so the
change gets a CLOCK_MONOTONIC stamp in the trace) and print it. The first reply is always marked:
scenario.sh's status_watch waits for that mark before it lets the scenario act, so no change can
happen before the watcher has seen the state before it. Stops after SECONDS or when the daemon
goes away (saying why), so a scenario waiting for a mark can give up as soon as it stops."""
import socket
import sys
import time

path, pin, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
# One write() per mark (line buffered): a mark is never split or merged with another.
marker = open("/sys/kernel/tracing/trace_marker", "w", buffering=1)
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
# Generous: under TCG on a loaded host a reply can take seconds; a timeout here would end the
# watch and every later wait for a status mark with it.
s.settimeout(30)
s.connect(path)
end = time.monotonic() + seconds
last = None
try:
    while time.monotonic() < end:
        s.sendall(f"{pin}S\n".encode())
        # One packet carries the whole reply; a read of part of a packet would lose the rest.
        reply = s.recv(4096).decode(errors="replace").split("\n")[0].strip()
        if not reply:
            print("status-watch: the daemon closed the connection", flush=True)
            break
        state = reply.split()[1] if reply.startswith("S ") and len(reply.split()) > 1 else "?"
        if state != last:
            marker.write(f"st: status-{state} {reply}\n")
            print(f"{time.monotonic():.3f} {reply}", flush=True)
            last = state
        time.sleep(0.1)
    else:
        print(f"status-watch: stopped after {seconds:g} s", flush=True)
except OSError as e:
    print(f"status-watch: {e}", flush=True)
    sys.exit(1)

#!/usr/bin/env python3
"""Request to the first byte on the wire for a Security+ 1.0 opener door (scripts/bench.sh,
section opener): asks garaged over its local socket for O=1 and takes, for each press, the moment
the fake opener (Tests/secplus/fakeopener1.py, on a pty) read garaged's door press (0x30) minus
the moment just before the request was sent (both CLOCK_MONOTONIC). With the fake's wall panel
polling every 250 ms, that is the wait for a gap in its exchanges; the line also gives how far
the press was from the panel's or the opener's nearest byte before it (the fake's near_ms: under
a byte's 9 ms would be a collision). Opens only, from CLOSED (a close is warned): between rounds
the fake's radio remote (its CONTROL FIFO) closes the door, and the next round waits until
garaged reports it CLOSED, then sleeps a random 0-300 ms, so that requests fall anywhere in
garaged's 250 ms polling cycle (garaged says CLOSED just after an answer, so a request sent at
once would always come at the same point of it). Writes one line per press to OUT:
`opener1 <ns> <near_ms>`.
Usage: opener1.py SOCKET FAKE_LOG ROUNDS OUT CONTROL"""
import json, random, sys, time

from opener import ask, send_ok, wait


def presses(log):
    """garaged's door presses (0x30) in the fake's log so far."""
    out = []
    try:
        for line in open(log):
            e = json.loads(line)
            if e.get("who") == "garaged" and e.get("byte") == 0x30:
                out.append(e)
    except (OSError, ValueError):
        pass
    return out


def door_is(sock_path, state):
    return ask(sock_path, b"12345Lstatus\n").startswith(b'{"door":"%s"' % state.encode())


def main():
    sock_path, log, rounds, out, control = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
    with open(out, "a") as f:
        for _ in range(rounds):
            wait("the door CLOSED", lambda: door_is(sock_path, "CLOSED"), timeout=20)
            time.sleep(random.uniform(0, 0.3))
            before = len(presses(log))
            sent = send_ok(sock_path, b"12345O=1\n")
            press = wait("the door press", lambda: (lambda p: p[before] if len(p) > before else None)(presses(log)))
            f.write(f"opener1 {int((press['t'] - sent) * 1e9)} {press.get('near_ms', 1000.0)}\n")
            wait("the door OPEN", lambda: door_is(sock_path, "OPEN"), timeout=20)
            with open(control, "w") as c:
                c.write("remote\n")  # its radio remote closes it


if __name__ == "__main__":
    main()

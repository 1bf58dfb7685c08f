#!/usr/bin/env python3
"""Request to the first byte on the wire for a Security+ 2.0 opener door (scripts/bench.sh,
section opener): asks garaged over its local socket for O=1 and takes, for each press, the
moment the fake opener (Tests/secplus/fakeopener.py, on a pty) read the DOOR_ACTION's first
byte, minus the moment just before the request was sent (both CLOCK_MONOTONIC). Opens only: a
close garaged starts waits for its warning (the opener's light flashing), so between rounds the
fake's wall button (its CONTROL FIFO) closes the door, and the next round waits until garaged
reports it CLOSED. Asks again while the gate says ERR BUSY. Writes one line per press to OUT:
`opener <ns>`. Usage: opener.py SOCKET FAKE_LOG ROUNDS OUT CONTROL"""
import json, os, socket, sys, time


def actions(log):
    out = []
    try:
        for line in open(log):
            e = json.loads(line)
            if e.get("name") == "DOOR_ACTION":
                out.append(e)
    except (OSError, ValueError):
        pass
    return out


def ask(sock_path, request):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(sock_path)
    s.send(request)
    answer = s.recv(4096)
    s.close()
    return answer


def send_ok(sock_path, request):
    """Sends REQUEST until it is answered OK (ERR BUSY: the gate's pause between presses; asked
    again); returns CLOCK_MONOTONIC just before the send that was answered OK."""
    give_up = time.monotonic() + 10
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.connect(sock_path)
        sent = time.monotonic()
        s.send(request)
        answer = s.recv(256)
        s.close()
        if answer.startswith(b"OK"):
            return sent
        if not answer.startswith(b"ERR BUSY") or time.monotonic() > give_up:
            sys.exit(f"{os.path.basename(sys.argv[0])}: {request!r} was answered {answer!r}")
        time.sleep(0.05)


def wait(what, condition, timeout=5.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = condition()
        if v:
            return v
        time.sleep(0.002)
    sys.exit(f"opener.py: no {what} within {timeout} s")


def main():
    sock_path, log, rounds, out, control = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
    wait("STATUS from the fake opener", lambda: any(json.loads(l).get("name") == "GET_STATUS" for l in open(log)) if os.path.exists(log) else False)
    time.sleep(0.05)  # the first STATUS's answer is on the line; let it pass
    with open(out, "a") as f:
        for i in range(rounds):
            before = len(actions(log))
            wait("the door CLOSED", lambda: ask(sock_path, b"12345Lstatus\n").startswith(b'{"door":"CLOSED"'))
            sent = send_ok(sock_path, b"12345O=1\n")
            press = wait("press and release", lambda: (lambda a: a[before:before + 2] if len(a) >= before + 2 else None)(actions(log)))
            f.write(f"opener {int((press[0]['start'] - sent) * 1e9)}\n")
            wait("the door OPEN", lambda: ask(sock_path, b"12345Lstatus\n").startswith(b'{"door":"OPEN"'))
            with open(control, "w") as c:
                c.write("button\n")  # the wall button closes it


if __name__ == "__main__":
    main()

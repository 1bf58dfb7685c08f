#!/usr/bin/env python3
"""hapraw - what a HomeKit accessory does with bytes no controller should send.

Standard library only; it never pairs. Its subcommands:

    malformed --port P        sends each malformed request below on a connection of its own
                              and prints one JSON line per case: {"case", "status", "closed"}
                              (status: the HTTP status answered, or null; closed: the
                              accessory closed the connection within 5 s).
    pipeline --port P [--count N]
                              sends N unpaired requests in one write and prints
                              {"answers": how many came back within 5 s}.
    flood --port P [--count N] [--ready-file F]
                              pipelines N small unpaired requests on one connection with a
                              tiny receive buffer, never reads a byte, writes F once all are
                              sent, and waits until killed (or until the accessory drops it:
                              then it prints {"dropped": true} and exits 0).
    burst --port P --kind verify|identify|garbage [--count N] [--connections C]
                              what a stranger can repeat at will: pair-verify M1s (a fresh
                              X25519 key each, pipelined over C connections), unpaired
                              POST /identify, or a connection sending garbage; prints
                              {"answers", "exchanged", "busy", "seconds"} (exchanged: M2s that
                              carried the accessory's key; busy: TLV error 7).
    verify-flood --port P [--connections C] [--ready-file F]
                              one stranger's pair-verify M1 flood, kept up: C connections
                              (default 30), each with 32 to 64 M1s (a fresh random key each)
                              sent and not yet answered at all times, until SIGTERM; writes F once
                              every connection had an answer; then prints {"answers",
                              "exchanged", "busy", "seconds"} as burst does.
    onpath --port P --port-file F --inject open|pair-add [--target IID]
                              an on-path attacker: a TCP relay to the accessory (its own port
                              written to F) that appends a request in the clear to the segment
                              carrying a controller's pair-verify M3, as one send. It relays one
                              connection, then prints {"injected": true|false, "closed_by":
                              "accessory"|"controller"} and exits.
"""
import argparse
import json
import os
import select
import signal
import socket
import sys
import time

CASES = [
    ("not-http", b"HELLO THERE\r\n\r\n"),
    ("binary", bytes(range(256)) * 4),
    ("huge-header", b"GET /accessories HTTP/1.1\r\nX-Filler: " + b"a" * 40000 + b"\r\n\r\n"),
    ("huge-body", b"POST /pair-setup HTTP/1.1\r\nContent-Length: 1000000000\r\n\r\n"),
    ("bad-length", b"POST /pair-setup HTTP/1.1\r\nContent-Length: -5\r\n\r\n"),
    ("chunked", b"POST /pair-setup HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
    ("http-2", b"GET /accessories HTTP/2.0\r\n\r\n"),
    # A TLV8 item that claims 200 bytes and carries 3: pair-setup answers with a TLV error.
    ("truncated-tlv", b"POST /pair-setup HTTP/1.1\r\nContent-Type: application/pairing+tlv8\r\nContent-Length: 5\r\n\r\n\x06\xc8abc"),
    # Pair-verify M3 with no M1 before it.
    ("verify-out-of-order", b"POST /pair-verify HTTP/1.1\r\nContent-Length: 3\r\n\r\n\x06\x01\x03"),
    # Pair-setup M3 with no M1 before it.
    ("setup-out-of-order", b"POST /pair-setup HTTP/1.1\r\nContent-Length: 3\r\n\r\n\x06\x01\x03"),
    # Everything but pairing needs an encrypted session.
    ("unpaired-read", b"GET /accessories HTTP/1.1\r\n\r\n"),
    ("unpaired-write", b"PUT /characteristics HTTP/1.1\r\nContent-Length: 2\r\n\r\n{]"),
]


def status_of(data: bytes):
    line = data.split(b"\r\n", 1)[0].split(b" ")
    if len(line) >= 2 and line[0].startswith(b"HTTP/") and line[1].isdigit():
        return int(line[1])
    return None


def malformed(port: int) -> int:
    for name, payload in CASES:
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        try:
            s.sendall(payload)
        except OSError:
            pass  # it may close before taking everything
        data, closed, deadline = b"", False, time.monotonic() + 5
        while time.monotonic() < deadline:
            ready, _, _ = select.select([s], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                break
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                closed = True
                break
            if not chunk:
                closed = True
                break
            data += chunk
            # An answer that keeps the connection open is complete once its body is in.
            head, sep, body = data.partition(b"\r\n\r\n")
            if sep:
                length = 0
                for h in head.split(b"\r\n")[1:]:
                    k, _, v = h.partition(b":")
                    if k.strip().lower() == b"content-length":
                        length = int(v.strip())
                if len(body) >= length and name in ("truncated-tlv", "verify-out-of-order", "setup-out-of-order",
                                                    "unpaired-read", "unpaired-write"):
                    break
        s.close()
        print(json.dumps({"case": name, "status": status_of(data), "closed": closed,
                          "body": data.partition(b"\r\n\r\n")[2][:64].hex()}), flush=True)
    return 0


def pipeline(port: int, count: int) -> int:
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(b"GET /accessories HTTP/1.1\r\n\r\n" * count)
    data, deadline = b"", time.monotonic() + 5
    while data.count(b"HTTP/1.1 ") < count and time.monotonic() < deadline:
        ready, _, _ = select.select([s], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    print(json.dumps({"answers": data.count(b"HTTP/1.1 ")}), flush=True)
    return 0


def flood(port: int, count: int, ready_file: str | None) -> int:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", port))
    request = b"GET /accessories HTTP/1.1\r\n\r\n"
    sent = 0
    batch = request * 1000
    s.settimeout(30)
    try:
        while sent < count:
            s.sendall(batch)
            sent += 1000
    except OSError:
        print(json.dumps({"dropped": True, "sent": sent}), flush=True)
        return 0
    if ready_file:
        with open(ready_file, "w") as f:
            f.write(str(sent))
    # Never read; the accessory is expected to give up on us. A reset shows up on send.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        time.sleep(0.2)
        try:
            s.send(b"")
            err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if err:
                print(json.dumps({"dropped": True, "sent": sent}), flush=True)
                return 0
        except OSError:
            print(json.dumps({"dropped": True, "sent": sent}), flush=True)
            return 0
    return 3


def verify_m1() -> bytes:
    """A pair-verify M1 with a fresh random X25519 public key (kTLVType_State 1, PublicKey)."""
    return (b"POST /pair-verify HTTP/1.1\r\nContent-Type: application/pairing+tlv8\r\nContent-Length: 37\r\n\r\n"
            + bytes([6, 1, 1, 3, 32]) + os.urandom(32))


def burst(port: int, kind: str, count: int, connections: int) -> int:
    started = time.monotonic()
    answers = exchanged = busy = 0
    if kind == "garbage":
        for _ in range(count):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            try:
                s.sendall(b"\x00\xffnot http at all\r\n\r\n")
                data = s.recv(4096)
                answers += 1 if data else 0
            except OSError:
                pass
            s.close()
    else:
        per = [count // connections + (1 if i < count % connections else 0) for i in range(connections)]
        sockets = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in per]
        for s, n in zip(sockets, per):
            if kind == "verify":
                one = b"".join(verify_m1() for _ in range(n))
            else:
                one = b"POST /identify HTTP/1.1\r\nContent-Length: 0\r\n\r\n" * n
            s.sendall(one)
        for s, n in zip(sockets, per):
            data = b""
            deadline = time.monotonic() + 30
            while data.count(b"HTTP/1.1 ") < n and time.monotonic() < deadline:
                try:
                    chunk = s.recv(65536)
                except OSError:
                    break
                if not chunk:
                    break
                data += chunk
            for part in data.split(b"HTTP/1.1 ")[1:]:
                answers += 1
                body = part.partition(b"\r\n\r\n")[2]
                if body[:3] == bytes([6, 1, 2]) and bytes([7, 1, 7]) in body[:12]:
                    busy += 1
                elif bytes([3, 32]) in body[:8]:
                    exchanged += 1
            s.close()
    print(json.dumps({"answers": answers, "exchanged": exchanged, "busy": busy,
                      "seconds": round(time.monotonic() - started, 3)}), flush=True)
    return 0


def verify_flood(port: int, connections: int, ready_file: str | None) -> int:
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    started = time.monotonic()
    socks = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(connections)]
    unanswered = {s: 0 for s in socks}
    pending = {s: b"" for s in socks}
    unsent = {s: b"" for s in socks}
    answered = set()
    answers = exchanged = busy = 0
    for s in socks:
        s.setblocking(False)
    while not stop and socks:
        for s in socks:
            if unanswered[s] < 32 and not unsent[s]:
                unsent[s] = b"".join(verify_m1() for _ in range(32))
                unanswered[s] += 32
            try:
                unsent[s] = unsent[s][s.send(unsent[s]):] if unsent[s] else b""
            except (BlockingIOError, OSError):
                pass
        try:
            ready, _, _ = select.select(socks, [], [], 0.05)
        except InterruptedError:
            continue
        for s in ready:
            try:
                chunk = s.recv(65536)
            except (BlockingIOError, OSError):
                continue
            if not chunk:
                socks.remove(s)
                continue
            buf = pending[s] + chunk
            # Whole answers only: head, Content-Length, body.
            while True:
                head, sep, rest = buf.partition(b"\r\n\r\n")
                if not sep:
                    break
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                if len(rest) < length:
                    break
                body, buf = rest[:length], rest[length:]
                answers += 1
                unanswered[s] -= 1
                answered.add(s)
                if body[:3] == bytes([6, 1, 2]) and bytes([7, 1, 7]) in body[:12]:
                    busy += 1
                elif bytes([3, 32]) in body[:8]:
                    exchanged += 1
            pending[s] = buf
        if ready_file and len(answered) == connections:
            with open(ready_file, "w") as f:
                f.write(str(answers))
            ready_file = None
    print(json.dumps({"answers": answers, "exchanged": exchanged, "busy": busy,
                      "seconds": round(time.monotonic() - started, 3)}), flush=True)
    return 0


def injected_request(kind: str, target: int) -> bytes:
    """The request the attacker appends: open the door, or add its own key as an admin."""
    if kind == "open":
        body = json.dumps({"characteristics": [{"aid": 1, "iid": target, "value": 0}]}).encode()
        return (b"PUT /characteristics HTTP/1.1\r\nHost: x\r\nContent-Type: application/hap+json\r\n"
                b"Content-Length: %d\r\n\r\n" % len(body)) + body
    # TLV8: state 1, method 3 (add), identifier, public key (32 bytes), permissions 1 (admin).
    ident = b"attacker"
    tlv = bytes([6, 1, 1, 0, 1, 3, 1, len(ident)]) + ident + bytes([3, 32]) + bytes(range(32)) + bytes([0x0B, 1, 1])
    return (b"POST /pairings HTTP/1.1\r\nHost: x\r\nContent-Type: application/pairing+tlv8\r\n"
            b"Content-Length: %d\r\n\r\n" % len(tlv)) + tlv


def is_verify_m3(chunk: bytes) -> bool:
    """A chunk carrying POST /pair-verify whose TLV8 body says state 3 (kTLVType_State = 6)."""
    head, sep, body = chunk.partition(b"\r\n\r\n")
    return bool(sep) and head.startswith(b"POST /pair-verify") and body[:3] == bytes([6, 1, 3])


def onpath(port: int, port_file: str, kind: str, target: int) -> int:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    with open(port_file + ".tmp", "w") as f:
        f.write(str(listener.getsockname()[1]))
    os.rename(port_file + ".tmp", port_file)
    listener.settimeout(60)
    controller, _ = listener.accept()
    accessory = socket.create_connection(("127.0.0.1", port), timeout=5)
    injected, closed_by = False, None
    deadline = time.monotonic() + 60
    while closed_by is None and time.monotonic() < deadline:
        ready, _, _ = select.select([controller, accessory], [], [], 1.0)
        for s in ready:
            try:
                chunk = s.recv(65536)
            except OSError:
                chunk = b""
            if not chunk:
                closed_by = "controller" if s is controller else "accessory"
                break
            if s is controller:
                # One request per chunk is how aiohomekit writes; M3 and the attacker's bytes
                # then go out in one send, so the accessory reads them together.
                if not injected and is_verify_m3(chunk):
                    chunk += injected_request(kind, target)
                    injected = True
                accessory.sendall(chunk)
            else:
                controller.sendall(chunk)
    controller.close()
    accessory.close()
    print(json.dumps({"injected": injected, "closed_by": closed_by}), flush=True)
    return 0


def main() -> int:
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("malformed")
    m.add_argument("--port", type=int, required=True)
    pl = sub.add_parser("pipeline")
    pl.add_argument("--port", type=int, required=True)
    pl.add_argument("--count", type=int, default=40)
    f = sub.add_parser("flood")
    f.add_argument("--port", type=int, required=True)
    f.add_argument("--count", type=int, default=100000)
    f.add_argument("--ready-file")
    b = sub.add_parser("burst")
    b.add_argument("--port", type=int, required=True)
    b.add_argument("--kind", choices=["verify", "identify", "garbage"], required=True)
    b.add_argument("--count", type=int, default=100)
    b.add_argument("--connections", type=int, default=1)
    v = sub.add_parser("verify-flood")
    v.add_argument("--port", type=int, required=True)
    v.add_argument("--connections", type=int, default=30)
    v.add_argument("--ready-file")
    o = sub.add_parser("onpath")
    o.add_argument("--port", type=int, required=True)
    o.add_argument("--port-file", required=True)
    o.add_argument("--inject", choices=["open", "pair-add"], required=True)
    o.add_argument("--target", type=int, default=18)
    a = p.parse_args()
    if a.cmd == "burst":
        return burst(a.port, a.kind, a.count, a.connections)
    if a.cmd == "verify-flood":
        return verify_flood(a.port, a.connections, a.ready_file)
    if a.cmd == "onpath":
        return onpath(a.port, a.port_file, a.inject, a.target)
    if a.cmd == "malformed":
        return malformed(a.port)
    if a.cmd == "pipeline":
        return pipeline(a.port, a.count)
    return flood(a.port, a.count, a.ready_file)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""hapraw - what a HomeKit accessory does with bytes no controller should send.

Standard library only; it never pairs. Two subcommands:

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
"""
import argparse
import json
import select
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
    a = p.parse_args()
    if a.cmd == "malformed":
        return malformed(a.port)
    if a.cmd == "pipeline":
        return pipeline(a.port, a.count)
    return flood(a.port, a.count, a.ready_file)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Measures garaged on the simulated line and prints the figures the README quotes.

- press width: N presses (open/close alternately, travel 0), each measured from the relay
  trace's CLOCK_MONOTONIC stamps; prints min/median/max and the worst error against --pulse-ms;
- request latency: round trips of `<PIN>S` on one local-socket connection (p50/p99/max);
- concurrency: K clients connected at once, one of them silent, all answered.

Usage: bench/pulse-and-latency.py [--presses N] [--requests N] [--bin DIR]
Starts its own daemon in a temporary folder; stops it at the end.
"""
import argparse, os, signal, socket, statistics, subprocess, sys, tempfile, time


def wait_until(cond, timeout, what):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return
        time.sleep(0.005)
    sys.exit(f"bench: timed out waiting for {what}")


def trace(path):
    with open(path) as f:
        return [(int(a), int(b)) for a, b in (line.split() for line in f if line.strip())]


def ask(conn, line):
    conn.sendall(line + b"\n")
    buf = b""
    while not buf.endswith(b"\n"):
        chunk = conn.recv(256)
        if not chunk:
            raise RuntimeError("daemon closed the connection")
        buf += chunk
    return buf.strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--presses", type=int, default=20)
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--clients", type=int, default=64)
    ap.add_argument("--pulse-ms", type=int, default=300)
    ap.add_argument("--bin", default=None)
    a = ap.parse_args()
    bindir = a.bin or subprocess.check_output(["swift", "build", "-c", "release", "--show-bin-path"], text=True).strip()
    d = tempfile.mkdtemp(prefix="garaged-bench.")
    pins, sock, tr = f"{d}/pins", f"{d}/sock", f"{d}/trace"
    subprocess.check_call([f"{bindir}/garage-pins", "init", "--pins", pins, "--master", "12345"], stdout=subprocess.DEVNULL)
    daemon = subprocess.Popen([f"{bindir}/garaged", "--pins", pins, "--socket", sock, "--relay", f"sim:{tr}",
                               "--pulse-ms", str(a.pulse_ms), "--travel-s", "0", "--auto-close-s", "0", "--no-ble"],
                              stderr=subprocess.DEVNULL)
    try:
        wait_until(lambda: os.path.exists(sock), 10, "the socket")
        c = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        c.connect(sock)

        # Press widths: alternate open and close; each waits for the previous press to end.
        for i in range(a.presses):
            before = len(trace(tr))
            reply = ask(c, b"12345O=1" if i % 2 == 0 else b"12345O=0")
            if reply != b"OK":
                sys.exit(f"bench: press {i + 1} answered {reply!r}")
            wait_until(lambda: len(trace(tr)) >= before + 2, 5, f"press {i + 1} to end")
            # The door counts as moving for one pulse; let it settle before the next press.
            wait_until(lambda: ask(c, b"12345S") in (b"S OPEN", b"S CLOSED"), 5, "the door to settle")
        t = trace(tr)
        widths = [(t[i + 1][0] - t[i][0]) / 1e6 for i in range(1, len(t) - 1, 2) if t[i][1] == 1 and t[i + 1][1] == 0]
        errs = [abs(w - a.pulse_ms) for w in widths]
        print(f"press width over {len(widths)} presses (target {a.pulse_ms} ms): min {min(widths):.3f} "
              f"median {statistics.median(widths):.3f} max {max(widths):.3f} ms; worst error {max(errs):.3f} ms")

        # Request latency on one connection.
        lat = []
        for _ in range(a.requests):
            t0 = time.perf_counter_ns()
            ask(c, b"12345S")
            lat.append((time.perf_counter_ns() - t0) / 1e3)
        lat.sort()
        print(f"status round trip over {a.requests} requests: p50 {lat[len(lat) // 2]:.0f} us, "
              f"p99 {lat[int(len(lat) * 0.99)]:.0f} us, max {lat[-1]:.0f} us")

        # Many clients at once, one of them connected and silent.
        silent = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        silent.connect(sock)
        conns = []
        for _ in range(a.clients):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            s.connect(sock)
            conns.append(s)
        t0 = time.perf_counter()
        for s in conns:
            s.sendall(b"12345S\n")
        answered = sum(1 for s in conns if s.recv(64).startswith(b"S "))
        print(f"{a.clients} clients at once (plus one silent): {answered} answered in "
              f"{(time.perf_counter() - t0) * 1e3:.1f} ms")
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=5)


if __name__ == "__main__":
    main()

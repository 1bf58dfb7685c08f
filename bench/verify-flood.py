#!/usr/bin/env python3
"""verify-flood.py: the owner's `12345S` while one stranger floods HomeKit's pair-verify, for
scripts/bench.sh's `hkflood` section (issue 37, W5).

    verify-flood.py --bin NAME=DIR [--bin NAME=DIR ...] --dir WORK --out FILE
                    [--rounds R] [--asks N] [--connections C]

Starts the release garaged of each DIR (garaged, garage-pins) on the simulated relay, HomeKit on
127.0.0.1 and a port the kernel picks, and in each of R rounds, the targets taking turns (the
order reversed every other round, so the machine's load falls on each alike):

  alone   the owner asks `12345S` N times, 20 ms apart, each on a new connection of the local
          socket as `garage-pins status` does: from just before connect to the answer read.
  flood   the same N asks while `Tests/homekit/hapraw.py verify-flood` (one stranger, one
          address) keeps 32 to 64 pair-verify M1s unanswered on each of C connections (30 by
          default), started once every connection had an answer; garaged's CPU over the asks
          (its threads' run time, /proc/PID/task/*/schedstat) as a share of one core; the flood's
          answers, Busy and key exchanges.

Several targets measure a change side by side on one load (`--bin before=... --bin after=...`);
bench.sh gives one. Writes every sample as JSON to FILE. Standard library only; every wait has a
deadline, and a failure exits non-zero saying what it waited for.
"""
import argparse
import glob
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
HAPRAW = os.path.join(os.path.dirname(here), "Tests", "homekit", "hapraw.py")
PIN = "12345"
TIMEOUT = 10.0  # seconds: the deadline of every single wait


class Failed(Exception):
    pass


def deadline_wait(what, check, timeout=TIMEOUT, step=0.005):
    """Polls check() until it gives something true, or fails naming what it waited for."""
    end = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > end:
            raise Failed(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(step)


class Garaged:
    def __init__(self, name, bindir, workdir):
        self.name = name
        self.dir = workdir
        p = self.path
        for old in glob.glob(p("*")):
            os.remove(old)  # an earlier run's, in the same folder
        init = subprocess.run([os.path.join(bindir, "garage-pins"), "init", "--pins", p("pins"), "--master", PIN],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if init.returncode != 0:
            raise Failed(f"garage-pins init ({name}) failed: {init.stderr.strip()}")
        self.log = p("log")
        self.proc = subprocess.Popen(
            [os.path.join(bindir, "garaged"), "--pins", p("pins"), "--socket", p("sock"), "--relay", f"sim:{p('trace')}",
             "--events", p("events"), "--no-ble", "--travel-s", "0", "--auto-close-s", "0",
             "--homekit", "--homekit-port", "0", "--homekit-bind", "127.0.0.1"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(self.log, "w"))

        def port():
            if self.proc.poll() is not None:
                raise Failed(f"garaged ({name}) exited at start:\n" + open(self.log).read())
            m = re.search(r"INFO homekit .*\bport=(\d+)", open(self.log).read())
            return m and os.path.exists(p("sock")) and int(m.group(1))
        self.port = deadline_wait(f"garaged ({name}) to start", port)

    def path(self, what):
        return os.path.join(self.dir, f"vf-{self.name}.{what}")

    def ask(self):
        """`12345S` on a new connection: nanoseconds from before connect to the answer read."""
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.settimeout(TIMEOUT)
        t0 = time.monotonic_ns()
        s.connect(self.path("sock"))
        s.send(f"{PIN}S\n".encode())
        answer = s.recv(4096)
        t1 = time.monotonic_ns()
        s.close()
        if not answer.startswith(b"S "):
            raise Failed(f"garaged ({self.name}) answered {answer!r} to S")
        return t1 - t0

    def cpu_ns(self):
        """Its threads' run time so far (ns)."""
        ns = 0
        for tid in os.listdir(f"/proc/{self.proc.pid}/task"):
            try:
                ns += int(open(f"/proc/{self.proc.pid}/task/{tid}/schedstat").read().split()[0])
            except (OSError, IndexError):
                pass  # a thread that ended meanwhile
        return ns

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def asks(g, n):
    out = []
    for _ in range(n):
        out.append(g.ask())
        time.sleep(0.02)
    return out


def flooded(g, n, connections):
    """N asks during the flood; (samples, garaged's CPU share of a core, the flood's counts)."""
    ready = g.path("flooding")
    if os.path.exists(ready):
        os.remove(ready)
    flood = subprocess.Popen([sys.executable, HAPRAW, "verify-flood", "--port", str(g.port), "--connections", str(connections),
                              "--ready-file", ready], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline_wait(f"the flood on garaged ({g.name}) to be answered on every connection", lambda: os.path.exists(ready)
                      or flood.poll() is not None)
        if flood.poll() is not None:
            raise Failed(f"hapraw verify-flood exited: {flood.stderr.read()}")
        c0, t0 = g.cpu_ns(), time.monotonic_ns()
        samples = asks(g, n)
        c1, t1 = g.cpu_ns(), time.monotonic_ns()
    finally:
        flood.send_signal(signal.SIGTERM)
    out, err = flood.communicate(timeout=TIMEOUT)
    if flood.returncode != 0:
        raise Failed(f"hapraw verify-flood failed ({flood.returncode}): {err}")
    return samples, (c1 - c0) / (t1 - t0), json.loads(out)


def main():
    a = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    a.add_argument("--bin", action="append", required=True, metavar="NAME=DIR",
                   help="a target: the folder of a release garaged and garage-pins, by name")
    a.add_argument("--dir", required=True, help="a scratch folder")
    a.add_argument("--out", required=True, help="where the samples go (JSON)")
    a.add_argument("--rounds", type=int, default=3)
    a.add_argument("--asks", type=int, default=50)
    a.add_argument("--connections", type=int, default=30)
    args = a.parse_args()
    targets = [t.split("=", 1) for t in args.bin]
    r = {"asks_per_round": args.asks, "rounds": args.rounds, "connections": args.connections, "targets": {}}
    daemons = []
    try:
        for name, bindir in targets:
            daemons.append(Garaged(name, bindir, args.dir))
            r["targets"][name] = {"alone_ns": [], "flood_ns": [], "cpu_share": [], "flood": []}
        for n in range(args.rounds):
            for g in (daemons if n % 2 == 0 else daemons[::-1]):
                print(f"bench: hkflood: round {n + 1} of {args.rounds}, {g.name}", file=sys.stderr, flush=True)
                t = r["targets"][g.name]
                t["alone_ns"] += asks(g, args.asks)
                samples, share, counts = flooded(g, args.asks, args.connections)
                t["flood_ns"] += samples
                t["cpu_share"].append(round(share, 3))
                t["flood"].append(counts)
    except Failed as e:
        print(f"verify-flood: {e}", file=sys.stderr)
        return 1
    finally:
        for g in daemons:
            g.stop()
    json.dump(r, open(args.out, "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

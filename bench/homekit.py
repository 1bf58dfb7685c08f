#!/usr/bin/env python3
"""homekit.py: garaged's HomeKit (HAP over IP) figures, for scripts/bench.sh's `homekit` section.

    homekit.py --bin DIR --dir WORK --out FILE [--failed FILE] [--setups N] [--verifies N]
               [--presses N] [--edges N] [--sessions N]

Starts the release garaged from DIR (garaged, garage-pins) twice, on the simulated relay, HomeKit
on 127.0.0.1 and a port the kernel picks, and measures:

  pair-setup      hapctl.py (aiohomekit 4.0.1) pairs, N times: its own wall time of M1..M6 (from
                  its TCP connect), and garaged's CPU over that hapctl run (utime + stime from
                  /proc/PID/stat; also the threads' sum_exec_runtime from /proc/PID/task/*/schedstat,
                  which is not quantised to clock ticks). `12345Lhomekit reset` between rounds,
                  the new setup code from `12345Lhomekit`.
  pair-verify     this client's own pair-verify (X25519, Ed25519, HKDF-SHA512, ChaCha20-Poly1305
                  of the `cryptography` package) with the keys hapctl saved: connect to M4, N
                  times, each a new session; garaged's CPU over all of them.
  write-to-press  `PUT /characteristics` TargetDoorState (1.18) = 0, then = 1, on one verified
                  session: CLOCK_MONOTONIC just before sendall of the encrypted frame, to the
                  relay's rising line in the sim trace (garaged stamps it with CLOCK_MONOTONIC).
                  Each write waits for CurrentDoorState's (1.17) event that the door got there.
  edge-to-event   garaged with sim: limit switches (debounce 0): the closed switch's file renamed
                  over (stamped just before the rename) to the EVENT/1.0 frame of 1.17 arriving
                  (stamped as recv returns, before it is decrypted), on a subscribed session.
  memory          VmRSS (and smaps_rollup) of that second garaged after start, HomeKit on, and
                  with 8 verified sessions subscribed to 1.17 at once.

Writes every sample as JSON to FILE; scripts/bench.sh makes the figures from it. Needs the
`cryptography` package (installed with aiohomekit by scripts/homekit-tools.sh): run it with that
venv's python. Every wait has a deadline; a failure exits non-zero saying what it waited for.
"""
import argparse
import json
import os
import random
import re
import socket
import struct
import subprocess
import sys
import time

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, x25519
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
HAPCTL = os.path.join(root, "Tests", "homekit", "hapctl.py")
PIN = "12345"
CURRENT, TARGET = 17, 18  # CurrentDoorState 1.17, TargetDoorState 1.18
TIMEOUT = 10.0  # seconds: the deadline of every single wait


class Failed(Exception):
    pass


def now_ns():
    return time.monotonic_ns()  # CLOCK_MONOTONIC on Linux, as garaged's trace stamps


def deadline_wait(what, check, timeout=TIMEOUT, step=0.001):
    """Polls check() until it gives something true, or fails naming what it waited for."""
    end = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > end:
            raise Failed(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(step)


# ------------------------------------------------------------------ TLV8 and HTTP

def tlv_encode(items):
    out = bytearray()
    for t, v in items:
        v = bytes(v)
        if not v:
            out += bytes([t, 0])
        for i in range(0, len(v), 255):
            chunk = v[i:i + 255]
            out += bytes([t, len(chunk)]) + chunk
    return bytes(out)


def tlv_decode(data):
    out, i, last = {}, 0, None
    while i + 2 <= len(data):
        t, n = data[i], data[i + 1]
        v = data[i + 2:i + 2 + n]
        if t == last:
            out[t] += v  # a fragment of the item before
        else:
            out[t] = bytes(v)
        last = t
        i += 2 + n
    return out


def split_message(buf):
    """(start line, headers, body, rest) of the first whole HTTP message in buf, or None."""
    head, sep, rest = buf.partition(b"\r\n\r\n")
    if not sep:
        return None
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for h in lines[1:]:
        k, _, v = h.partition(":")
        headers[k.strip().lower()] = v.strip()
    n = int(headers.get("content-length", "0"))
    if len(rest) < n:
        return None
    return lines[0], headers, rest[:n], rest[n:]


def request(method, path, body=b"", content_type=None):
    head = f"{method} {path} HTTP/1.1\r\nHost: garaged\r\n"
    if content_type:
        head += f"Content-Type: {content_type}\r\n"
    head += f"Content-Length: {len(body)}\r\n\r\n"
    return head.encode() + body


# ------------------------------------------------------------------ the controller

def hkdf(secret, salt, info):
    return HKDF(algorithm=hashes.SHA512(), length=32, salt=salt, info=info).derive(secret)


def nonce(counter_or_label):
    if isinstance(counter_or_label, int):
        return b"\0\0\0\0" + struct.pack("<Q", counter_or_label)
    return b"\0\0\0\0" + counter_or_label


# garaged answers a peer's pair-verify M1 Busy past a budget of 16 key exchanges, refilled one
# every 125 ms (DoorCore/HomeKit/HandshakeBudget.swift): this client, one peer, starts its key
# exchanges at most that often, so none is refused and no wait falls inside a timed verify.
KEY_EXCHANGE_EVERY = 0.13
last_key_exchange = 0.0


def pace_key_exchanges():
    """Sleeps until this client may start its next pair-verify without spending the budget."""
    global last_key_exchange
    wait = last_key_exchange + KEY_EXCHANGE_EVERY - time.monotonic()
    if wait > 0:
        time.sleep(wait)
    last_key_exchange = time.monotonic()


class Session:
    """One controller connection: pair-verify in the clear, then HAP's framed ChaCha20-Poly1305
    session (a 2-byte little-endian length as the associated data, at most 1024 bytes of
    ciphertext, a 16-byte tag; a 64-bit little-endian counter per direction as the nonce)."""

    def __init__(self, port, pairing):
        self.pairing = pairing
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.raw = b""       # bytes read, not yet a whole frame
        self.plain = b""     # decrypted bytes, not yet a whole message
        self.stamp = 0       # when the last recv returned
        self.plain_stamp = 0  # when the recv that completed the last decrypted frame returned
        self.write = self.read = None

    def close(self):
        self.sock.close()

    def _recv(self, deadline):
        left = deadline - time.monotonic()
        if left <= 0:
            raise Failed("timed out waiting for the accessory")
        self.sock.settimeout(left)
        try:
            chunk = self.sock.recv(65536)
        except socket.timeout:
            raise Failed("timed out waiting for the accessory") from None
        self.stamp = now_ns()
        if not chunk:
            raise Failed("the accessory closed the connection")
        return chunk

    def _clear_exchange(self, path, items):
        self.sock.sendall(request("POST", path, tlv_encode(items), "application/pairing+tlv8"))
        deadline = time.monotonic() + TIMEOUT
        while (m := split_message(self.raw)) is None:
            self.raw += self._recv(deadline)
        start, _, body, self.raw = m
        if " 200" not in start:
            raise Failed(f"{path}: {start}")
        return tlv_decode(body)

    def verify(self, paced=False):
        """Pair-verify M1..M4 with the pairing hapctl saved; then the session keys. `paced`: the
        caller has just waited for the budget (`pace_key_exchanges`) outside its clock."""
        p = self.pairing
        if not paced:
            pace_key_exchanges()
        mine = x25519.X25519PrivateKey.generate()
        mine_pub = mine.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        m2 = self._clear_exchange("/pair-verify", [(6, b"\x01"), (3, mine_pub)])
        if m2.get(7):
            raise Failed(f"pair-verify M2: TLV error {m2[7][0]}")
        theirs_pub = m2[3]
        shared = mine.exchange(x25519.X25519PublicKey.from_public_bytes(theirs_pub))
        key = hkdf(shared, b"Pair-Verify-Encrypt-Salt", b"Pair-Verify-Encrypt-Info")
        inner = tlv_decode(ChaCha20Poly1305(key).decrypt(nonce(b"PV-Msg02"), m2[5], None))
        accessory_id = inner[1]
        if accessory_id.decode() != p["AccessoryPairingID"]:
            raise Failed(f"pair-verify M2: accessory id {accessory_id!r} is not the paired one")
        try:
            ed25519.Ed25519PublicKey.from_public_bytes(bytes.fromhex(p["AccessoryLTPK"])).verify(
                inner[10], theirs_pub + accessory_id + mine_pub)
        except InvalidSignature:
            raise Failed("pair-verify M2: the accessory's signature does not verify") from None
        me = p["iOSPairingId"].encode()
        signature = ed25519.Ed25519PrivateKey.from_private_bytes(bytes.fromhex(p["iOSDeviceLTSK"])).sign(
            mine_pub + me + theirs_pub)
        sealed = ChaCha20Poly1305(key).encrypt(nonce(b"PV-Msg03"), tlv_encode([(1, me), (10, signature)]), None)
        m4 = self._clear_exchange("/pair-verify", [(6, b"\x03"), (5, sealed)])
        if m4.get(7) or m4.get(6) != b"\x04":
            raise Failed(f"pair-verify M4: {m4}")
        self.write = [ChaCha20Poly1305(hkdf(shared, b"Control-Salt", b"Control-Write-Encryption-Key")), 0]
        self.read = [ChaCha20Poly1305(hkdf(shared, b"Control-Salt", b"Control-Read-Encryption-Key")), 0]
        if self.raw:
            raise Failed("bytes after pair-verify M4")
        return self

    def frames(self, plaintext):
        out = bytearray()
        for i in range(0, len(plaintext), 1024):
            chunk = plaintext[i:i + 1024]
            aad = struct.pack("<H", len(chunk))
            out += aad + self.write[0].encrypt(nonce(self.write[1]), chunk, aad)
            self.write[1] += 1
        return bytes(out)

    def send(self, plaintext):
        """Sends one request's frames with one sendall; the CLOCK_MONOTONIC stamp taken just before."""
        data = self.frames(plaintext)
        t = now_ns()
        self.sock.sendall(data)
        return t

    def message(self, timeout=TIMEOUT):
        """The next whole message (response or EVENT/1.0): (start, headers, body, stamp), stamp
        being when the recv that completed its last frame returned."""
        deadline = time.monotonic() + timeout
        while True:
            m = split_message(self.plain)
            if m:
                start, headers, body, self.plain = m
                return start, headers, body, self.plain_stamp
            while len(self.raw) < 2 or len(self.raw) < 2 + struct.unpack("<H", self.raw[:2])[0] + 16:
                self.raw += self._recv(deadline)
            n = struct.unpack("<H", self.raw[:2])[0]
            aad, sealed, self.raw = self.raw[:2], self.raw[2:2 + n + 16], self.raw[2 + n + 16:]
            self.plain += self.read[0].decrypt(nonce(self.read[1]), sealed, aad)
            self.read[1] += 1
            self.plain_stamp = self.stamp

    def put(self, items):
        """PUT /characteristics; the send stamp. Its answer is read by `until`."""
        body = json.dumps({"characteristics": items}, separators=(",", ":")).encode()
        return self.send(request("PUT", "/characteristics", body, "application/hap+json"))

    def until(self, answered=True, event=None, timeout=TIMEOUT):
        """Reads messages until the pending request is answered (if answered) and an event
        satisfying event(values) has come (if event); the event's arrival stamp."""
        deadline = time.monotonic() + timeout
        seen = None
        while answered or (event and seen is None):
            start, _, body, stamp = self.message(max(0.001, deadline - time.monotonic()))
            if start.startswith("EVENT/1.0"):
                values = {(c["aid"], c["iid"]): c.get("value") for c in json.loads(body)["characteristics"]}
                if event and seen is None and event(values):
                    seen = stamp
            elif start.startswith("HTTP/1.1"):
                if not answered:
                    raise Failed(f"an answer nobody asked for: {start}")
                code = int(start.split()[1])
                if code not in (200, 204):
                    raise Failed(f"the accessory answered {start}: {body[:200]!r}")
                answered = False
        return seen

    def subscribe(self):
        self.put([{"aid": 1, "iid": CURRENT, "ev": True}])
        self.until()
        return self


# ------------------------------------------------------------------ the daemon

class Garaged:
    def __init__(self, args, name, flags, relay=True):
        self.dir = args.dir
        self.name = name
        p = self.path
        subprocess.run([os.path.join(args.bin, "garage-pins"), "init", "--pins", p("pins"), "--master", PIN],
                       check=True, stdout=subprocess.DEVNULL)
        self.log = p("log")
        self.proc = subprocess.Popen(
            [os.path.join(args.bin, "garaged"), "--pins", p("pins"), "--socket", p("sock")]
            + (["--relay", f"sim:{p('trace')}"] if relay else []) + ["--events", p("events"), "--no-ble", "--homekit", "--homekit-port", "0", "--homekit-bind", "127.0.0.1"] + flags,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(self.log, "w"))
        self.pid = self.proc.pid

        def port():
            if self.proc.poll() is not None:
                raise Failed(f"garaged ({name}) exited at start:\n" + open(self.log).read())
            m = re.search(r"INFO homekit .*\bport=(\d+)", open(self.log).read())
            return m and os.path.exists(p("sock")) and int(m.group(1))
        self.port = deadline_wait(f"garaged ({name}) to start", port, step=0.005)

    def path(self, what):
        return os.path.join(self.dir, f"hk-{self.name}.{what}")

    def ask(self, line):
        """One request on the local socket; the reply's lines (a record, then OK)."""
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.settimeout(TIMEOUT)
        s.connect(self.path("sock"))
        s.send(line.encode())
        lines = []
        while True:
            lines += s.recv(65536).decode().splitlines()
            if lines and (lines[-1] == "OK" or lines[-1].startswith("ERR")):
                break
        s.close()
        if lines[-1] != "OK":
            raise Failed(f"{line[len(PIN):]}: {lines[-1]}")
        return lines[:-1]

    def info(self):
        return json.loads(self.ask(PIN + "Lhomekit")[0])

    def trace(self):
        return [tuple(map(int, l.split())) for l in open(self.path("trace")).read().splitlines() if l]

    def cpu(self):
        """(utime + stime in clock ticks, the threads' summed run time in ns)."""
        stat = open(f"/proc/{self.pid}/stat").read()
        fields = stat[stat.rindex(")") + 2:].split()
        ticks = int(fields[11]) + int(fields[12])  # utime, stime: fields 14 and 15 of stat(5)
        ns = 0
        for tid in os.listdir(f"/proc/{self.pid}/task"):
            try:
                ns += int(open(f"/proc/{self.pid}/task/{tid}/schedstat").read().split()[0])
            except (OSError, IndexError):
                pass  # a thread that ended meanwhile
        return ticks, ns

    def memory(self):
        kb = {}
        for line in open(f"/proc/{self.pid}/status"):
            if line.startswith(("VmRSS:", "VmHWM:", "RssAnon:", "RssFile:")):
                kb[line.split(":")[0]] = int(line.split()[1])
        return {"vmrss_kib": kb["VmRSS"], "vmhwm_kib": kb["VmHWM"], "anon_kib": kb["RssAnon"], "file_kib": kb["RssFile"]}

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def pair(g, pairing_file):
    """hapctl pair with the current setup code; its reported seconds and garaged's CPU for it."""
    i = g.info()
    if i["paired"]:
        raise Failed("the accessory is still paired")
    before = g.cpu()
    t0 = now_ns()
    run = subprocess.run([sys.executable, HAPCTL, "pair", "--host", "127.0.0.1", "--port", str(g.port), "--code",
                          i["setup_code"], "--id", i["id"], "--pairing", pairing_file, "--timeout", str(TIMEOUT * 3)],
                         capture_output=True, text=True, timeout=TIMEOUT * 4)
    t1 = now_ns()
    after = g.cpu()
    if run.returncode != 0:
        raise Failed(f"hapctl pair failed ({run.returncode}): {run.stdout.strip()} {run.stderr.strip()}")
    out = json.loads(run.stdout)
    return {"hapctl_s": out["seconds"], "process_s": (t1 - t0) / 1e9,
            "cpu_ticks": after[0] - before[0], "cpu_ns": after[1] - before[1]}


def main():
    a = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    a.add_argument("--bin", required=True, help="the folder of the release garaged and garage-pins")
    a.add_argument("--dir", required=True, help="a scratch folder")
    a.add_argument("--out", required=True, help="where the samples go (JSON)")
    a.add_argument("--failed", help="where a failure's one-line reason goes")
    a.add_argument("--setups", type=int, default=8)
    a.add_argument("--verifies", type=int, default=20)
    a.add_argument("--presses", type=int, default=100)
    a.add_argument("--edges", type=int, default=50)
    a.add_argument("--sessions", type=int, default=8)
    args = a.parse_args()
    if args.setups > 9:
        a.error("--setups: at most 9 (the accessory allows 10 pair-setups a minute)")
    r = {"clk_tck": os.sysconf("SC_CLK_TCK")}
    daemons = []

    def say(msg):
        print(f"bench: homekit: {msg}", file=sys.stderr, flush=True)

    try:
        # ---- A: no sensors, travel 0 (the door is OPEN or CLOSED once the press ends), 50 ms presses
        flags_a = ["--travel-s", "0", "--auto-close-s", "0", "--pulse-ms", "50"]
        g = Garaged(args, "a", flags_a)
        daemons.append(g)
        pairing_file = g.path("controller.json")
        say(f"pair-setup: {args.setups} rounds with hapctl (aiohomekit), `12345Lhomekit reset` between")
        rounds = []
        for n in range(args.setups):
            if n:
                g.ask(PIN + "Lhomekit reset")
                deadline_wait("the reset", lambda: not g.info()["paired"])
            rounds.append(pair(g, pairing_file))
        r["pair_setup"] = {"rounds": rounds, "client": "Tests/homekit/hapctl.py pair (aiohomekit 4.0.1)"}
        pairing = json.load(open(pairing_file))

        say(f"pair-verify: {args.verifies} new sessions")
        walls, per = [], []
        before = g.cpu()
        for _ in range(args.verifies):
            pace_key_exchanges()  # before the clock, so the timed verify never waits for it
            c0 = g.cpu()
            t0 = now_ns()
            s = Session(g.port, pairing).verify(paced=True)
            t1 = now_ns()
            c1 = g.cpu()
            s.close()
            walls.append(t1 - t0)
            per.append(c1[1] - c0[1])
        after = g.cpu()
        r["pair_verify"] = {"wall_ns": walls, "cpu_ns": per, "count": args.verifies,
                            "cpu_ticks_total": after[0] - before[0], "cpu_ns_total": after[1] - before[1]}

        say(f"write-to-press: {args.presses} writes of TargetDoorState, open and close in turns")
        s = Session(g.port, pairing).verify().subscribe()
        samples = []
        seen = len(g.trace())
        for n in range(args.presses):
            target = n % 2  # 0 open, 1 close; the door starts CLOSED
            t = s.put([{"aid": 1, "iid": TARGET, "value": target}])
            # The answer, and the event that the door is where it was sent (the press is over).
            s.until(event=lambda v, target=target: v.get((1, CURRENT)) == target)
            lines = deadline_wait("the press in the trace", lambda: [x for x in g.trace()[seen:] if x[1] == 1])
            samples.append((target, lines[0][0] - t))
            deadline_wait("the release in the trace", lambda: len(g.trace()) >= seen + 2)
            seen = len(g.trace())
            if seen != 2 * (n + 1) + 1:
                raise Failed(f"expected one press per write: the trace has {seen} lines after {n + 1} writes")
        s.close()
        r["write_to_press"] = {"open_ns": [x for k, x in samples if k == 0], "close_ns": [x for k, x in samples if k == 1],
                               "flags": " ".join(flags_a)}
        g.stop()
        daemons.remove(g)

        # ---- B: both sim: limit switches, debounce 0, travel 300 s (a door off its end stays
        # Opening/Closing through the measurement)
        closed, opened = os.path.join(args.dir, "hk-b.closed"), os.path.join(args.dir, "hk-b.open")

        def switch(path, active):
            with open(path + ".new", "w") as f:
                f.write("1\n" if active else "0\n")
            t = now_ns()
            os.rename(path + ".new", path)
            return t
        switch(closed, True)
        switch(opened, False)
        debounce = 0
        flags_b = ["--sensor-closed", f"sim:{closed}", "--sensor-open", f"sim:{opened}", "--sensor-debounce-ms", str(debounce),
                   "--travel-s", "300", "--auto-close-s", "0"]
        g = Garaged(args, "b", flags_b)
        daemons.append(g)
        g.info()  # it answers: started
        mem = {"after_start": g.memory()}
        say(f"memory: after start, then with {args.sessions} verified, subscribed sessions")
        pairing_file = g.path("controller.json")
        pair(g, pairing_file)
        pairing = json.load(open(pairing_file))
        mem["paired"] = g.memory()
        sessions = []
        for _ in range(args.sessions):
            sessions.append(Session(g.port, pairing).verify().subscribe())
        mem["sessions"] = g.memory()
        mem["session_count"] = args.sessions
        for x in sessions:
            x.close()
        r["memory"] = mem

        say(f"edge-to-event: {args.edges} edges of the closed switch, debounce {debounce} ms")
        s = Session(g.port, pairing).verify().subscribe()
        edges = []
        for n in range(args.edges):
            leaving = n % 2 == 0  # the door leaves CLOSED (Opening, 2), then is back (Closed, 1)
            want = 2 if leaving else 1
            t = switch(closed, not leaving)
            arrived = s.until(answered=False, event=lambda v, want=want: v.get((1, CURRENT)) == want)
            edges.append(arrived - t)
        s.close()
        r["edge_to_event"] = {"ns": edges, "debounce_ms": debounce, "flags": " ".join(flags_b)}
        g.stop()
        daemons.remove(g)

        # ---- C: a Security+ 2.0 opener on a pty (Tests/secplus/fakeopener.py): its STATUS written
        # → the EVENT of CurrentDoorState. Its wall button (the control FIFO) starts the door
        # (Opening, 2) and stops it (Stopped, 4) in turns; travel 300 s, so it never arrives.
        tty, control, writes = (os.path.join(args.dir, f"hk-c.{x}") for x in ("tty", "control", "writes"))
        fake = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(__file__), "..", "Tests", "secplus", "fakeopener.py"),
                                 "--log", os.path.join(args.dir, "hk-c.fake.jsonl"), "--link", tty, "--travel-s", "300",
                                 "--control", control, "--answer-ms", "0", "--writes", writes],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline_wait("the fake opener's pty", lambda: os.path.exists(tty))
            flags_c = ["--opener", f"secplus2:{tty}", "--auto-close-s", "0"]
            g = Garaged(args, "c", flags_c, relay=False)
            daemons.append(g)
            pairing_file = g.path("controller.json")
            pair(g, pairing_file)
            pairing = json.load(open(pairing_file))
            s = Session(g.port, pairing).verify().subscribe()
            deadline_wait("the opener's door CLOSED", lambda: json.loads(g.ask(PIN + "Lstatus")[0]).get("door") == "CLOSED")
            say(f"status-to-event: {args.edges} STATUS packets of the opener's door")
            samples = []
            for n in range(args.edges):
                want = 2 if n % 2 == 0 else 4
                before = len(open(writes).readlines()) if os.path.exists(writes) else 0
                with open(control, "w") as c:
                    c.write("button\n")
                arrived = s.until(answered=False, event=lambda v, want=want: v.get((1, CURRENT)) == want)
                wrote = deadline_wait("the STATUS written", lambda: [json.loads(x) for x in open(writes).readlines()[before:]
                                                                     if json.loads(x).get("name") == "STATUS"])
                samples.append(arrived - int(wrote[0]["t"] * 1e9))
            s.close()
            r["status_to_event"] = {"ns": samples, "flags": " ".join(flags_c)}
            g.stop()
            daemons.remove(g)
        finally:
            fake.terminate()
            fake.wait()

        # ---- D: a Security+ 1.0 opener on a pty (Tests/secplus/fakeopener1.py), no panel: garaged
        # polls it every 250 ms and takes a door state after two answers alike. Its radio remote
        # (the control FIFO) moves the door, nothing on the wire: the change (the fake's record of
        # the remote) → the EVENT of CurrentDoorState. The door starts stopped half way, travel
        # 300 s, so it never reaches an end: closing (3) → opening (2) → stopped (4) → closing ...
        tty, control, log1 = (os.path.join(args.dir, f"hk-d.{x}") for x in ("tty", "control", "jsonl"))
        fake = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(__file__), "..", "Tests", "secplus", "fakeopener1.py"),
                                 "--log", log1, "--link", tty, "--travel-s", "300", "--state", "stopped", "--control", control],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline_wait("the fake 1.0 opener's pty", lambda: os.path.exists(tty))
            flags_d = ["--opener", f"secplus1:{tty}", "--opener-listen-s", "1", "--auto-close-s", "0"]
            g = Garaged(args, "d", flags_d, relay=False)
            daemons.append(g)
            pairing_file = g.path("controller.json")
            pair(g, pairing_file)
            pairing = json.load(open(pairing_file))
            s = Session(g.port, pairing).verify().subscribe()
            # STOPPED is also what the door says before the opener answers: wait for the answers.
            deadline_wait("the 1.0 opener's door STOPPED", lambda: (lambda st: st.get("door") == "STOPPED" and st.get("opener", {}).get("state") == "connected")(
                json.loads(g.ask(PIN + "Lstatus")[0])))
            changes = min(args.edges, 30)
            say(f"secplus1 change-to-event: {changes} door changes by the 1.0 opener's remote")
            samples = []
            rng = random.Random(1)
            for n in range(changes):
                want = (3, 2, 4)[n % 3]
                # At a random point of the polling (a turn is four slots of 250 ms): a remote
                # pressed just after the last EVENT would always fall at the same point.
                time.sleep(rng.uniform(0.0, 1.0))
                with open(control, "w") as c:
                    c.write("remote\n")
                arrived = s.until(answered=False, event=lambda v, want=want: v.get((1, CURRENT)) == want)
                moved = deadline_wait("the remote's record", lambda: [json.loads(x) for x in open(log1) if '"who": "remote"' in x][n:])
                samples.append(arrived - int(moved[0]["t"] * 1e9))
                if os.environ.get("BENCH_VERBOSE"):
                    say(f"secplus1 change {n}: {samples[-1] / 1e6:.1f} ms")
            s.close()
            r["secplus1_change_to_event"] = {"ns": samples, "flags": " ".join(flags_d)}
            g.stop()
            daemons.remove(g)
        finally:
            fake.terminate()
            fake.wait()
    except Failed as e:
        for g in daemons:
            sys.stderr.write(f"bench: homekit: garaged ({g.name}) log, last lines:\n" + "".join(open(g.log).readlines()[-15:]))
        print(f"bench: homekit: {e}", file=sys.stderr)
        if args.failed:
            open(args.failed, "w").write(f"{e}\n")
        return 1
    finally:
        for g in daemons:
            g.stop()
    json.dump(r, open(args.out, "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""A fake Security+ 2.0 opener for garaged's tests, written from docs in /work/shared/notes/secplus.md
(the wire) with the standard library only. It opens a pty pair, prints the slave's path (and links
it at --link), and speaks the wire on the master: every byte garaged writes comes back to garaged
(the shared wire's echo), every packet received is logged as a JSON line to --log, GET_STATUS is
answered with STATUS, GET_OPENINGS with OPENINGS, and a DOOR_ACTION press then its release (same
rolling code, above the last accepted from that client) moves the door over --travel-s with a
STATUS at each change. Answers wait 5 ms without holding up what comes meanwhile, and, as any
sender's, wait for a busy line to end. For the drive's
own tests: --busy-s S keeps the line busy (a byte every 0.3 ms, no answers) for S seconds from the
first packet received; --echo-status precedes each STATUS answer with a STATUS carrying the asker's
own client id (what garaged would hear as its echo). A pty carries no break (the kernel's pty has
no break_ctl: TIOCSBRK succeeds and the master reads nothing), so the break shows only as time.
Each packet's log line has "start" (the read that brought its first byte) and "echoed" (when its
last byte went back). LIGHT and LOCK (0 off, 1 on, 2 toggle) switch its light and the lock of its
remotes, reported in STATUS; its light comes on as the door starts to move. --control FIFO takes
lines: "motion" (a MOTION packet), "obstruct" and "clear" (its photo-eyes, in STATUS; broken while closing, it reverses), "button"
(the wall button: a panel's DOOR_ACTION on the wire, then open, close or stop as a one-button opener
does), "remote" (the same with nothing on the wire: a radio remote or keypad), and "battery charging" or
"battery full" (its backup battery's state, said at once in a BATTERY packet). GET_BATTERY is
answered with BATTERY (byte1 6 charging, 8 full) only with --battery charging|full, the state it
starts with: without it the fake has no battery and answers nothing. And, one a line with its argument:
"busy S" (the line busy from now for S seconds, noise as --busy-s makes; the opener answers nothing
meanwhile, as it would not on a busy line); "forge R" (someone on the wire sends a GET_STATUS with the
client id the fake last heard a packet from, garaged's, and rolling code R; the opener accepts it as
it would any higher code, so it then ignores that client's codes up to R, and answers it);
"unplug S" (the serial device goes away: the pty's master is closed and --link removed; S seconds
later a new pty is linked at the same path, the opener itself unchanged); "state NAME" (the opener's
door is now NAME, one of STATES, said in a STATUS); "flap N" (N STATUS packets with the light bit
flipped each time, one a packet's time apart, 22.4 ms: as fast as the 9600-baud line carries them);
"silent" (the opener answers nothing and sends nothing of its own, its queued answers dropped; the
wire still echoes what garaged writes) and "answer" (it speaks again); "panel on" and "panel off"
(a wall panel with a client id of its own asks GET_STATUS every 250 ms; the opener answers it, unless
silent). Each is noted in --log as a JSON line with "at" (not "t": it is no packet). --listen PATH
replaces the pty
with a unix stream socket at PATH: The pty carries the speed garaged sets its side to: at 1200 baud
(garaged trying Security+ 1.0, opener = auto) the fake opener, a 9600-baud UART, understands none of
garaged's bytes (each read is logged as {"garbled": N, "baud": 1200} and not acted on; the wire still
echoes them) and what it sends arrives as one 0xFF a packet. With --listen the fake accepts one connection (qemu's `-chardev
socket,path=PATH`, the host end of a guest's UART, as system-test/run uses it) and speaks the wire
on it the same way, ending when it closes. Usage: fakeopener.py --log FILE [--link PATH | --listen
PATH] [--travel-s S] [--state closed] [--control FIFO] [--battery charging|full]
[--busy-s S] [--echo-status] [--answer-ms 5]"""
import argparse, fcntl, json, os, random, select, signal, socket, sys, termios, time, tty

SYNC = b"\x55\x01\x00"
# Indicator bits 0-3: which stream (0 A, 1 B, 2 C) goes first, second, third.
ORDERS = {0: (0, 2, 1), 1: (2, 0, 1), 2: (0, 1, 2), 4: (1, 2, 0), 5: (1, 0, 2), 6: (2, 1, 0), 8: (1, 2, 0), 9: (2, 1, 0), 10: (0, 1, 2)}
# Indicator bits 4-7: which positions (first, second, third) are inverted.
INVERTS = {0: (1, 1, 0), 1: (0, 1, 0), 2: (0, 0, 1), 4: (1, 1, 1), 5: (1, 0, 1), 6: (0, 1, 1), 8: (1, 0, 0), 9: (0, 0, 0), 10: (1, 0, 1)}
# One packet's time on the 9600-baud line: 19 bytes of 10 bits, the 1.3 ms quiet before it and its
# 1.3 ms break. No sender puts packets on the wire closer than this.
PACKET_S = 19 * 10 / 9600 + 0.0013 + 0.0013
# The wall panel's client id ("panel on"), and how often it asks.
PANEL_CLIENT, PANEL_EVERY = 0x1234567, 0.25
NAMES = {0x080: "GET_STATUS", 0x081: "STATUS", 0x280: "DOOR_ACTION", 0x281: "LIGHT", 0x18C: "LOCK", 0x285: "MOTION",
         0x48B: "GET_OPENINGS", 0x48C: "OPENINGS", 0x09C: "GET_BATTERY", 0x09D: "BATTERY"}
# BATTERY's byte1 (homekit-ratgdo32's Packet.h): 6 charging, 8 full.
BATTERY = {"charging": 6, "full": 8}
STATES = {"unknown": 0, "open": 1, "closed": 2, "stopped": 3, "opening": 4, "closing": 5}


def reverse28(v):
    return int(f"{v:028b}"[::-1], 2)


def parity(fixed, data):
    p = (fixed >> 32) & 0xF
    for i in range(8):
        p ^= (data >> (4 * i)) & 0xF
    return p


def encode_half(digits, fixed20, data16):
    ind = 0
    for d in digits[:4]:
        ind = ind << 2 | d
    a = (fixed20 >> 10) << 8 | data16 >> 8
    b = (fixed20 & 0x3FF) << 8 | data16 & 0xFF
    c = 0
    for d in digits[4:] + digits[:4]:
        c = c << 2 | d
    streams = (a, b, c)
    order, inv = ORDERS[ind >> 4], INVERTS[ind & 0xF]
    placed = [streams[order[i]] ^ (0x3FFFF if inv[i] else 0) for i in range(3)]
    payload = 0
    for bit in range(17, -1, -1):
        for s in placed:
            payload = payload << 1 | (s >> bit) & 1
    return ind << 56 | payload


def encode(rolling, fixed, data):
    data = data & ~0xF000
    data |= parity(fixed, data) << 12
    r = reverse28(rolling)
    t = []
    for _ in range(18):
        t.append(r % 3)
        r //= 3
    t.reverse()
    h1 = encode_half(t[14:18] + t[6:10] + [t[1]], fixed >> 20, data >> 16)
    h2 = encode_half(t[10:14] + t[2:6] + [t[0]], fixed & 0xFFFFF, data & 0xFFFF)
    return SYNC + h1.to_bytes(8, "big") + h2.to_bytes(8, "big")


def decode_half(half):
    ind = half >> 56
    if (half >> 54) & 3 or ind >> 4 not in ORDERS or ind & 0xF not in INVERTS:
        raise ValueError("bad indicator")
    payload = half & ((1 << 54) - 1)
    placed = [0, 0, 0]
    for i in range(54):
        placed[i % 3] = placed[i % 3] << 1 | (payload >> (53 - i)) & 1
    order, inv = ORDERS[ind >> 4], INVERTS[ind & 0xF]
    streams = [0, 0, 0]
    for i in range(3):
        streams[order[i]] = placed[i] ^ (0x3FFFF if inv[i] else 0)
    a, b, c = streams
    cd = [(c >> (16 - 2 * i)) & 3 for i in range(9)]
    inds = [(ind >> (6 - 2 * i)) & 3 for i in range(4)]
    if cd[5:] != inds or 3 in cd:
        raise ValueError("bad rolling digits")
    return inds + cd[:5], (a >> 8) << 10 | b >> 8, (a & 0xFF) << 8 | b & 0xFF


def decode(packet):
    if len(packet) != 19 or packet[:3] != SYNC:
        raise ValueError("not a packet")
    d1, f1, x1 = decode_half(int.from_bytes(packet[3:11], "big"))
    d2, f2, x2 = decode_half(int.from_bytes(packet[11:19], "big"))
    t = [d2[8], d1[8]] + d2[4:8] + d1[4:8] + d2[0:4] + d1[0:4]
    r = 0
    for d in t:
        r = r * 3 + d
    if r >= 1 << 28:
        raise ValueError("rolling out of range")
    fixed, data = f1 << 20 | f2, x1 << 16 | x2
    if parity(fixed, data & ~0xF000) != (data >> 12) & 0xF:
        raise ValueError("parity")
    return reverse28(r), fixed, data


class Opener:
    def __init__(self, args):
        self.args = args
        self.listener = None
        if args.listen:
            # The wire is a socket whose other end connects later (run() accepts it).
            self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.listener.bind(args.listen)
            self.listener.listen(1)
            self.master, self.path = -1, args.listen
        else:
            self.master, slave = os.openpty()
            tty.setraw(slave)
            self.path = os.ttyname(slave)
            os.close(slave)
        self.log = open(args.log, "a", buffering=1)
        self.client = 0x2E1A0F00 | 0x0AB
        self.rolling = 5000
        self.state = STATES[args.state]
        self.accepted = {}   # client -> last rolling accepted
        self.pressed = {}    # client -> rolling of a press waiting for its release
        self.buffer = b""
        self.arrived = []
        # What the fake wrote (noise, answers, echoes) since garaged's previous packet went back:
        # how many times, the longest pause and when last.
        self.writes, self.longest, self.last_write = 0, 0.0, 0.0
        self.first = 0.0
        self.arrive_at = None  # (time, state) the moving door reaches
        self.openings = 17
        self.battery = args.battery  # None: no battery, GET_BATTERY goes unanswered
        self.muted = args.mute
        self.silent = False    # "silent": nothing of the opener's goes out
        self.peer = None       # the client id of the last packet received (garaged's)
        self.replug_at = None  # "unplug": when the device comes back
        self.panel_next = None  # "panel on": when the panel asks next
        self.panel_rolling = 9000
        self.light = self.locked = self.obstructed = False
        self.control_fd = None
        self.writes_log = open(args.writes, "a", buffering=1) if args.writes else None
        if args.control:
            if not os.path.exists(args.control):
                os.mkfifo(args.control)
            # Read and write: the FIFO never reads as ended when a writer closes it.
            self.control_fd = os.open(args.control, os.O_RDWR | os.O_NONBLOCK)
        self.pending = []      # (due, bytes, name): answers waiting their 5 ms
        self.busy = None       # (start, end) of the busy line, once started
        self.last_noise = 0.0
        self.max_gap = 0.0     # the longest pause between noise bytes while busy
        self.max_gap_10s = 0.0  # the same in the busy line's first 10 s (before garaged's give-ups, at 5 s or 10 s)
        self.last_echo = 0.0
        self.packet_start = 0.0
        self.packet_quiet, self.packet_writes = 0.0, 0
        if self.master >= 0:
            fcntl.fcntl(self.master, fcntl.F_SETFL, fcntl.fcntl(self.master, fcntl.F_GETFL) | os.O_NONBLOCK)

    def note(self, **fields):
        """A control taken, in the log: "at", not "t", so that no reader takes it for a packet."""
        self.log.write(json.dumps({"at": time.monotonic(), **fields}) + "\n")

    def send(self, command, nibble=0, byte1=0, byte2=0, client=None, rolling=None, after=0.0):
        """Queues a packet, the opener's unless `client` says, `after` seconds later than its answer delay."""
        if client is None and self.silent:
            return
        fixed = (command & 0xF00) << 24 | (self.client if client is None else client)
        data = byte2 << 24 | byte1 << 16 | nibble << 8 | command & 0xFF
        if rolling is None:
            self.rolling += 1
            rolling = self.rolling
        # A real opener answers after the line has been quiet a while; the loop goes on meanwhile.
        self.pending.append((time.monotonic() + self.args.answer_ms / 1000 + after, encode(rolling, fixed, data),
                             NAMES.get(command, hex(command)), client is None))

    def write(self, data):
        now = time.monotonic()
        if self.last_write:
            self.longest = max(self.longest, now - self.last_write)
        self.writes, self.last_write = self.writes + 1, now
        try:
            os.write(self.master, data)
        except OSError:
            pass  # no one has the slave open, or its buffer is full

    def foreign(self):
        """garaged's side of the pty is set to 1200 baud: nothing crosses the wire intact."""
        if self.listener is not None or self.master < 0:
            return False
        try:
            return termios.tcgetattr(self.master)[4] == termios.B1200
        except termios.error:
            return False

    def busy_now(self, now):
        return self.busy is not None and self.busy[0] <= now < self.busy[1]

    def noise(self, now):
        """While busy: a byte (never a sync) every 0.3 ms, noting the longest pause."""
        if self.last_noise:
            self.max_gap = max(self.max_gap, now - self.last_noise)
            if now - self.busy[0] <= 10.0:
                self.max_gap_10s = max(self.max_gap_10s, now - self.last_noise)
        self.last_noise = now
        self.write(b"\xaa")

    def status(self, after=0.0):
        # byte1 bit 6 set: the beam is clear; byte2 bit 1 the light, bit 0 the lock.
        self.send(0x081, nibble=self.state, byte1=0 if self.obstructed else 0x40,
                  byte2=(2 if self.light else 0) | (1 if self.locked else 0), after=after)

    def switch(self, current, nibble):
        return {0: False, 1: True, 2: not current}.get(nibble, current)

    def control(self, words):
        line, arg = words[0], (words[1] if len(words) > 1 else "")
        if line not in ("motion", "obstruct", "clear", "button", "remote", "garbage", "battery"):
            self.note(control=" ".join(words))
        if line == "battery":
            self.battery = arg if arg in BATTERY else None
            if self.battery:
                self.send(0x09D, byte1=BATTERY[self.battery])
        elif line == "busy":
            self.start_busy(float(arg))
        elif line == "forge":
            self.forge(int(arg))
        elif line == "unplug":
            self.unplug(float(arg))
        elif line == "state":
            self.state, self.arrive_at = STATES[arg], None
            self.status()
        elif line == "flap":
            for i in range(int(arg)):
                self.light = not self.light
                self.status(after=i * PACKET_S)
        elif line == "silent":
            self.silent = True
            self.pending = [p for p in self.pending if not p[3]]
        elif line == "answer":
            self.silent = False
        elif line == "panel":
            self.panel_next = time.monotonic() if arg == "on" else None
        elif line == "motion":
            self.send(0x285)
        elif line in ("obstruct", "clear"):
            self.obstructed = line == "obstruct"
            if self.obstructed and self.state == STATES["closing"]:
                # Its own safety reversal: back up to open, as a real opener does.
                self.state, self.arrive_at = STATES["opening"], (time.monotonic() + self.args.travel_s, STATES["open"])
            self.status()
        elif line in ("button", "remote"):
            if line == "button":
                # The wall panel's DOOR_ACTION on the wire (a toggle's press, then its release), as
                # a real panel sends it; a radio remote or keypad moves the door with nothing on it.
                self.panel_rolling = getattr(self, "panel_rolling", 9100) + 1
                self.send(0x280, nibble=2, byte1=1, byte2=1, client=0x1234567, rolling=self.panel_rolling)
                self.send(0x280, nibble=2, byte1=0, byte2=1, client=0x1234567, rolling=self.panel_rolling)
            moving = self.state in (STATES["opening"], STATES["closing"])
            self.act(3 if moving else 1 if self.state in (STATES["closed"], STATES["stopped"]) else 0)
        elif line == "garbage":
            self.garbage()

    def start_busy(self, seconds):
        """The line busy from now (noise as --busy-s makes), its record written when it ends."""
        now = time.monotonic()
        self.busy = (now, now + seconds)
        self.last_noise, self.max_gap, self.max_gap_10s = 0.0, 0.0, 0.0
        try:  # as --busy-s: no pause of 1.3 ms because the machine is busy (best effort, needs root)
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
        except (OSError, AttributeError):
            pass
        self.note(busy_from=now, busy_until=now + seconds)

    def forge(self, rolling):
        """Someone on the wire sends a GET_STATUS with garaged's client id and `rolling`: the
        opener hears it as it hears any packet, accepts its code and answers it."""
        if self.peer is None:
            self.note(forge_failed="no client heard yet")
            return
        self.send(0x080, client=self.peer, rolling=rolling)
        self.accepted[self.peer] = max(rolling, self.accepted.get(self.peer, -1))
        self.note(forged=rolling, client=self.peer)
        self.status()

    def unplug(self, seconds):
        """The serial device goes away (the pty's master closed, the link removed), and comes
        back as a new pty at the same path `seconds` later. The opener keeps its state."""
        if self.listener is not None or self.master < 0:
            return
        os.close(self.master)
        self.master = -1
        if self.args.link and os.path.lexists(self.args.link):
            os.unlink(self.args.link)
        self.pending, self.buffer, self.arrived = [], b"", []
        self.replug_at = time.monotonic() + seconds
        self.note(unplugged=self.path)

    def replug(self):
        self.replug_at = None
        self.master, slave = os.openpty()
        tty.setraw(slave)
        self.path = os.ttyname(slave)
        os.close(slave)
        fcntl.fcntl(self.master, fcntl.F_SETFL, fcntl.fcntl(self.master, fcntl.F_GETFL) | os.O_NONBLOCK)
        if self.args.link:
            os.symlink(self.path, self.args.link)
        self.note(plugged=self.path)

    def panel(self, now):
        """The wall panel asks GET_STATUS with its own client id; the opener answers it."""
        self.panel_rolling += 1
        self.write(encode(self.panel_rolling, (0x080 & 0xF00) << 24 | PANEL_CLIENT, 0x80))
        if self.writes_log:
            self.writes_log.write(json.dumps({"t": now, "name": "GET_STATUS", "panel": True}) + "\n")
        if not (self.muted or self.silent or self.busy_now(now)):
            self.status()
        self.panel_next = now + PANEL_EVERY

    def garbage(self):
        """Noise and bad packets on the wire, as a faulty device or an attacker would put there:
        random bytes, syncs followed by random bytes, a STATUS saying "open" with one bit flipped
        that its checks catch, a cut packet, and a wall panel's DOOR_ACTION (another device's)."""
        rng = random.Random(31)
        good = encode(self.rolling + 1, (0x081 & 0xF00) << 24 | self.client, 0x40 << 16 | STATES["open"] << 8 | 0x81)
        for n in range(300):
            kind = n % 4
            if kind == 0:
                self.write(bytes(rng.randrange(256) for _ in range(19)))
            elif kind == 1:
                self.write(SYNC + bytes(rng.randrange(256) for _ in range(16)))
            elif kind == 2:
                # A flip the packet's own checks catch (parity, the digits' encoding); some flips
                # still decode (the wire has no checksum over everything), and no receiver can
                # tell those from a real packet.
                while True:
                    flipped = bytearray(good)
                    flipped[rng.randrange(3, 19)] ^= 1 << rng.randrange(8)
                    try:
                        decode(bytes(flipped))
                    except ValueError:
                        break
                self.write(bytes(flipped))
            else:
                self.write(good[:10])
        panel = 0x1234567
        self.write(encode(9000, (0x280 & 0xF00) << 24 | panel, 1 << 16 | 1 << 8 | 0x80))

    def packet(self, raw):
        try:
            rolling, fixed, data = decode(raw)
        except ValueError as e:
            self.log.write(json.dumps({"t": time.monotonic(), "refused": str(e), "bytes": raw.hex()}) + "\n")
            return
        command = (fixed >> 24) & 0xF00 | data & 0xFF
        client = fixed & 0xFFFFFFFF
        if client != self.client:
            self.peer = client
        nibble, byte1, byte2 = (data >> 8) & 0xF, (data >> 16) & 0xFF, (data >> 24) & 0xFF
        now = time.monotonic()
        if self.args.busy_s and self.busy is None:
            self.busy = (now, now + self.args.busy_s)
        accepted = rolling > self.accepted.get(client, -1) or (command == 0x280 and byte1 == 0 and self.pressed.get(client) == rolling)
        self.log.write(json.dumps({"t": now, "start": self.packet_start, "echoed": self.last_echo, "rolling": rolling,
                                   "client": client, "command": command, "name": NAMES.get(command, hex(command)),
                                   "nibble": nibble, "byte1": byte1, "byte2": byte2, "accepted": accepted,
                                   "during_busy": self.busy_now(self.packet_start),
                                   "writes_between": self.packet_writes, "longest_quiet": self.packet_quiet}) + "\n")
        self.writes, self.longest = 0, 0.0  # from this packet's echo on
        if not accepted or self.muted or self.silent or self.busy_now(now):
            return
        self.accepted[client] = rolling
        if command == 0x080:
            if self.args.echo_status:
                # garaged's own client id and code, as its echo would carry them: not news to it.
                self.send(0x081, nibble=STATES["open"], byte1=0x40, client=client, rolling=rolling)
            self.status()
        elif command == 0x48B:
            self.send(0x48C, byte1=self.openings >> 8, byte2=self.openings & 0xFF)
        elif command == 0x09C and self.battery:
            self.send(0x09D, byte1=BATTERY[self.battery])
        elif command == 0x281:
            self.light = self.switch(self.light, nibble)
            self.status()
        elif command == 0x18C:
            self.locked = self.switch(self.locked, nibble)
            self.status()
        elif command == 0x280 and byte1 == 1:
            self.pressed[client] = rolling
        elif command == 0x280 and byte1 == 0 and self.pressed.pop(client, None) == rolling:
            self.act(nibble)

    def act(self, nibble):
        now = time.monotonic()
        if nibble == 1 and self.state in (STATES["closed"], STATES["stopped"], STATES["closing"]):
            self.state, self.arrive_at = STATES["opening"], (now + self.args.travel_s, STATES["open"])
            self.openings += 1
        elif nibble == 0 and self.state in (STATES["open"], STATES["stopped"], STATES["opening"]):
            self.state, self.arrive_at = STATES["closing"], (now + self.args.travel_s, STATES["closed"])
        elif nibble == 3 and self.state in (STATES["opening"], STATES["closing"]):
            self.state, self.arrive_at = STATES["stopped"], None
        else:
            return
        if self.state in (STATES["opening"], STATES["closing"]):
            self.light = True
        self.status()

    def run(self):
        print(self.path, flush=True)
        if self.args.link:
            os.symlink(self.path, self.args.link)
        if self.listener is not None:
            self.connection, _ = self.listener.accept()
            self.master = self.connection.fileno()
            fcntl.fcntl(self.master, fcntl.F_SETFL, fcntl.fcntl(self.master, fcntl.F_GETFL) | os.O_NONBLOCK)
            self.log.write(json.dumps({"t": time.monotonic(), "connected": self.path}) + "\n")
        while True:
            now = time.monotonic()
            timeout = 0.05
            if self.arrive_at:
                timeout = min(timeout, self.arrive_at[0] - now)
            if self.pending and not self.busy_now(now):  # held while the line is busy
                timeout = min(timeout, self.pending[0][0] - now)
            if self.busy_now(now):
                timeout = min(timeout, self.last_noise + 0.0003 - now)
            if self.replug_at is not None:
                timeout = min(timeout, self.replug_at - now)
            if self.panel_next is not None:
                timeout = min(timeout, self.panel_next - now)
            ready, _, _ = select.select(([self.master] if self.master >= 0 else []) +
                                        ([self.control_fd] if self.control_fd is not None else []), [], [], max(0.0, timeout))
            if self.control_fd is not None and self.control_fd in ready:
                for line in os.read(self.control_fd, 4096).decode(errors="replace").splitlines():
                    if line.split():
                        try:
                            self.control(line.split())
                        except (ValueError, KeyError, IndexError) as e:
                            self.note(control_refused=line, why=repr(e))
                ready = [r for r in ready if r != self.control_fd]
            now = time.monotonic()
            if self.replug_at is not None and now >= self.replug_at:
                self.replug()
            if self.busy_now(now):
                self.noise(now)
            elif self.busy is not None and self.last_noise and now >= self.busy[1]:
                self.log.write(json.dumps({"busy_start": self.busy[0], "busy_end": self.last_noise, "max_gap": self.max_gap,
                                            "max_gap_10s": self.max_gap_10s}) + "\n")
                self.last_noise = 0.0
                if not self.args.busy_s:
                    try:  # the noise that needed it is over
                        os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
                    except (OSError, AttributeError):
                        pass
            if self.panel_next is not None and now >= self.panel_next:
                if self.master >= 0:
                    self.panel(now)
                else:
                    self.panel_next = now + PANEL_EVERY  # no wire to speak on while unplugged
            # Nobody sends on a busy line: what waits goes out once it is quiet.
            while self.pending and self.pending[0][0] <= now and not self.busy_now(now):
                _, packet, name, _ = self.pending.pop(0)
                self.write(b"\xff" if self.foreign() else packet)
                if self.writes_log:
                    self.writes_log.write(json.dumps({"t": time.monotonic(), "name": name}) + "\n")
            if self.arrive_at and now >= self.arrive_at[0]:
                self.state, self.arrive_at = self.arrive_at[1], None
                self.status()
            if self.buffer and now - self.first > 0.1:
                self.buffer, self.arrived = b"", []  # a partial packet goes stale after 100 ms
            if not ready or self.master < 0:
                continue
            try:
                data = os.read(self.master, 256)
            except BlockingIOError:
                continue
            except OSError:
                time.sleep(0.01)  # the slave is not open (garaged restarting)
                continue
            if not data and self.listener is not None:
                self.log.write(json.dumps({"t": time.monotonic(), "closed": self.path}) + "\n")
                return  # the socket's other end (qemu) is gone
            arrived = (now, max(self.longest, now - self.last_write), self.writes)
            self.write(data)  # the shared wire: garaged hears itself
            self.last_echo = time.monotonic()
            if self.foreign():
                self.log.write(json.dumps({"t": now, "garbled": len(data), "baud": 1200}) + "\n")
                continue
            if not self.buffer:
                self.first = now
            self.buffer += data
            # When each byte in the buffer was read, and the fake's writes before that read (the
            # longest pause includes the one up to the read).
            self.arrived += [arrived] * len(data)
            while True:
                at = self.buffer.find(SYNC)
                if at < 0:
                    self.buffer, self.arrived = self.buffer[-2:], self.arrived[-2:]
                    break
                if len(self.buffer) - at < 19:
                    self.buffer, self.arrived = self.buffer[at:], self.arrived[at:]
                    break
                self.packet_start, self.packet_quiet, self.packet_writes = self.arrived[at]
                self.packet(self.buffer[at:at + 19])
                self.buffer, self.arrived = self.buffer[at + 19:], self.arrived[at + 19:]
                self.first = now


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--log", required=True)
    p.add_argument("--link")
    p.add_argument("--listen", help="a unix stream socket at this path instead of a pty (one connection)")
    p.add_argument("--travel-s", type=float, default=1.0)
    p.add_argument("--state", choices=sorted(STATES), default="closed")
    p.add_argument("--control", help="a FIFO of commands, one a line: motion, obstruct, clear, button, remote, garbage, battery charging|full, "
                                      "busy S, forge R, unplug S, state NAME, flap N, silent, answer, panel on|off")
    p.add_argument("--battery", choices=sorted(BATTERY), help="a backup battery in this state, said when asked (GET_BATTERY)")
    p.add_argument("--writes", help="log each packet it sends (its name, when it went out) as a JSON line here")
    p.add_argument("--mute", action="store_true", help="answer nothing (an opener unplugged); SIGUSR1 toggles it")
    p.add_argument("--busy-s", type=float, default=0.0)
    p.add_argument("--echo-status", action="store_true")
    p.add_argument("--answer-ms", type=float, default=5.0)
    args = p.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    if args.busy_s:
        try:  # a busy line must not pause 1.3 ms because the machine is busy; best effort (needs root)
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
        except (OSError, AttributeError):
            pass
    if args.link and os.path.lexists(args.link):
        os.unlink(args.link)
    if args.listen and os.path.lexists(args.listen):
        os.unlink(args.listen)
    opener = Opener(args)
    signal.signal(signal.SIGUSR1, lambda *_: setattr(opener, "muted", not opener.muted))
    opener.run()


if __name__ == "__main__":
    main()

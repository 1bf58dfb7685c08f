#!/usr/bin/env python3
"""A fake Security+ 1.0 opener for garaged's tests, written from /work/shared/notes/secplus1.md (the
wire) with the standard library only. It opens a pty pair, prints the slave's path (and links it at
--link), and speaks the wire on the master: every byte garaged writes comes back to garaged (the
shared wire's echo), the three questions are answered --answer-ms later (0x38 the door: 1 opening,
2 open, 4 closing, 5 closed, 6 stopped in the low bits; 0x39 the photo-eye, 0 clear; 0x3A the
light in bit 2 and the lock in bit 3, set = unlocked), a door press (0x30) toggles its door as a
one-button opener does (closed -> opening -> stopped -> closing -> opening; open -> closing), moving
over --travel-s from one end to the other, a light press (0x32) toggles its light, a lock press
(0x34) held 3 s or more before its release (0x35) toggles the lock of its remotes. A pty carries no
parity (the kernel clears PARENB on ptys; a real UART drops a byte with bad parity before garaged
reads it), but it carries the speed: the first byte garaged writes is logged with the speed its side
is set to; at 9600 baud (garaged trying Security+ 2.0, opener = auto) neither the opener nor the
panel understands garaged's bytes (each is logged with "who": "garbled" and not acted on; the wire
still echoes it) and what they send reaches garaged as a 0x00 a byte. --panel: a wall panel polls it every 250 ms (0x38, 0x3A, 0x39), its questions and the
answers on the wire for garaged to hear. --control FIFO takes lines: "remote" (its radio remote: the
door toggles, nothing on the wire), "panel-press" (the panel's door button: 0x30, 0x31 500 ms later,
on the wire, and the door toggles), "obstruct" and "clear" (its photo-eye; broken while closing, the
door reverses), "garbage" (a byte no question awaited), "idle" (0xFF, the byte a real line carries
idle, there with bad parity), "mute" and "unmute" (it answers nothing, as unplugged);
--control-file FILE takes the same lines appended to a regular file (the system test's guest
writes them through a shared folder, where a FIFO does not reach). Each byte on the wire is logged as a JSON line to --log: "t", "who" (garaged, panel,
opener), "byte", the door's "state" then, and for garaged's bytes "near_ms", how far it was from the
nearest byte the panel or the opener put on the wire before it, and for theirs from garaged's
before them (a collision when under a byte's 9 ms).
Usage: fakeopener1.py --log FILE [--link PATH] [--travel-s S] [--state closed] [--control FIFO]
[--control-file FILE] [--panel] [--answer-ms 10]"""
import argparse, fcntl, json, os, select, signal, sys, termios, time, tty

STATES = {"opening": 0x01, "open": 0x52, "closing": 0x04, "closed": 0x55, "stopped": 0x56}
SPEEDS = {getattr(termios, "B%d" % b): b for b in (1200, 2400, 4800, 9600, 19200, 38400) if hasattr(termios, "B%d" % b)}


class Opener:
    def __init__(self, args):
        self.args = args
        self.master, slave = os.openpty()
        tty.setraw(slave)
        self.path = os.ttyname(slave)
        os.close(slave)
        fcntl.fcntl(self.master, fcntl.F_SETFL, fcntl.fcntl(self.master, fcntl.F_GETFL) | os.O_NONBLOCK)
        self.log = open(args.log, "a", buffering=1)
        self.state = args.state
        self.position = {"closed": 0.0, "open": 1.0}.get(args.state, 0.5)
        self.moved_at = time.monotonic()
        self.light = False
        self.unlocked = True
        self.obstructed = False
        self.muted = False
        self.lock_pressed = None
        self.pending = []        # (due, byte, who): bytes the fake puts on the wire later
        self.ours = []           # times of the panel's and the opener's bytes
        self.garaged = []        # times of garaged's bytes, for near_ms
        self.first = True
        self.panel_next = time.monotonic() if args.panel else None
        self.panel_index = 0
        self.control_fd = None
        if args.control:
            if not os.path.exists(args.control):
                os.mkfifo(args.control)
            self.control_fd = os.open(args.control, os.O_RDWR | os.O_NONBLOCK)
        self.control_file = open(args.control_file, "a+") if args.control_file else None
        if self.control_file:
            self.control_file.seek(0, os.SEEK_END)

    def record(self, who, byte, **extra):
        line = {"t": time.monotonic(), "who": who, "byte": byte, "state": self.state}
        line.update(extra)
        self.log.write(json.dumps(line) + "\n")

    def advance(self, now):
        """The door moves on to now; a moving door reaches its end after its share of the travel."""
        dt = (now - self.moved_at) / self.args.travel_s
        self.moved_at = now
        if self.state == "opening":
            self.position = min(1.0, self.position + dt)
            if self.position >= 1.0:
                self.state = "open"
        elif self.state == "closing":
            self.position = max(0.0, self.position - dt)
            if self.position <= 0.0:
                self.state = "closed"

    def toggle(self):
        self.advance(time.monotonic())
        self.state = {"closed": "opening", "opening": "stopped", "stopped": "closing", "open": "closing",
                      "closing": "opening"}[self.state]
        if self.state in ("opening", "closing"):
            self.light = True

    def answer(self, question):
        self.advance(time.monotonic())
        if question == 0x38:
            return STATES[self.state]
        if question == 0x39:
            return 0x01 if self.obstructed else 0x00
        return 0x50 | (0x04 if self.light else 0) | (0x08 if self.unlocked else 0)

    def put(self, delay, byte, who):
        self.pending.append((time.monotonic() + delay, byte, who))
        self.pending.sort()

    def heard(self, byte):
        """A byte on the wire (garaged's or the panel's): the opener acts on it."""
        if byte in (0x38, 0x39, 0x3A):
            if not self.muted:
                self.put(self.args.answer_ms / 1000, self.answer(byte), "opener")
        elif byte == 0x30:
            self.toggle()
        elif byte == 0x32:
            self.light = not self.light
        elif byte == 0x34:
            self.lock_pressed = time.monotonic()
        elif byte == 0x35:
            if self.lock_pressed is not None and time.monotonic() - self.lock_pressed >= 3.0:
                self.unlocked = not self.unlocked
            self.lock_pressed = None

    def control(self, line):
        if line == "remote":
            self.toggle()
            self.record("remote", None)
        elif line == "panel-press":
            self.put(0.0, 0x30, "panel")
            self.put(0.5, 0x31, "panel")
        elif line in ("obstruct", "clear"):
            self.obstructed = line == "obstruct"
            if self.obstructed and self.state == "closing":
                self.advance(time.monotonic())
                self.state = "opening"  # its own safety reversal
        elif line == "garbage":
            self.put(0.0, 0x9C, "opener")
        elif line == "idle":
            self.put(0.0, 0xFF, "opener")
        elif line in ("mute", "unmute"):
            self.muted = line == "mute"

    def foreign(self):
        """garaged's side of the pty is set to 9600 baud: nothing crosses the wire intact."""
        try:
            return SPEEDS.get(termios.tcgetattr(self.master)[4], 0) == 9600
        except termios.error:
            return False

    def write(self, byte, who):
        now = time.monotonic()
        try:
            os.write(self.master, bytes([0x00 if who != "echo" and self.foreign() else byte]))
        except OSError:
            return  # nobody has the slave open
        if who != "echo":
            self.ours.append(now)
            near = min((abs(now - t) for t in self.garaged[-8:]), default=1.0)
            self.record(who, byte, near_ms=round(near * 1000, 1))
            if who == "panel":
                self.heard(byte)

    def run(self):
        print(self.path, flush=True)
        if self.args.link:
            os.symlink(self.path, self.args.link)
        while True:
            now = time.monotonic()
            timeout = 0.05
            if self.pending:
                timeout = min(timeout, self.pending[0][0] - now)
            if self.panel_next is not None:
                timeout = min(timeout, self.panel_next - now)
            fds = [self.master] + ([self.control_fd] if self.control_fd is not None else [])
            ready, _, _ = select.select(fds, [], [], max(0.0, timeout))
            if self.control_fd is not None and self.control_fd in ready:
                for line in os.read(self.control_fd, 4096).decode(errors="replace").split():
                    self.control(line)
            if self.control_file:
                self.control_file.seek(self.control_file.tell())  # forget EOF: see what was appended
                for line in self.control_file.read().split():
                    self.control(line)
            now = time.monotonic()
            if self.panel_next is not None and now >= self.panel_next:
                if not self.muted:
                    self.put(0.0, (0x38, 0x3A, 0x39)[self.panel_index % 3], "panel")
                    self.panel_index += 1
                self.panel_next += 0.25
            while self.pending and self.pending[0][0] <= time.monotonic():
                _, byte, who = self.pending.pop(0)
                self.write(byte, who)
            self.advance(time.monotonic())
            if self.master not in ready:
                continue
            try:
                data = os.read(self.master, 256)
            except BlockingIOError:
                continue
            except OSError:
                time.sleep(0.01)  # the slave is not open (garaged restarting)
                continue
            if self.foreign():
                for byte in data:
                    self.record("garbled", byte, baud=9600)
                    self.write(byte, "echo")
                continue
            for byte in data:
                at = time.monotonic()
                near = min((abs(at - t) for t in self.ours[-8:]), default=1.0)
                extra = {"near_ms": round(near * 1000, 1)}
                if self.first:
                    self.first = False
                    extra["baud"] = SPEEDS.get(termios.tcgetattr(self.master)[4], 0)
                self.garaged.append(at)
                self.record("garaged", byte, **extra)
                self.write(byte, "echo")  # the shared wire: garaged hears itself
                self.heard(byte)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--log", required=True)
    p.add_argument("--link")
    p.add_argument("--travel-s", type=float, default=4.0)
    p.add_argument("--state", choices=sorted(STATES), default="closed")
    p.add_argument("--control", help="a FIFO of commands: remote, panel-press, obstruct, clear, garbage, mute, unmute")
    p.add_argument("--control-file", help="a regular file of the same commands, read as lines are appended")
    p.add_argument("--panel", action="store_true", help="a wall panel polls the opener every 250 ms")
    p.add_argument("--answer-ms", type=float, default=10.0)
    args = p.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    if args.link and os.path.lexists(args.link):
        os.unlink(args.link)
    Opener(args).run()


if __name__ == "__main__":
    main()

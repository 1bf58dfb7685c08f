#!/usr/bin/env bash
# Splits request-to-relay into its steps, garaged beside the C floor (bench/floor.c), from the
# kernel's own trace points, so that the gap `scripts/bench.sh --only latency` reports can be
# put on a step (docs/performance.md, issue 40 item 6, has what it found).
#
# 1. Presses: garaged and the floor as the bench starts them, bench/client.c pressing ROUNDS
#    times a series (default 40) while `perf record -a` takes the scheduler's wake-ups and
#    switches and every system call; for each press, the median time of each step: the client's
#    send to the loop's wake-up (sched_waking), to the loop on a CPU (sched_switch), to ppoll's
#    (poll's) return, to recvmsg (recv), recvmsg itself, and from its return to the relay's
#    trace write, the step in user space.
# 2. Idle: `12345S` asked on the local socket at gaps of 0.2 to 50 ms, the loop thread's (the
#    floor's) system calls traced; the median time from the request's read to the answer's
#    send (all user space: the same work at every gap) by how long the server was idle before.
#
# Needs perf and the right to trace the whole machine (root, or kernel.perf_event_paranoid -1).
# Tracing adds about a microsecond a step to garaged and the floor alike: compare the two, not
# the totals with the bench's. About a minute once built.
#
#   scripts/latency-split.sh [ROUNDS]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export GARAGED_CONFIG=
rounds="${1:-40}"
say() { echo "latency-split: $*" >&2; }
command -v perf >/dev/null || { say "needs perf (apt-get install linux-perf)"; exit 2; }

scratch=.build-bench
say "building garaged (the Makefile's release flags) in $scratch"
make --no-print-directory build SCRATCH="$scratch" >/dev/null 2>&1 ||
    { make --no-print-directory build SCRATCH="$scratch" 2>&1 | tail -30 >&2; exit 1; }
bin="$scratch/release"
w="$(mktemp -d /tmp/garaged-split.XXXXXX)"
pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$w"
}
trap cleanup EXIT
cc -O2 -Wall -o "$w/floor" bench/floor.c
cc -O2 -Wall -o "$w/client" bench/client.c
"$bin/garage-pins" init --pins "$w/pins" --master 12345 >/dev/null
"$bin/garaged" --pins "$w/pins" --socket "$w/g.sock" --att-socket "$w/g.att" --relay "sim:$w/g.trace" \
    --events "$w/g.events" --no-ble --travel-s 0 --auto-close-s 0 --pulse-ms 50 2>"$w/g.log" &
g=$!
pids+=("$g")
"$w/floor" "$w/f.sock" "$w/f.att" "$w/f.trace" 50 2>"$w/f.log" &
f=$!
pids+=("$f")
for ((i = 0; i < 500; i++)); do [ -S "$w/g.att" ] && [ -S "$w/f.att" ] && break; sleep 0.01; done
if [ ! -S "$w/g.att" ] || [ ! -S "$w/f.att" ]; then
    cat "$w/g.log" "$w/f.log" >&2
    say "garaged or the floor did not start"
    exit 1
fi
loop=""
for t in /proc/"$g"/task/*; do [ "$(cat "$t/comm")" = door-loop ] && loop="${t##*/}"; done
[ -n "$loop" ] || { say "garaged has no door-loop thread"; exit 1; }

# Only the lines of the client, garaged's loop and the floor, and wake-ups and switches to them.
keep() { grep -E "^ *[^ ]+ +($1) |pid=($1) " || true; }

say "1. presses: $rounds a series, local socket and ATT, traced"
perf record -q -a -e sched:sched_waking,sched:sched_switch,raw_syscalls:sys_enter,raw_syscalls:sys_exit \
    -o "$w/press.data" 2>"$w/perf.log" &
rec=$!
sleep 0.5
"$w/client" latency "$w/press.txt" "$rounds" 10 "floor=$w/f.sock,$w/f.att,$w/f.trace" "garaged=$w/g.sock,$w/g.att,$w/g.trace" &
c=$!
wait "$c"
kill -INT "$rec"
wait "$rec" || true
perf script -i "$w/press.data" --ns -F comm,tid,cpu,time,event,trace 2>/dev/null | keep "$loop|$f|$c" >"$w/press.ev"
rm -f "$w/press.data"

say "2. idle: 12345S at gaps of 0.2 to 50 ms, traced"
ask() {
    python3 - "$1" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
for gap in (0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05):
    for _ in range(40):
        s.send(b"12345S\n")
        s.recv(100)
        time.sleep(gap)
PY
}
for who in g f; do
    target=$loop
    [ "$who" = f ] && target=$f
    perf record -q -e raw_syscalls:sys_enter,raw_syscalls:sys_exit -t "$target" -o "$w/idle.data" 2>>"$w/perf.log" &
    rec=$!
    sleep 0.3
    ask "$w/$who.sock"
    kill -INT "$rec"
    wait "$rec" || true
    perf script -i "$w/idle.data" --ns -F comm,tid,cpu,time,event,trace 2>/dev/null >"$w/idle.$who.ev"
done

python3 - "$w" "$loop" "$f" "$c" <<'PY'
import collections, re, statistics, sys
w, loop, floor, client = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
line = re.compile(r'^\s*(.+?)\s+(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\S+):\s*(.*)$')
POLL, RECV, SEND, WRITE = ('NR 271 ', 'NR 7 '), ('NR 47 ', 'NR 45 '), 'NR 44 ', 'NR 1 '

def events(path):
    out = []
    for text in open(path):
        m = line.match(text)
        if m:
            out.append((float(m.group(4)) * 1e6, int(m.group(2)), m.group(5).split(':')[-1], m.group(6)))
    return sorted(out, key=lambda e: e[0])

steps = ['send -> wake-up', 'wake-up -> on CPU', 'on CPU -> poll returns', 'poll returns -> recv',
         'recv', 'recv returns -> relay write', 'total']
ev = events(w + '/press.ev')
series = collections.defaultdict(list)
for i, (t, tid, e, r) in enumerate(ev):
    if tid != client or e != 'sys_enter' or not r.startswith(SEND):
        continue
    kind = 'ATT' if int(r.split('(')[1].split(',')[2], 16) == 11 else 'local'
    server, at = None, {}
    for t2, tid2, e2, r2 in ev[i + 1:]:
        if t2 - t > 1000:
            break
        if server is None:
            if e2 == 'sched_waking' and tid2 == client:
                p = int(re.search(r' pid=(\d+)', r2).group(1))
                if p in (loop, floor):
                    server, at['waking'] = p, t2
            continue
        if e2 == 'sched_switch' and 'next_pid=%d ' % server in r2 and 'cpu' not in at:
            at['cpu'] = t2
        if tid2 != server:
            continue
        if e2 == 'sys_exit' and r2.startswith(POLL) and 'poll' not in at:
            at['poll'] = t2
        elif e2 == 'sys_enter' and r2.startswith(RECV) and 'poll' in at and 'recv' not in at:
            at['recv'] = t2
        elif e2 == 'sys_exit' and r2.startswith(RECV) and 'recv' in at and 'got' not in at:
            at['got'] = t2
        elif e2 == 'sys_enter' and 'got' in at:
            if r2.startswith(WRITE):
                at['write'] = t2
            break
    if len(at) == 6:
        marks = [t, at['waking'], at['cpu'], at['poll'], at['recv'], at['got'], at['write']]
        split = [b - a for a, b in zip(marks, marks[1:])] + [at['write'] - t]
        series[('garaged' if server == loop else 'floor', kind)].append(split)

print('1. Request -> relay, traced (medians, µs; presses counted):')
for kind in ('local', 'ATT'):
    g, f = series.get(('garaged', kind)), series.get(('floor', kind))
    if not g or not f:
        print('   %s: too few presses traced' % kind)
        continue
    print('   %-28s %8s %8s %8s   (%s: garaged %d, floor %d)' % ('', 'garaged', 'floor', 'gap', kind, len(g), len(f)))
    for k, name in enumerate(steps):
        a, b = statistics.median(x[k] for x in g), statistics.median(x[k] for x in f)
        print('   %-28s %8.2f %8.2f %+8.2f' % (name, a, b, a - b))

print('2. Request read -> answer sent (user space) by the idle before it (medians, µs):')
bins = [(0, 400), (400, 800), (800, 1500), (1500, 3000), (3000, 7000), (7000, 15000), (15000, 30000), (30000, 1e12)]
for who, name in (('g', 'garaged'), ('f', 'floor')):
    ev, last, got = events('%s/idle.%s.ev' % (w, who)), None, []
    for i, (t, tid, e, r) in enumerate(ev):
        if e == 'sys_exit' and r.startswith(RECV) and not r.rstrip().endswith('= -11'):
            for t2, _, e2, r2 in ev[i + 1:i + 20]:
                if e2 == 'sys_enter' and r2.startswith(SEND):
                    if last is not None:
                        got.append((t - last, t2 - t))
                    break
            last = t
    cells = []
    for lo, hi in bins:
        v = [d for gap, d in got if lo <= gap < hi]
        if v:
            cells.append('%s-%s ms %.1f' % (lo / 1000, hi / 1000 if hi < 1e12 else '', statistics.median(v)))
    print('   %-8s %s' % (name, ', '.join(cells)))
PY

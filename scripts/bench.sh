#!/usr/bin/env bash
# The performance figures of garaged in one command: builds the release binaries (static Swift
# stdlib) into .build-bench, measures them on the simulated relay next to a minimal C server
# (bench/floor.c, "the floor") with one C client (bench/client.c), runs DoorCore's in-process
# benchmarks (bench/swift, ordo-one/benchmark), prints one markdown table and writes the same
# figures as JSON. bench/README.md says what each figure means.
#
# Usage: scripts/bench.sh [--quick] [--only SECTIONS] [--json FILE] [--rounds N] [--compare FILE]
#   --quick        fewer rounds everywhere: done in under a minute (once built)
#   --only LIST    comma-separated sections, in any order (default: all):
#                    latency  request-to-relay, local socket and ATT, garaged and the floor (1, 2, 9)
#                    flood    the same while another client floods the local socket (3)
#                    width    press-width error at 300 ms, idle and both cores busy (4)
#                    doors    request-to-relay on door 2 of two, alone and while door 1
#                             presses (11)
#                    opener   request to the first byte on the wire for a Security+ 2.0
#                             opener door, on a pty with the fake opener (12); request to
#                             the command's last byte through a real kernel's 16550 is
#                             `system-test/run --only opener-uart` (root, qemu: about 70 s);
#                             the same for a Security+ 1.0 door, alone and with a wall
#                             panel polling every 250 ms (the wait for a gap)
#                    idle     wake-ups per second of the idle daemon, by thread, and of one
#                             as a Pi runs it (Bluetooth, MQTT with commands, the watchdog) (5)
#                    memory   resident memory after start and after 100,000 requests,
#                             and the `12345S` round trip over those requests (6)
#                    startup  exec to the socket accepting, and to the first answer (7)
#                    homekit  HomeKit (HAP over IP, bench/homekit.py): pair-setup and
#                             pair-verify, wall time and garaged's CPU; write-to-press;
#                             sim: switch edge to EVENT; Security+ 2.0 STATUS and 1.0 door
#                             change to EVENT; memory with 8 sessions (needs
#                             aiohomekit: scripts/homekit-tools.sh installs it from PyPI once)
#                    hkflood  the owner's `12345S` (a new connection each, as garage-pins
#                             asks) alone and while one stranger floods HomeKit's
#                             pair-verify M1 on 30 connections (bench/verify-flood.py; goal:
#                             median under 50 ms), garaged's CPU meanwhile
#                    size     stripped static binaries (8)
#                    swift    DoorCore in process, ordo-one/benchmark (10)
#   --json FILE    where the JSON goes (default bench/results/latest.json; the table goes
#                  beside it as .md)
#   --rounds N     presses per latency series, HomeKit's write-to-press too (default 200,
#                  60 with --quick)
#   --compare FILE add a column with another run's figures (its JSON), e.g. a copy of
#                  bench/results/latest.json taken before a change
# `scripts/bench.sh --only latency` is the quick loop for work on the request-to-relay path
# (about 45 s once built).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# Without --config garaged reads /etc/garaged.conf when it exists: not the installed package's file here.
export GARAGED_CONFIG=

args="$*"
quick=0
compare=""
only="latency,flood,width,doors,opener,idle,memory,startup,homekit,hkflood,size,swift"
json="bench/results/latest.json"
rounds=""
while (($#)); do
    case "$1" in
        --quick) quick=1 ;;
        --only) only="$2"; shift ;;
        --only=*) only="${1#--only=}" ;;
        --json) json="$2"; shift ;;
        --json=*) json="${1#--json=}" ;;
        --compare) compare="$2"; shift ;;
        --compare=*) compare="${1#--compare=}" ;;
        --rounds) rounds="$2"; shift ;;
        --rounds=*) rounds="${1#--rounds=}" ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
for s in ${only//,/ }; do
    case "$s" in latency|flood|width|doors|opener|idle|memory|startup|homekit|hkflood|size|swift) ;; *) echo "bench: unknown section $s" >&2; exit 2 ;; esac
done
want() { [[ ",$only," == *",$1,"* ]]; }

# How much of everything: the full run, or --quick.
if ((quick)); then
    : "${rounds:=60}"; flood_rounds=40; block=10; presses=8; idle_s=3; requests=20000; starts=5
    hk_setups=3; hk_verifies=10; hk_edges=20; hkf_rounds=1; hkf_asks=30
else
    : "${rounds:=200}"; flood_rounds=150; block=10; presses=40; idle_s=10; requests=100000; starts=10
    hk_setups=8; hk_verifies=20; hk_edges=50; hkf_rounds=3; hkf_asks=50
fi

say() { echo "bench: $*" >&2; }
t_start=$(date +%s)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

# What the script needs beyond scripts/deps.sh's list: a C compiler, strip, python3 (the report).
extra=()
command -v cc >/dev/null || extra+=(gcc)
command -v strip >/dev/null || extra+=(binutils)
command -v python3 >/dev/null || extra+=(python3)
command -v make >/dev/null || extra+=(make)
scripts/deps.sh "${extra[@]}"

scratch="$root/.build-bench"
w="$(mktemp -d /tmp/garaged-bench.XXXXXX)"
pids=()
busy=()
cleanup() {
    local p
    for p in "${busy[@]}" "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${busy[@]}" "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    rm -rf "$w"
}
trap cleanup EXIT
# The Makefile's release flags (make, make deb): the benchmark measures what the package ships.
read -r -a swiftflags < <(make --no-print-directory -s print-swiftflags)
say "building garaged (${swiftflags[*]}) in .build-bench"
swift build "${swiftflags[@]}" --scratch-path "$scratch" >"$w/build.log" 2>&1 \
    || { tail -30 "$w/build.log" >&2; exit 1; }
bin="$(swift build "${swiftflags[@]}" --scratch-path "$scratch" --show-bin-path)"
# How many of the functions packaging/hot-path.order lays out first this build has: a renamed
# one falls out of the order until scripts/hot-path.sh runs again.
hot_listed=$(grep -vc '^#' packaging/hot-path.order)
hot_found=$(comm -12 <(nm "$bin/garaged" | awk '{print $NF}' | sort -u) <(grep -v '^#' packaging/hot-path.order | sort -u) | wc -l)
say "hot path: $hot_found of the $hot_listed functions in packaging/hot-path.order are in the build"
mkdir -p "$scratch/c"
cc -O2 -Wall -o "$scratch/c/floor" bench/floor.c
cc -O2 -Wall -o "$scratch/c/client" bench/client.c
floor="$scratch/c/floor"
client="$scratch/c/client"

"$bin/garage-pins" init --pins "$w/pins" --master 12345 >/dev/null

# garaged NAME PULSE_MS: a daemon on $w/NAME.{sock,att,trace}, as the figures need it: no
# Bluetooth, travel 0 (the door is OPEN or CLOSED once the press ends), no auto-close.
started=""
garaged() {
    cp "$w/pins" "$w/$1.pins"
    "$bin/garaged" --pins "$w/$1.pins" --socket "$w/$1.sock" --att-socket "$w/$1.att" --relay "sim:$w/$1.trace" \
        --events "$w/$1.events" --no-ble --travel-s 0 --auto-close-s 0 --pulse-ms "$2" 2>"$w/$1.log" &
    started=$!
    pids+=("$started")
    wait_for "$w/$1.att" "$1"
}
floor() {
    "$floor" "$w/$1.sock" "$w/$1.att" "$w/$1.trace" "$2" 2>"$w/$1.log" &
    started=$!
    pids+=("$started")
    wait_for "$w/$1.att" "$1"
}
wait_for() {
    local i
    for ((i = 0; i < 500; i++)); do [ -S "$1" ] && return 0; sleep 0.01; done
    echo "bench: $2 did not start:" >&2
    cat "$w/$2.log" >&2
    exit 1
}
stop() {
    local p keep=()
    kill "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
    for p in "${pids[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done
    pids=("${keep[@]}")
}
target() { echo "$1=$w/$2.sock,$w/$2.att,$w/$2.trace"; }

# Context switches of every thread of PID: `TID NAME SWITCHES` lines.
switches() {
    local f d
    for f in /proc/"$1"/task/*; do
        d=$(awk '/^Name:/ {n=$2} /^(non)?voluntary_ctxt_switches:/ {s+=$2} END {print n, s}' "$f/status" 2>/dev/null) || continue
        echo "${f##*/} $d"
    done
}

if want latency; then
    head -1 /proc/stat >"$w/cpu-latency.start"
    say "latency: $rounds presses per series, local socket and ATT, garaged and the floor in turns of $block"
    garaged lat 50; g=$started
    floor flat 50; f=$started
    "$client" latency "$w/latency.txt" "$rounds" "$block" "$(target floor flat)" "$(target garaged lat)"
    head -1 /proc/stat >"$w/cpu-latency.end"
    stop "$g"; stop "$f"
fi

if want flood; then
    head -1 /proc/stat >"$w/cpu-flood.start"
    say "flood: $flood_rounds presses per series while another client floods the local socket"
    garaged fl 50; g=$started
    floor ffl 50; f=$started
    "$client" latency "$w/flood.txt" "$flood_rounds" "$block" --flood "$(target floor ffl)" "$(target garaged fl)"
    head -1 /proc/stat >"$w/cpu-flood.end"
    stop "$g"; stop "$f"
fi

if want width; then
    head -1 /proc/stat >"$w/cpu-width.start"
    say "width: $presses presses at 300 ms idle, then $presses with both cores busy"
    garaged wid 300; g=$started
    "$client" latency "$w/width-idle.txt" "$presses" "$presses" --local "$(target garaged wid)"
    head -1 /proc/stat >"$w/cpu-width.end"
    for _ in 1 2; do sh -c 'while :; do :; done' & busy+=($!); done
    "$client" latency "$w/width-loaded.txt" "$presses" "$presses" --local "$(target garaged wid)"
    for p in "${busy[@]}"; do kill "$p"; wait "$p" 2>/dev/null || true; done
    busy=()
    stop "$g"
fi

if want doors; then
    head -1 /proc/stat >"$w/cpu-doors.start"
    say "doors: $rounds presses of door 2, alone and while door 1 presses, in turns"
    cp "$w/pins" "$w/dr.pins"
    door() { echo "--door.$1.relay" "sim:$w/dr.$1.trace" "--door.$1.pulse-ms" "$2" "--door.$1.travel-s" 0 "--door.$1.auto-close-s" 0; }
    # shellcheck disable=SC2046  # each flag and value is one word
    "$bin/garaged" --pins "$w/dr.pins" --socket "$w/dr.sock" --att-socket "$w/dr.att" --events "$w/dr.events" --no-ble \
        $(door one 300) $(door two 50) 2>"$w/dr.log" &
    g=$!
    pids+=("$g")
    wait_for "$w/dr.att" dr
    "$client" doors "$w/doors.txt" "$((rounds * 2))" "garaged=$w/dr.sock,$w/dr.one.trace,$w/dr.two.trace"
    head -1 /proc/stat >"$w/cpu-doors.end"
    stop "$g"
fi

if want opener; then
    head -1 /proc/stat >"$w/cpu-opener.start"
    opener_rounds=$((quick ? 20 : 100))
    say "opener: $opener_rounds presses of a Security+ 2.0 door, request to the first byte on the pty"
    cp "$w/pins" "$w/op.pins"
    python3 Tests/secplus/fakeopener.py --log "$w/op.fake.jsonl" --link "$w/op.tty" --travel-s 0.05 --control "$w/op.control" >"$w/op.fake.log" 2>&1 &
    fake=$!
    pids+=("$fake")
    for ((i = 0; i < 500; i++)); do [ -L "$w/op.tty" ] && break; sleep 0.01; done
    "$bin/garaged" --pins "$w/op.pins" --socket "$w/op.sock" --events "$w/op.events" --no-ble --travel-s 0 \
        --auto-close-s 0 --opener "secplus2:$w/op.tty" 2>"$w/op.log" &
    g=$!
    pids+=("$g")
    wait_for "$w/op.sock" op
    python3 bench/opener.py "$w/op.sock" "$w/op.fake.jsonl" "$opener_rounds" "$w/opener.txt" "$w/op.control"
    stop "$g"; stop "$fake"
    # Security+ 1.0 (Tests/secplus/fakeopener1.py): no panel (garaged stands in for one, polling
    # every 250 ms), then with the fake's wall panel polling every 250 ms (garaged waits for a gap).
    opener1_rounds=$((quick ? 10 : 40))
    for mode in alone panel; do
        say "opener: $opener1_rounds presses of a Security+ 1.0 door, request to the first byte on the pty, $mode"
        rm -f "$w/op1.tty" "$w/op1.control"
        cp "$w/pins" "$w/op1-$mode.pins"
        python3 Tests/secplus/fakeopener1.py --log "$w/op1-$mode.fake.jsonl" --link "$w/op1.tty" --travel-s 0.05 \
            --control "$w/op1.control" $([ $mode = panel ] && echo --panel) >"$w/op1.fake.log" 2>&1 &
        fake=$!
        pids+=("$fake")
        for ((i = 0; i < 500; i++)); do [ -L "$w/op1.tty" ] && break; sleep 0.01; done
        "$bin/garaged" --pins "$w/op1-$mode.pins" --socket "$w/op1.sock" --events "$w/op1.events" --no-ble --travel-s 0 \
            --auto-close-s 0 --opener "secplus1:$w/op1.tty" --opener-listen-s 1 2>"$w/op1.log" &
        g=$!
        pids+=("$g")
        wait_for "$w/op1.sock" op1
        python3 bench/opener1.py "$w/op1.sock" "$w/op1-$mode.fake.jsonl" "$opener1_rounds" "$w/opener1-$mode.txt" "$w/op1.control"
        stop "$g"; stop "$fake"
    done
    head -1 /proc/stat >"$w/cpu-opener.end"
fi

if want idle || want memory; then
    head -1 /proc/stat >"$w/cpu-idle+memory.start"
    garaged mem 50; g=$started
    floor fmem 50; f=$started
    sleep 1
    cat /proc/"$g"/smaps_rollup >"$w/mem-start.txt"
    cat /proc/"$f"/smaps_rollup >"$w/fmem-start.txt"
    if want idle; then
        say "idle: context switches of the idle daemon (and the floor) over $idle_s s"
        switches "$g" >"$w/idle-before.txt"; switches "$f" >"$w/fidle-before.txt"
        sleep "$idle_s"
        switches "$g" >"$w/idle-after.txt"; switches "$f" >"$w/fidle-after.txt"
        # What an idle Pi keeps besides the loop: Bluetooth on (with no adapter here, its thread
        # looks for one every second, as it does for a replugged one), Home Assistant with
        # commands (a local mosquitto: the MQTT thread's look every second), and systemd's
        # watchdog as the unit sets it (WatchdogSec=30: a ping every 15 s).
        if command -v mosquitto >/dev/null; then
            say "idle: the same, as a Pi runs it (Bluetooth, MQTT with commands, the watchdog)"
            port=$((20000 + RANDOM % 20000))
            printf 'listener %s 127.0.0.1\nallow_anonymous true\n' "$port" >"$w/mosquitto.conf"
            mosquitto -c "$w/mosquitto.conf" >"$w/mosquitto.log" 2>&1 &
            pids+=("$!")
            cp "$w/pins" "$w/pi.pins"
            WATCHDOG_USEC=30000000 "$bin/garaged" --pins "$w/pi.pins" --socket "$w/pi.sock" --relay "sim:$w/pi.trace" \
                --events "$w/pi.events" --travel-s 0 --auto-close-s 0 --mqtt "mqtt://127.0.0.1:$port" --mqtt-commands 2>"$w/pi.log" &
            p=$!
            pids+=("$p")
            wait_for "$w/pi.sock" pi
            sleep 6  # the full run's window then holds the watchdog's first ping, 15 s after start
            switches "$p" >"$w/pidle-before.txt"
            sleep "$idle_s"
            switches "$p" >"$w/pidle-after.txt"
            stop "$p"
        fi
    fi
    if want memory; then
        say "memory: $requests round trips of 12345S on each, then the resident memory again"
        s0=$(date +%s.%N)
        "$client" status "$w/status.txt" "$requests" 5000 "floor=$w/fmem.sock" "garaged=$w/mem.sock"
        echo "$(date +%s.%N) $s0" >"$w/status-time.txt"
        cat /proc/"$g"/smaps_rollup >"$w/mem-after.txt"
        cat /proc/"$f"/smaps_rollup >"$w/fmem-after.txt"
    fi
    head -1 /proc/stat >"$w/cpu-idle+memory.end"
    stop "$g"; stop "$f"
fi

if want startup; then
    head -1 /proc/stat >"$w/cpu-startup.start"
    say "startup: $starts starts each, exec to the socket accepting and to the first answer"
    cp "$w/pins" "$w/st.pins"
    "$client" startup "$w/st.sock" "$starts" -- "$bin/garaged" --pins "$w/st.pins" --socket "$w/st.sock" \
        --relay "sim:$w/st.trace" --events "$w/st.events" --no-ble --travel-s 0 --auto-close-s 0 --pulse-ms 50 >"$w/startup.txt"
    "$client" startup "$w/fst.sock" "$starts" -- "$floor" "$w/fst.sock" "$w/fst.att" "$w/fst.trace" 50 >"$w/fstartup.txt"
    head -1 /proc/stat >"$w/cpu-startup.end"
fi

if want homekit; then
    head -1 /proc/stat >"$w/cpu-homekit.start"
    say "homekit: $hk_setups pair-setups, $hk_verifies pair-verifies, $rounds writes to press, $hk_edges switch edges, 8 sessions"
    # The controller: aiohomekit (hapctl.py pairs) and its `cryptography` (bench/homekit.py's own
    # pair-verify and session), in the venv scripts/homekit-tools.sh keeps in .cache/homekit.
    if ! hkpy="$(scripts/homekit-tools.sh)"; then
        say "aiohomekit could not be installed: the HomeKit figures are left out of the table"
        echo "scripts/homekit-tools.sh could not install aiohomekit" >"$w/homekit-failed.txt"
    elif ! "$hkpy" bench/homekit.py --bin "$bin" --dir "$w" --out "$w/homekit.json" --failed "$w/homekit-failed.txt" \
        --setups "$hk_setups" --verifies "$hk_verifies" --presses "$rounds" --edges "$hk_edges" --sessions 8; then
        say "bench/homekit.py failed: the HomeKit figures are left out of the table"
        [ -s "$w/homekit-failed.txt" ] || echo "bench/homekit.py failed" >"$w/homekit-failed.txt"
        rm -f "$w/homekit.json"
    fi
    head -1 /proc/stat >"$w/cpu-homekit.end"
fi

if want hkflood; then
    head -1 /proc/stat >"$w/cpu-hkflood.start"
    say "hkflood: $hkf_rounds rounds of $hkf_asks asks of 12345S, alone and during a pair-verify M1 flood on 30 connections"
    if ! python3 bench/verify-flood.py --bin "garaged=$bin" --dir "$w" --out "$w/verify-flood.json" \
        --rounds "$hkf_rounds" --asks "$hkf_asks" --connections 30; then
        say "bench/verify-flood.py failed: its figures are left out of the table"
        rm -f "$w/verify-flood.json"
    fi
    head -1 /proc/stat >"$w/cpu-hkflood.end"
fi

if want size; then
    for b in "$bin/garaged" "$bin/garage-pins" "$floor"; do
        strip -o "$w/stripped" "$b"
        echo "$(basename "$b") $(stat -c %s "$w/stripped") $(stat -c %s "$b")" >>"$w/size.txt"
    done
fi

if want swift; then
    head -1 /proc/stat >"$w/cpu-swift.start"
    say "swift: DoorCore in process (ordo-one/benchmark; the first run builds the harness, a few minutes)"
    if GARAGED_BENCH_QUICK=$quick swift package --package-path bench/swift --scratch-path "$scratch/swift" \
        benchmark run --format jmh --path stdout --no-progress >"$w/swift.txt" 2>"$w/swift.log"; then
        :
    else
        # The plugin says only "buildFailed": a plain build of the target shows the compiler's errors.
        swift build -c release --package-path bench/swift --scratch-path "$scratch/swift" \
            --product DoorCoreBenchmarks >>"$w/swift.log" 2>&1 || true
        say "the in-process benchmarks failed (left out of the table):"
        grep -E 'error:' "$w/swift.log" | grep -v buildFailed | head -10 >&2 || tail -20 "$w/swift.log" >&2
        { grep -E 'error:' "$w/swift.log" | grep -v buildFailed | head -1 | sed "s|$root/||" | grep . \
            || tail -1 "$w/swift.log"; } >"$w/swift-failed.txt"
        rm -f "$w/swift.txt"
    fi
    head -1 /proc/stat >"$w/cpu-swift.end"
fi

load_end=$(cut -d' ' -f1-3 /proc/loadavg)
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
dirty=$([ -n "$(git status --porcelain 2>/dev/null)" ] && echo true || echo false)
mkdir -p "$(dirname "$json")"
BENCH_DIR="$w" BENCH_JSON="$json" BENCH_QUICK="$quick" BENCH_LOAD_START="$load_start" BENCH_LOAD_END="$load_end" \
BENCH_COMMIT="$commit" BENCH_DIRTY="$dirty" BENCH_SECONDS="$(($(date +%s) - t_start))" BENCH_IDLE_S="$idle_s" \
BENCH_REQUESTS="$requests" BENCH_HOT="$hot_found of $hot_listed" BENCH_ARGS="$args" BENCH_COMPARE="$compare" BENCH_SWIFT="$(swift --version 2>/dev/null | head -1)" python3 - <<'PY'
import glob, json, math, os, platform, statistics, time

d = os.environ["BENCH_DIR"]
E = os.environ


def path(name):
    p = os.path.join(d, name)
    return p if os.path.exists(p) else None


def pct(values, p):
    """Nearest-rank percentile."""
    v = sorted(values)
    return v[max(0, math.ceil(p / 100 * len(v)) - 1)]


def summary(ns):
    us = [x / 1e3 for x in ns]
    return {"median_us": round(statistics.median(us), 1), "p99_us": round(pct(us, 99), 1),
            "max_us": round(max(us), 1), "samples": len(us)}


def ratio(a, b):
    return round(a / b, 2) if b else None


def series(file):
    out, flood = {}, {}
    for line in open(file):
        f = line.split()
        if f[0] == "#":
            flood[f[2]] = {"requests": int(f[3]), "seconds": float(f[4]),
                           "per_s": round(int(f[3]) / float(f[4])) if float(f[4]) else None}
            continue
        out.setdefault(f[0], []).append((int(f[1]), int(f[2])))
    return out, flood


def latencies(file):
    s, flood = series(file)
    res = {}
    for transport in ("local", "att"):
        g, f = s.get(f"garaged.{transport}"), s.get(f"floor.{transport}")
        if not g or not f:
            continue
        gs, fs = summary([x for x, _ in g]), summary([x for x, _ in f])
        res[transport] = {"garaged": gs, "floor": fs,
                          "ratio": {k: ratio(gs[k + "_us"], fs[k + "_us"]) for k in ("median", "p99", "max")}}
    if flood:
        res["flood"] = flood
    return res


def widths(file, target_ms):
    s, _ = series(file)
    w = [y / 1e6 for _, y in s["garaged.local"]]
    err = [abs(x - target_ms) for x in w]
    return {"presses": len(w), "target_ms": target_ms, "min_ms": round(min(w), 3),
            "median_ms": round(statistics.median(w), 3), "max_ms": round(max(w), 3),
            "error_median_ms": round(statistics.median(err), 3), "error_max_ms": round(max(err), 3)}


def smaps(file):
    kb = {}
    for line in open(file):
        f = line.split()
        if len(f) >= 3 and f[-1] == "kB":
            kb[f[0].rstrip(":")] = int(f[1])
    return {"rss_kib": kb["Rss"], "anon_kib": kb["Anonymous"], "file_kib": kb["Rss"] - kb["Anonymous"]}


def wakeups(before, after, seconds):
    b = {l.split()[0]: (l.split()[1], int(l.split()[2])) for l in open(before)}
    a = {l.split()[0]: (l.split()[1], int(l.split()[2])) for l in open(after)}
    threads = {}
    for tid, (name, n) in a.items():
        threads[f"{name} ({tid})"] = n - b.get(tid, (name, 0))[1]
    total = sum(threads.values())
    return {"seconds": seconds, "switches": total, "per_s": round(total / seconds, 2), "threads": threads}


r = {
    "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
    "mode": "quick" if E["BENCH_QUICK"] == "1" else "full",
    "machine": {"arch": platform.machine(), "cores": os.cpu_count(), "kernel": platform.release(),
                "loadavg_start": E["BENCH_LOAD_START"], "loadavg_end": E["BENCH_LOAD_END"]},
    "build": {"configuration": "release", "static_swift_stdlib": True, "commit": E["BENCH_COMMIT"],
              "uncommitted_changes": E["BENCH_DIRTY"] == "true", "swift": E["BENCH_SWIFT"],
              "hot_path_functions": E["BENCH_HOT"]},
    "seconds": int(E["BENCH_SECONDS"]),
    "command": "scripts/bench.sh" + (" " + E["BENCH_ARGS"] if E["BENCH_ARGS"] else ""),
}
# How busy the whole machine was during each section (this benchmark included): on a shared
# machine, the figures of a section that ran on busy cores are the noisy ones.
busy = {}
for start in sorted(glob.glob(os.path.join(d, "cpu-*.start"))):
    end = start[:-6] + ".end"
    if not os.path.exists(end):
        continue
    a = [int(x) for x in open(start).read().split()[1:]]
    b = [int(x) for x in open(end).read().split()[1:]]
    delta = [y - x for x, y in zip(a, b)]
    total = sum(delta[:8])
    idle = delta[3] + delta[4]
    if total:
        busy[os.path.basename(start)[4:-6]] = round(100 * (total - idle) / total)
r["machine"]["busy_pct"] = busy
if path("latency.txt"):
    r["latency"] = latencies(path("latency.txt"))
if path("flood.txt"):
    r["latency_under_flood"] = latencies(path("flood.txt"))
    r["latency_under_flood"]["flood_lines"] = ("one line per packet, as fast as answered, round and round: "
                                               "99999O=1, garbage!, 12345Z, 54321S, an 80-byte line, 5 binary bytes")
if path("width-idle.txt"):
    r["press_width"] = {"idle": widths(path("width-idle.txt"), 300)}
    if path("width-loaded.txt"):
        r["press_width"]["both_cores_busy"] = widths(path("width-loaded.txt"), 300)
if path("doors.txt"):
    d2, _ = series(path("doors.txt"))
    alone, pressing = summary([x for x, _ in d2["garaged.idle"]]), summary([x for x, _ in d2["garaged.busy"]])
    r["second_door"] = {"alone": alone, "while_first_presses": pressing,
                        "ratio": {k: ratio(pressing[k + "_us"], alone[k + "_us"]) for k in ("median", "p99", "max")},
                        "pulse_ms": {"first": 300, "second": 50}}
if path("opener.txt"):
    r["opener_first_byte"] = summary([int(line.split()[1]) for line in open(path("opener.txt"))])
    r["opener_first_byte"]["goal_us"] = 5000
for mode in ("alone", "panel"):
    if path(f"opener1-{mode}.txt"):
        lines = [line.split() for line in open(path(f"opener1-{mode}.txt"))]
        r[f"opener1_first_byte_{mode}"] = summary([int(f[1]) for f in lines])
        r[f"opener1_first_byte_{mode}"]["nearest_other_byte_ms_min"] = min(float(f[2]) for f in lines)
        if mode == "alone":
            r["opener1_first_byte_alone"]["goal_us"] = 5000
if path("idle-after.txt"):
    s = int(E["BENCH_IDLE_S"])
    r["idle_wakeups"] = {"garaged": wakeups(path("idle-before.txt"), path("idle-after.txt"), s),
                         "floor": wakeups(path("fidle-before.txt"), path("fidle-after.txt"), s)}
    if path("pidle-after.txt"):
        r["idle_wakeups"]["as_on_a_pi"] = wakeups(path("pidle-before.txt"), path("pidle-after.txt"), s)
if path("mem-start.txt"):
    r["memory"] = {"garaged": {"after_start": smaps(path("mem-start.txt"))},
                   "floor": {"after_start": smaps(path("fmem-start.txt"))}}
    if path("mem-after.txt"):
        n = int(E["BENCH_REQUESTS"])
        r["memory"]["requests"] = n
        r["memory"]["garaged"]["after_requests"] = smaps(path("mem-after.txt"))
        r["memory"]["floor"]["after_requests"] = smaps(path("fmem-after.txt"))
        rt = {}
        for line in open(path("status.txt")):
            name, ns = line.split()
            rt.setdefault(name, []).append(int(ns))
        g, f = summary(rt["garaged"]), summary(rt["floor"])
        t1, t0 = map(float, open(path("status-time.txt")).read().split())
        r["status_round_trip"] = {"requests": n, "garaged": g, "floor": f,
                                  "ratio": {k: ratio(g[k + "_us"], f[k + "_us"]) for k in ("median", "p99", "max")},
                                  "seconds_both": round(t1 - t0, 2)}
if path("startup.txt"):
    def starts(file):
        rows = [tuple(map(int, l.split())) for l in open(file)]
        return {"starts": len(rows), "connect_ms_median": round(statistics.median(c for c, _ in rows) / 1e6, 2),
                "first_reply_ms_median": round(statistics.median(x for _, x in rows) / 1e6, 2),
                "connect_ms_max": round(max(c for c, _ in rows) / 1e6, 2)}
    g, f = starts(path("startup.txt")), starts(path("fstartup.txt"))
    r["startup"] = {"garaged": g, "floor": f,
                    "ratio": {"connect": ratio(g["connect_ms_median"], f["connect_ms_median"]),
                              "first_reply": ratio(g["first_reply_ms_median"], f["first_reply_ms_median"])}}
if path("homekit.json"):
    h = json.load(open(path("homekit.json")))
    tick_ms = 1000 / h["clk_tck"]
    ps, pv, wp = h["pair_setup"]["rounds"], h["pair_verify"], h["write_to_press"]
    ticks = sum(x["cpu_ticks"] for x in ps)
    ms = lambda ns: round(ns / 1e6, 3)
    r["homekit"] = {
        # CPU: utime + stime (/proc/PID/stat) counts whole clock ticks, which a pair-setup or a
        # verify is shorter than, so its per-round median says little: the total over all
        # rounds is given, and per round the threads' run time (schedstat, in ns) beside it.
        "pair_setup": {"rounds": len(ps), "client": h["pair_setup"]["client"],
                       "wall_ms_median": round(statistics.median(x["hapctl_s"] for x in ps) * 1e3, 1),
                       "wall_ms_max": round(max(x["hapctl_s"] for x in ps) * 1e3, 1),
                       "cpu_ms_median": ms(statistics.median(x["cpu_ns"] for x in ps)),
                       "cpu_ms_max": ms(max(x["cpu_ns"] for x in ps)),
                       "cpu_stat_ticks_total": ticks, "cpu_stat_ms_per_round": round(ticks * tick_ms / len(ps), 2),
                       "cpu_stat_ms_median": round(statistics.median(x["cpu_ticks"] for x in ps) * tick_ms, 2),
                       "clk_tck": h["clk_tck"]},
        "pair_verify": {"sessions": pv["count"], "wall_ms_median": ms(statistics.median(pv["wall_ns"])),
                        "wall_ms_max": ms(max(pv["wall_ns"])), "cpu_ms_median": ms(statistics.median(pv["cpu_ns"])),
                        "cpu_stat_ticks_total": pv["cpu_ticks_total"],
                        "cpu_stat_ms_per_verify": round(pv["cpu_ticks_total"] * tick_ms / pv["count"], 2),
                        "cpu_ms_per_verify": ms(pv["cpu_ns_total"] / pv["count"])},
        "write_to_press": dict(summary(wp["open_ns"] + wp["close_ns"]), opens=summary(wp["open_ns"]) if wp["open_ns"] else None,
                               closes=summary(wp["close_ns"]) if wp["close_ns"] else None, garaged_flags=wp["flags"]),
        "edge_to_event": dict(summary(h["edge_to_event"]["ns"]), debounce_ms=h["edge_to_event"]["debounce_ms"],
                              garaged_flags=h["edge_to_event"]["flags"]),
        "status_to_event": dict(summary(h["status_to_event"]["ns"]), garaged_flags=h["status_to_event"]["flags"],
                                goal_us=5000) if "status_to_event" in h else None,
        "secplus1_change_to_event": dict(summary(h["secplus1_change_to_event"]["ns"]), garaged_flags=h["secplus1_change_to_event"]["flags"],
                                         goal_us=600000) if "secplus1_change_to_event" in h else None,
        "memory": h["memory"],
    }
if path("verify-flood.json"):
    vf = json.load(open(path("verify-flood.json")))
    t = vf["targets"]["garaged"]
    fl = t["flood"]
    seconds = sum(x["seconds"] for x in fl)
    r["verify_flood"] = {"alone": summary(t["alone_ns"]), "during_flood": summary(t["flood_ns"]), "goal_median_us": 50000,
                         "connections": vf["connections"], "rounds": vf["rounds"],
                         "cpu_pct_of_a_core": [round(100 * x) for x in t["cpu_share"]],
                         "flood_answers_per_s": round(sum(x["answers"] for x in fl) / seconds) if seconds else None,
                         "flood_busy": sum(x["busy"] for x in fl), "flood_exchanged": sum(x["exchanged"] for x in fl)}
if path("homekit-failed.txt"):
    r["homekit_failed"] = open(path("homekit-failed.txt")).read().strip()
if path("size.txt"):
    r["size"] = {}
    for line in open(path("size.txt")):
        name, stripped, unstripped = line.split()
        r["size"][name] = {"stripped_bytes": int(stripped), "stripped_mib": round(int(stripped) / 2**20, 2),
                           "unstripped_bytes": int(unstripped)}
if path("swift.txt"):
    text = open(path("swift.txt")).read()
    data = json.loads(text[text.index("["):])
    r["swift"] = {}
    for b in data:
        name = b["benchmark"].split(".", 3)[-1].replace("_", " ")
        m = b["secondaryMetrics"]
        wall = m["Time (wall clock)"]
        scale = {"ns": 1, "μs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}[wall["scoreUnit"]]
        iterations = len(wall["rawData"][0])
        # Each measured iteration runs the operation 1000 times (scalingFactor .kilo).
        entry = {"median_ns": round(wall["scorePercentiles"]["50.0"] * scale / 1000, 1),
                 "p90_ns": round(wall["scorePercentiles"]["90.0"] * scale / 1000, 1),
                 "iterations": iterations}
        if "Malloc (total)" in m:
            entry["mallocs"] = round(m["Malloc (total)"]["scorePercentiles"]["50.0"] / 1000, 1)
        r["swift"][name] = entry

if path("swift-failed.txt"):
    r["swift_failed"] = open(path("swift-failed.txt")).read().strip()

json.dump(r, open(E["BENCH_JSON"], "w"), indent=2, ensure_ascii=False)

# ---- the table ----
# Each row is (what, figures) where figures(result) gives (garaged, floor, ratio) as text, or
# None when that run has no such figure; --compare shows another run's garaged figure (and ratio).
old = json.load(open(E["BENCH_COMPARE"])) if E.get("BENCH_COMPARE") else None
spec = []


def get(res, *keys):
    for k in keys:
        if not isinstance(res, dict) or k not in res:
            return None
        res = res[k]
    return res


def us(v):
    return f"{v:.0f} µs" if v >= 100 else f"{v:.1f} µs"


def lat_rows(section, label):
    n = {}
    for transport, title in (("local", "local socket, `12345O=1`/`O=0`"), ("att", "ATT Write Request to 0x000C")):
        if transport not in r.get(section, {}):
            continue
        for k in ("median", "p99", "max"):
            def fig(res, transport=transport, k=k):
                t = get(res, section, transport)
                if not t:
                    return None
                x = f"{t['ratio'][k]}×"
                return us(t["garaged"][k + "_us"]), us(t["floor"][k + "_us"]), f"**{x}**" if k != "max" else x
            spec.append((f"{label} {title}: {k} ({r[section][transport]['garaged']['samples']} presses)", fig))


lat_rows("latency", "request → relay,")
if "latency_under_flood" in r:
    lat_rows("latency_under_flood", "under flood,")

    def flood(res):
        fl = get(res, "latency_under_flood", "flood")
        if not fl:
            return None
        g, f = get(fl, "garaged", "per_s"), get(fl, "floor", "per_s")
        return (f"{g:,} req/s" if g else "–"), (f"{f:,} req/s" if f else "–"), "–"
    spec.append(("the flood, answered per second (wrong PINs, garbage, unknown commands, long lines; from root, whom wrong PINs never lock out)", flood))
if "second_door" in r:
    for k in ("median", "p99"):
        def door2(res, k=k):
            d = get(res, "second_door")
            return d and (f"{us(d['while_first_presses'][k + '_us'])} (alone {us(d['alone'][k + '_us'])})", "–",
                          f"{d['ratio'][k]}× of alone")
        spec.append((f"request → relay on door 2 of two, local socket, while door 1 presses: {k} ({r['second_door']['alone']['samples']} presses each)", door2))
if "opener_first_byte" in r:
    for k in ("median", "p99"):
        def opener(res, k=k):
            o = get(res, "opener_first_byte")
            return o and (us(o[k + "_us"]), "–", "goal ≤ 5 ms" if k == "median" else "–")
        spec.append((f"request → first byte on the wire, Security+ 2.0 opener on a pty (the 1.3 ms break included), local socket: {k} ({r['opener_first_byte']['samples']} presses)", opener))
for mode, title in (("alone", "no panel (garaged polls)"), ("panel", "a wall panel polling every 250 ms: the wait for a gap")):
    key = f"opener1_first_byte_{mode}"
    if key in r:
        for k in ("median", "p99"):
            def opener1(res, k=k, key=key, mode=mode):
                o = get(res, key)
                goal = "goal ≤ 5 ms" if k == "median" and mode == "alone" else "–"
                return o and (us(o[k + "_us"]), "–", goal)
            spec.append((f"request → first byte on the wire, Security+ 1.0 opener on a pty, {title}, local socket: {k} "
                         f"({r[key]['samples']} presses; nearest panel or opener byte before it ≥ {r[key]['nearest_other_byte_ms_min']} ms)", opener1))
for k, title in (("idle", "idle"), ("both_cores_busy", "both cores busy")):
    if get(r, "press_width", k):
        def width(res, k=k):
            p = get(res, "press_width", k)
            return p and (f"{p['error_median_ms']:.3f} / {p['error_max_ms']:.3f} ms", "–", "–")
        spec.append((f"press width at 300 ms, {title} ({r['press_width'][k]['presses']} presses): error median / max", width))
def by_thread(w):
    names = {}
    for k, n in w["threads"].items():
        name = k.rsplit(" (", 1)[0]
        names[name] = names.get(name, 0) + n
    busy = [f"{name} {n / w['seconds']:g}" for name, n in sorted(names.items()) if n]
    return f"{w['per_s']:g} /s" + (f" ({', '.join(busy)})" if busy else "")


if "idle_wakeups" in r:
    def wake(res):
        i = get(res, "idle_wakeups")
        return i and (by_thread(i["garaged"]), f"{i['floor']['per_s']:g} /s", "goal 0 /s")
    spec.append((f"idle wake-ups (context switches of all threads over {r['idle_wakeups']['garaged']['seconds']} s, by thread)", wake))
if get(r, "idle_wakeups", "as_on_a_pi"):
    def pi(res):
        i = get(res, "idle_wakeups", "as_on_a_pi")
        return i and (by_thread(i), "–", "–")
    spec.append(("idle wake-ups as a Pi runs it (Bluetooth with no adapter, MQTT with commands, watchdog 30 s), by thread", pi))


def mem(x):
    return f"{x['rss_kib']:,} KiB ({x['anon_kib']:,} anon + {x['file_kib']:,} file)"


for k, title in (("after_start", "after start"), ("after_requests", f"after {get(r, 'memory', 'requests') or 0:,} requests")):
    if get(r, "memory", "garaged", k):
        def memory(res, k=k):
            m = get(res, "memory")
            return get(m, "garaged", k) and (mem(m["garaged"][k]), mem(m["floor"][k]), "–")
        spec.append((f"resident memory {title}: RSS (private anonymous + file-backed)", memory))
if "status_round_trip" in r:
    for k in ("median", "p99"):
        def status(res, k=k):
            s = get(res, "status_round_trip")
            return s and (us(s["garaged"][k + "_us"]), us(s["floor"][k + "_us"]), f"{s['ratio'][k]}×")
        spec.append((f"`12345S` round trip on the local socket: {k} ({r['status_round_trip']['requests']:,} requests)", status))
if "startup" in r:
    for k, title in (("connect", "exec → socket accepts"), ("first_reply", "exec → first `12345S` answered")):
        def startup(res, k=k):
            st = get(res, "startup")
            return st and (f"{st['garaged'][k + '_ms_median']:.2f} ms", f"{st['floor'][k + '_ms_median']:.2f} ms",
                           f"{st['ratio'][k]}×")
        spec.append((f"start-up, {title} (median of {r['startup']['garaged']['starts']})", startup))
if "homekit" in r:
    hk = r["homekit"]

    def ms_text(v):
        return f"{v:.1f} ms" if v >= 10 else f"{v:.2f} ms"

    def setup_wall(res):
        p = get(res, "homekit", "pair_setup")
        return p and (f"{ms_text(p['wall_ms_median'])} (max {ms_text(p['wall_ms_max'])})", "–", "–")
    spec.append((f"HomeKit pair-setup M1..M6 as the controller sees it (hapctl, aiohomekit 4.0.1; TCP connect to M6 done): "
                 f"median of {hk['pair_setup']['rounds']}", setup_wall))

    def setup_cpu(res):
        p = get(res, "homekit", "pair_setup")
        return p and (f"{ms_text(p['cpu_ms_median'])} (utime + stime {p['cpu_stat_ms_per_round']:g} ms a round: "
                      f"{p['cpu_stat_ticks_total']} tick{'s' if p['cpu_stat_ticks_total'] != 1 else ''} in {p['rounds']})", "–", "–")
    spec.append((f"HomeKit pair-setup, garaged's CPU (its threads' run time, /proc/PID/task/*/schedstat): "
                 f"median of {hk['pair_setup']['rounds']}", setup_cpu))

    def verify_wall(res):
        p = get(res, "homekit", "pair_verify")
        return p and (f"{ms_text(p['wall_ms_median'])} (max {ms_text(p['wall_ms_max'])})", "–", "–")
    spec.append((f"HomeKit pair-verify, a new session (TCP connect to M4, bench/homekit.py): median of {hk['pair_verify']['sessions']}",
                 verify_wall))

    def verify_cpu(res):
        p = get(res, "homekit", "pair_verify")
        return p and (f"{ms_text(p['cpu_ms_median'])} (utime + stime {p['cpu_stat_ms_per_verify']:g} ms each: "
                      f"{p['cpu_stat_ticks_total']} tick{'s' if p['cpu_stat_ticks_total'] != 1 else ''} in {p['sessions']})", "–", "–")
    spec.append((f"HomeKit pair-verify, garaged's CPU (schedstat, as above): median of {hk['pair_verify']['sessions']}", verify_cpu))
    def latency(part, label):
        for k in ("median", "p99"):
            def row(res, k=k):
                p = get(res, "homekit", part)
                return p and (us(p[k + "_us"]), "–", "–")
            spec.append((label(k), row))
    latency("write_to_press", lambda k: "HomeKit write → relay: encrypted `PUT /characteristics` TargetDoorState sent → press "
            f"in the trace: {k} ({hk['write_to_press']['samples']} presses, opens and closes)")
    latency("edge_to_event", lambda k: "HomeKit sim: closed switch's edge → `EVENT/1.0` of CurrentDoorState received, debounce "
            f"{hk['edge_to_event']['debounce_ms']} ms: {k} ({hk['edge_to_event']['samples']} edges)")
    if hk.get("status_to_event"):
        latency("status_to_event", lambda k: "HomeKit Security+ 2.0 opener on a pty: its STATUS written → `EVENT/1.0` of "
                f"CurrentDoorState received (goal ≤ 5 ms): {k} ({hk['status_to_event']['samples']} STATUS packets)")
    if hk.get("secplus1_change_to_event"):
        latency("secplus1_change_to_event", lambda k: "HomeKit Security+ 1.0 opener on a pty (garaged standing in: the door asked every other 250 ms slot): "
                "its door moved by its radio remote → `EVENT/1.0` of CurrentDoorState received (two answers alike; goal ≤ 600 ms): "
                f"{k} ({hk['secplus1_change_to_event']['samples']} changes)")

    def hkmem(x):
        return f"{x['vmrss_kib']:,} KiB ({x['anon_kib']:,} anon + {x['file_kib']:,} file)"

    def mem_start(res):
        m = get(res, "homekit", "memory")
        return m and (hkmem(m["after_start"]), "–", "–")
    spec.append(("resident memory with HomeKit on, after start: VmRSS (RssAnon + RssFile)", mem_start))

    def mem_sessions(res):
        m = get(res, "homekit", "memory")
        return m and (hkmem(m["sessions"]) + f", +{m['sessions']['vmrss_kib'] - m['paired']['vmrss_kib']:,} KiB over "
                      "paired with none", "–", "–")
    spec.append((f"resident memory with HomeKit on, paired, {hk['memory']['session_count']} verified sessions subscribed at once",
                 mem_sessions))
if "homekit_failed" in r:
    spec.append(("HomeKit (bench/homekit.py)", lambda res: ("did not run: " + res["homekit_failed"].replace("|", "/"), "–", "–")
                 if "homekit_failed" in res else None))
if "verify_flood" in r:
    vf = r["verify_flood"]

    def ms2(v):
        return f"{v / 1e3:.1f} ms" if v >= 10e3 else f"{v / 1e3:.2f} ms"
    for part, title in (("alone", "alone"), ("during_flood", f"while one stranger floods pair-verify M1 on {vf['connections']} "
                                                             "HomeKit connections (goal: median under 50 ms)")):
        def owner(res, part=part):
            v = get(res, "verify_flood", part)
            return v and (f"{ms2(v['median_us'])} / {ms2(v['p99_us'])}", "–", "–")
        spec.append((f"the owner's `12345S`, a new local connection each, {title}: median / p99 ({vf[part]['samples']} asks)", owner))

    def flood_cpu(res):
        v = get(res, "verify_flood")
        return v and (f"{'/'.join(str(x) for x in v['cpu_pct_of_a_core'])} % of a core; {v['flood_answers_per_s']:,} answers/s "
                      f"({v['flood_exchanged']:,} key exchanges, {v['flood_busy']:,} Busy)", "–", "–")
    spec.append(("that flood: garaged's CPU (each round) and the stranger's answers", flood_cpu))
for name in ("garaged", "garage-pins"):
    if get(r, "size", name):
        def size(res, name=name):
            sz = get(res, "size")
            if not get(sz, name):
                return None
            fl = f"{sz['floor']['stripped_bytes']:,} bytes" if name == "garaged" and "floor" in sz else "–"
            return f"{sz[name]['stripped_bytes']:,} bytes ({sz[name]['stripped_mib']} MiB)", fl, "–"
        spec.append((f"`{name}` stripped, static Swift stdlib", size))
order = ["CommandCodec.decode", "Controller.handle", "ATTServer.handle", "EEPROMLayout.encode", "EEPROMLayout.decode"]
for name in sorted(r.get("swift", {}), key=lambda n: next((i for i, o in enumerate(order) if n.startswith(o)), 99)):
    def swift(res, name=name):
        b = get(res, "swift", name)
        return b and (f"{b['median_ns']:,.0f} ns" + (f", {b['mallocs']:g} mallocs" if "mallocs" in b else ""), "–", "–")
    spec.append((f"in process (ordo-one/benchmark): `{name}`, median per call", swift))

if "swift_failed" in r:
    spec.append(("in process (ordo-one/benchmark)", lambda res: ("did not build or run: " + res["swift_failed"].replace("|", "/"), "–", "–")
                 if "swift_failed" in res else None))

m = r["machine"]
head = (f"**garaged benchmark**, {r['date']}: `uname -m` {m['arch']}, {m['cores']} cores, load average "
        f"{m['loadavg_start']} at the start, {m['loadavg_end']} at the end; release build (the Makefile's flags: static Swift stdlib, "
        f"{r['build']['hot_path_functions']} hot-path functions laid out together), "
        f"commit {r['build']['commit']}{' + uncommitted changes' if r['build']['uncommitted_changes'] else ''}; "
        f"`{r['command']}`, {r['seconds']} s.")
if busy:
    head += ("  \nBoth cores' busy share during each part (this benchmark included; "
             "other work on the machine is noise): " + ", ".join(f"{k} {v}%" for k, v in busy.items()) + ".")
rows = ["| what | garaged | C floor | garaged ÷ floor |" + (" before: garaged (÷ floor) |" if old else ""),
        "|---|---|---|---|" + ("---|" if old else "")]
for what, fig in spec:
    g, f, x = fig(r)
    line = f"| {what} | {g} | {f} | {x} |"
    if old:
        try:
            o = fig(old)
        except (KeyError, TypeError):
            o = None
        line += (f" {o[0]}" + (f" ({o[2]})" if o[2] != "–" else "") + " |") if o else " – |"
    rows.append(line)
if old:
    head += f"  \nBefore: {old.get('date', '?')}, commit {get(old, 'build', 'commit') or '?'}, `{old.get('command', '?')}`."
table = head + "\n\n" + "\n".join(rows) + "\n"
open(os.path.splitext(E["BENCH_JSON"])[0] + ".md", "w").write(table)
print(table)
PY
raw="${json%.json}-raw"
rm -rf "$raw"; mkdir -p "$raw"
cp "$w"/*.txt "$w"/homekit.json "$raw"/ 2>/dev/null || true
say "JSON: $json (table: ${json%.json}.md, raw samples: $raw/); $(($(date +%s) - t_start)) s"

#!/usr/bin/env bash
# Regenerates packaging/hot-path.order, the order in which a release link (the Makefile's
# SWIFTFLAGS) lays out garaged's own functions: first those between a request's arrival and the
# relay, then every other one a press runs, each group by how much it runs. A cold request then
# reads a few contiguous pages of code instead of lines scattered over two megabytes
# (docs/decisions.md, "The press path's functions laid out together").
#
# How: the release build runs under valgrind's callgrind while bench/client.c presses 40 times
# through the local socket and ATT (after 10 to warm up), twice: once counting only the
# request's read, the judging and the press (the path before the relay), once counting
# everything. Only garaged's modules are listed (Swift's runtime and libc are linked whole).
#
# Run it after a change to the request path, then `scripts/bench.sh --only latency`; the bench
# prints how many of the listed functions the build still has (a renamed function falls out of
# the order until this runs again). About two minutes once built.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# Without --config garaged reads /etc/garaged.conf when it exists: not the installed package's file here.
export GARAGED_CONFIG=
out=packaging/hot-path.order
say() { echo "hot-path: $*" >&2; }

scripts/deps.sh valgrind gcc binutils python3 >&2
scratch=.build-hotpath
say "building garaged (the Makefile's release flags) in $scratch"
make --no-print-directory build SCRATCH="$scratch" >/dev/null 2>&1 ||
    { make --no-print-directory build SCRATCH="$scratch" 2>&1 | tail -30 >&2; exit 1; }
w="$(mktemp -d /tmp/garaged-hotpath.XXXXXX)"
pid=""
cleanup() { [ -z "$pid" ] || kill "$pid" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$w"; }
trap cleanup EXIT
cc -O2 -Wall -o "$w/client" bench/client.c
# valgrind 3.19 cannot read the DWARF 5 a Swift 6 build writes: the symbols are enough.
cp "$scratch/release/garaged" "$w/garaged"
strip --strip-debug "$w/garaged"
"$scratch/release/garage-pins" init --pins "$w/pins" --master 12345 >/dev/null

# profile NAME [CALLGRIND-OPTIONS...]: 40 presses each way, after 10, into $w/NAME.txt.
profile() {
    local name=$1 i
    shift
    rm -f "$w/s.sock" "$w/s.att"
    valgrind --tool=callgrind --callgrind-out-file="$w/$name.out" "$@" "$w/garaged" --pins "$w/pins" \
        --socket "$w/s.sock" --att-socket "$w/s.att" --relay "sim:$w/s.trace" --events "$w/$name.events" \
        --no-ble --travel-s 0 --auto-close-s 0 --pulse-ms 50 2>"$w/$name.log" &
    pid=$!
    for ((i = 0; i < 600; i++)); do [ -S "$w/s.att" ] && break; sleep 0.1; done
    [ -S "$w/s.att" ] || { cat "$w/$name.log" >&2; say "garaged did not start under valgrind"; exit 1; }
    "$w/client" latency "$w/warm.txt" 10 10 "g=$w/s.sock,$w/s.att,$w/s.trace" >/dev/null
    callgrind_control -z "$pid" >/dev/null 2>&1
    "$w/client" latency "$w/lat.txt" 40 10 "g=$w/s.sock,$w/s.att,$w/s.trace" >/dev/null
    callgrind_control -d "$pid" >/dev/null 2>&1
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    pid=""
    callgrind_annotate --inclusive=no --threshold=100 "$w/$name.out".1 > "$w/$name.txt" 2>/dev/null
}

say "profiling the path before the relay"
# shellcheck disable=SC2016  # Swift's symbols start with $: callgrind's patterns, not variables
profile before --collect-atstart=no \
    '--toggle-collect=$s10GaragedKit11LocalClientC7receive*' '--toggle-collect=$s10GaragedKit13ATTConnectionC7receive*' \
    '--toggle-collect=$s8DoorCore10ControllerV5judge*' '--toggle-collect=$s10GaragedKit11PulseDriverC5press*'
say "profiling everything a press runs"
profile all

python3 - "$w/before.txt" "$w/all.txt" "$w/garaged" > "$out" <<'PY'
import re, sys
ours = re.compile(r'^(\$s(10GaragedKit|7garaged|8DoorCore|10DoorSystem)|(clinux|cgpio|cbluetooth|cmqtt|cmdns|ccrypto)_)')
def functions(path):
    """Our functions in callgrind_annotate's flat list, most instructions first; not the
    frames every thread stands on (charged the whole run), which run once, not per press."""
    names, total = [], None
    for line in open(path):
        ir = line.split()[0].replace(",", "") if line.strip() else ""
        if "PROGRAM TOTALS" in line:
            total = ir
        m = re.search(r':(\S+) \[' + re.escape(sys.argv[3]) + r'\]$', line.rstrip())
        if m and ours.match(m.group(1)) and m.group(1) not in names and ir != total:
            names.append(m.group(1))
    return names
before = functions(sys.argv[1])
rest = [n for n in functions(sys.argv[2]) if n not in before]
print("# garaged's functions in the order a release link lays them out (lld --symbol-ordering-file):")
print("# written by scripts/hot-path.sh; the path from a request to the relay first, then the rest")
print("# of a press. A name the build no longer has is skipped.")
print("\n".join(before + rest))
print(f"hot-path: {len(before)} functions before the relay, {len(rest)} more after it", file=sys.stderr)
PY
say "wrote $out"

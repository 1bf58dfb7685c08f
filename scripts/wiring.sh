#!/usr/bin/env bash
# Redraws the wiring pictures (wiring/*.svg and wiring/*.png) from wiring/diagrams.py.
# Installs the pinned schemdraw and matplotlib (wiring/requirements.txt) into .cache/wiring-py
# when they are missing or the pins changed; needs python3 with pip, and PyPI the first time.
#
# Usage: scripts/wiring.sh [NAME ...]     redraw all pictures, or the ones named (relay-mosfet...)
#        scripts/wiring.sh --check        redraw into a temporary folder and fail if any picture
#                                         in wiring/ differs from what its source draws, or if
#                                         what they show is not what garaged takes (the openers
#                                         its settings accept, its flags, the example config's
#                                         lines: claims() in wiring/diagrams.py)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="$root/.cache/wiring-py"
requirements="$root/wiring/requirements.txt"
python="${PYTHON:-python3}"

command -v "$python" >/dev/null || { echo "wiring.sh: $python not found" >&2; exit 1; }

# (Re)install when the cache is missing or was filled from other pins.
if ! cmp -s "$requirements" "$cache/.requirements.txt"; then
    echo "wiring.sh: installing wiring/requirements.txt into .cache/wiring-py" >&2
    tmp="$cache.tmp.$$"
    rm -rf "$tmp"
    trap 'rm -rf "$tmp"' EXIT
    PIP_ROOT_USER_ACTION=ignore "$python" -m pip install --quiet --disable-pip-version-check \
        --no-warn-conflicts --no-compile --target "$tmp" --requirement "$requirements"
    cp "$requirements" "$tmp/.requirements.txt"
    rm -rf "$cache"
    mkdir -p "$(dirname "$cache")"
    mv "$tmp" "$cache"
    trap - EXIT
fi

export PYTHONPATH="$cache"
export PYTHONHASHSEED=0
export MPLCONFIGDIR="$root/.cache/wiring-mpl"   # matplotlib's font cache, out of $HOME
export SOURCE_DATE_EPOCH=0
mkdir -p "$MPLCONFIGDIR"

if [ "${1:-}" = "--check" ]; then
    shift
    out="$(mktemp -d)"
    trap 'rm -rf "$out"' EXIT
    status=0
    "$python" "$root/wiring/diagrams.py" --out "$out" --claims "$@" >/dev/null || status=1
    for f in "$out"/*; do
        name="$(basename "$f")"
        if ! cmp -s "$f" "$root/wiring/$name"; then
            echo "wiring.sh: wiring/$name differs from what wiring/diagrams.py draws" >&2
            status=1
        fi
    done
    [ "$status" = 0 ] && echo "wiring.sh: every picture matches its source, and what they show garaged takes"
    exit "$status"
fi

cd "$root"
exec "$python" wiring/diagrams.py "$@"

#!/usr/bin/env bash
# aiohomekit, Home Assistant's HomeKit controller (PyPI), for the HomeKit tests' controller
# Tests/homekit/hapctl.py: installed in a virtualenv, pinned, cached by the version and this
# script's hash.
# Usage: scripts/homekit-tools.sh [DIR]   -> prints the venv's python (default DIR .cache/homekit)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

AIOHOMEKIT_VERSION=4.0.1
out=${1:-.cache/homekit}
py=${PYTHON:-python3}
key="aiohomekit $AIOHOMEKIT_VERSION $("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])') $(sha256sum "${BASH_SOURCE[0]}" | cut -c1-16)"
if [ -x "$out/venv/bin/python" ] && [ "$(cat "$out/key" 2>/dev/null)" = "$key" ]; then
    echo "$PWD/$out/venv/bin/python"
    exit 0
fi
rm -rf "$out"
mkdir -p "$out"
"$py" -m venv "$out/venv" >&2 || { echo "homekit-tools: $py -m venv failed (install python3-venv)" >&2; exit 1; }
PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore \
    "$out/venv/bin/pip" install --quiet --no-cache-dir "aiohomekit==$AIOHOMEKIT_VERSION" >&2 ||
    { echo "homekit-tools: pip install aiohomekit==$AIOHOMEKIT_VERSION failed (is PyPI reachable?)" >&2; exit 1; }
"$out/venv/bin/python" -c 'import aiohomekit.controller.ip' ||
    { echo "homekit-tools: aiohomekit does not import" >&2; exit 1; }
echo "$key" > "$out/key"
echo "$PWD/$out/venv/bin/python"

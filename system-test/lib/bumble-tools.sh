#!/usr/bin/env bash
# Google's Bumble (a Bluetooth host stack in Python) for the scenarios whose phone is
# lib/ble-phone.py: installed from PyPI with `pip install --target OUTDIR` for Debian's
# /usr/bin/python3 (the pyenv Pythons lack socket.AF_BLUETOOTH, which Bumble's hci-socket
# transport needs). The guest puts OUTDIR on PYTHONPATH.
# Usage: bumble-tools.sh OUTDIR   -> prints OUTDIR
# Pinned, cached by the version and this script's hash. OUTDIR must be outside /tmp, /run and
# /var/tmp (tmpfs in the guest): system-test/run uses .cache/system-test/bumble.
set -euo pipefail

BUMBLE_VERSION=0.0.236
# Its dependencies, pinned to what that version resolved to for CPython 3.11 (wheels only).
DEPS="cffi==2.1.1 click==8.5.1 cryptography==50.0.2 importlib_resources==7.1.0 libusb1==3.4.0
libusb-package==1.0.26.4 platformdirs==4.14.7 prompt_toolkit==3.0.53 pycparser==3.12 pyee==13.0.1
pyserial==3.5 pyserial-asyncio==0.6 pyusb==1.3.1 typing_extensions==4.16.0 wcwidth==0.9.4
websockets==17.4"
out=${1:?output dir}
py=/usr/bin/python3
[ -x "$py" ] || { echo "bumble-tools: no $py (package python3)" >&2; exit 1; }
pyver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
key="bumble $BUMBLE_VERSION python $pyver $(sha256sum "${BASH_SOURCE[0]}" | cut -c1-16)"
if [ -d "$out/bumble" ] && [ "$(cat "$out/key" 2>/dev/null)" = "$key" ]; then
    echo "$out"
    exit 0
fi
# Debian's python3-pip if there is one, or any pip (pyenv's): --target and --python-version
# make it install for Debian's 3.11 either way.
pip=("$py" -m pip)
"${pip[@]}" --version > /dev/null 2>&1 || pip=(pip3)
rm -rf "$out"
mkdir -p "$out"
# shellcheck disable=SC2086 # one requirement per word
PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore \
    "${pip[@]}" install --quiet --no-cache-dir --target "$out" --python-version "$pyver" \
    --only-binary=:all: "bumble==$BUMBLE_VERSION" $DEPS >&2 ||
    { echo "bumble-tools: pip install bumble==$BUMBLE_VERSION failed" >&2; exit 1; }
PYTHONPATH=$out "$py" -c 'import bumble.device, bumble.transport.hci_socket' ||
    { echo "bumble-tools: $py cannot import bumble from $out" >&2; exit 1; }
echo "$key" > "$out/key"
echo "$out"

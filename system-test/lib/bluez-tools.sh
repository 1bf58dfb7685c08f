#!/usr/bin/env bash
# BlueZ's GATT client test tool for the Bluetooth scenarios, taken from Debian's bluez-source.
# Usage: bluez-tools.sh OUTDIR   -> prints the path of btgatt-client
# The package ships the whole built BlueZ tree as /usr/src/bluez.tar.bz2; tools/btgatt-client in
# it is already built and needs only libc. Only that file is extracted (about 7 s: the tarball is
# read through once), cached by the package's version.
set -euo pipefail

out=${1:?output dir}
tarball=/usr/src/bluez.tar.bz2
[ -f "$tarball" ] || { echo "bluez-tools: $tarball missing (package bluez-source)" >&2; exit 1; }
key="$(dpkg-query -W -f='${Version}' bluez-source 2>/dev/null || echo unknown) $(sha256sum "${BASH_SOURCE[0]}" | cut -c1-16)"
tool=$out/btgatt-client
if [ -x "$tool" ] && [ "$(cat "$out/key" 2>/dev/null)" = "$key" ]; then
    echo "$tool"
    exit 0
fi
rm -rf "$out"
mkdir -p "$out"
tar -xjf "$tarball" -C "$out" --strip-components=2 bluez-source/tools/btgatt-client
[ -x "$tool" ] || { echo "bluez-tools: no tools/btgatt-client in $tarball" >&2; exit 1; }
echo "$key" > "$out/key"
echo "$tool"

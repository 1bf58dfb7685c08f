#!/usr/bin/env bash
# Installs the Debian packages garaged needs to build and test, only those that are missing.
# Usage: scripts/deps.sh [--swift] [--print] [extra-package ...]
#   --swift   then fail, saying where to get one, when there is no swift to build with
#             (scripts/demo.sh and scripts/test.sh: the README's two commands)
#   --print   print the list (scripts/debian-swift.sh installs it in its root), install nothing.
# No Swift on Debian 13 (trixie, the base of Raspberry Pi OS): Debian's own, swiftlang (6.0.3),
# whose postinst links /usr/bin/swift (done here if it did not), git for SwiftPM, and libstdc++'s
# -dev for a release build with the Swift standard library linked in (make deb).
set -euo pipefail

need_swift=0
if [ "${1:-}" = --swift ]; then need_swift=1; shift; fi
print=0
if [ "${1:-}" = --print ]; then print=1; shift; fi
packages=(libgpiod-dev libssl-dev libbluetooth-dev libmosquitto-dev libsystemd-dev libavahi-client-dev libqrencode-dev pkg-config gpiod util-linux mosquitto mosquitto-clients openssl "$@")
if [ "$print" = 1 ]; then echo "${packages[*]}"; exit 0; fi
debian_swift=0
if ! command -v swift >/dev/null && [ "$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release 2>/dev/null | tr -d '"')" = trixie ]; then
    # libstdc++-14-dev: the static Swift standard library's link line names -lstdc++ (make deb).
    packages+=(swiftlang git libstdc++-14-dev)
    debian_swift=1
fi
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
swift_on_path() {
    [ "$debian_swift" = 1 ] && ! command -v swift >/dev/null || return 0
    if [ ! -e /usr/bin/swift ] && [ -x /usr/libexec/swift/bin/swift ]; then
        $sudo ln -s /usr/libexec/swift/bin/swift /usr/bin/swift
    fi
    command -v swift >/dev/null ||
        { echo "deps.sh: swiftlang is installed but swift is not on PATH: add /usr/libexec/swift/bin to PATH" >&2; exit 1; }
}
# Debian 12 (bookworm, and Raspberry Pi OS bookworm) has no Swift package: say where one comes from.
require_swift() {
    [ "$need_swift" = 1 ] && ! command -v swift >/dev/null || return 0
    local release
    release=$(sed -n 's/^PRETTY_NAME=//p' /etc/os-release 2>/dev/null | tr -d '"')
    echo "deps.sh: no swift on PATH, and ${release:-this system} has no Swift package of its own (Debian's swiftlang is in trixie, Debian 13, which deps.sh installs by itself there)." >&2
    echo "deps.sh: install a Swift 6 toolchain for this system from swift.org (or with swiftly), put its usr/bin on PATH, and run this again; on a Raspberry Pi see docs/raspberry-pi.md, \"Which Raspberry Pi OS\"." >&2
    exit 1
}
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
((${#missing[@]} == 0)) && { swift_on_path; require_swift; exit 0; }

if [ -n "$sudo" ]; then
    command -v sudo >/dev/null || { echo "deps.sh: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
fi
echo "deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
swift_on_path
require_swift

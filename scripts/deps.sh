#!/usr/bin/env bash
# Installs the Debian packages garaged needs to build and test, only those that are missing.
# Usage: scripts/deps.sh [extra-package ...]
set -euo pipefail

packages=(libgpiod-dev libssl-dev libbluetooth-dev libmosquitto-dev libsystemd-dev libavahi-client-dev libqrencode-dev pkg-config gpiod util-linux mosquitto mosquitto-clients openssl "$@")
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
((${#missing[@]} == 0)) && exit 0

sudo=""
if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "deps.sh: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
fi
echo "deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

#!/usr/bin/env bash
# Installs what is missing and runs every test: DoorCore unit tests, the integration tests
# that drive the real garaged binary on the simulated line through its socket, and the
# property tests of the door's invariants (property/, a package of its own).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# zbar-tools: zbarimg reads back the QR code garage-pins homekit draws; avahi-daemon,
# avahi-utils and dbus: the HomeKit discovery test runs its own in a namespace.
scripts/deps.sh zbar-tools avahi-daemon avahi-utils dbus
# The HomeKit tests' controller: aiohomekit (Home Assistant's), from PyPI.
GARAGED_HAPCTL_PYTHON="$(scripts/homekit-tools.sh)"
export GARAGED_HAPCTL_PYTHON
swift build --build-tests -Xswiftc -warnings-as-errors 2>&1 | { grep -v '^\[' || true; }
swift test --skip-build "$@"
if [ $# -eq 0 ]; then
    echo "== the door's invariants, property-based (property/)"
    swift build --package-path property --build-tests -Xswiftc -warnings-as-errors 2>&1 | { grep -v '^\[' || true; }
    swift test --package-path property --skip-build
fi

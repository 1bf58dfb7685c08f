#!/usr/bin/env bash
# Installs what is missing and runs every test: DoorCore unit tests, the integration tests
# that drive the real garaged binary on the simulated line through its socket, and the
# property tests of the door's invariants (property/, a package of its own).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# zbar-tools: zbarimg reads back the QR code garage-pins homekit draws; avahi-daemon,
# avahi-utils and dbus: the HomeKit discovery test runs its own in a namespace; python3-venv:
# scripts/homekit-tools.sh's virtualenv.
scripts/deps.sh --swift zbar-tools avahi-daemon avahi-utils dbus python3-venv
# The HomeKit tests' controller: aiohomekit (Home Assistant's), from PyPI.
GARAGED_HAPCTL_PYTHON="$(scripts/homekit-tools.sh)"
export GARAGED_HAPCTL_PYTHON
swift build --build-tests -Xswiftc -warnings-as-errors 2>&1 | { grep -v '^\[' || true; }
swift test --skip-build "$@"
swift_version=$(swift --version 2>/dev/null | sed -n 's/.*Swift version \([0-9][0-9.]*\).*/\1/p' | head -n 1)
if [ $# -eq 0 ] && [ "$(printf '%s\n' 6.2 "$swift_version" | sort -V | head -n 1)" != 6.2 ]; then
    # Its library needs Swift 6.2; Debian's own (trixie's swiftlang) is 6.0.3.
    echo "== the door's invariants, property-based (property/): skipped, it needs Swift 6.2 and this is $swift_version"
elif [ $# -eq 0 ]; then
    echo "== the door's invariants, property-based (property/)"
    swift build --package-path property --build-tests -Xswiftc -warnings-as-errors 2>&1 | { grep -v '^\[' || true; }
    swift test --package-path property --skip-build
fi

#!/usr/bin/env bash
# Installs what is missing and runs every test: DoorCore unit tests and the integration tests
# that drive the real garaged binary on the simulated line through its socket.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/deps.sh
swift build --build-tests -Xswiftc -warnings-as-errors 2>&1 | { grep -v '^\[' || true; }
swift test --skip-build "$@"

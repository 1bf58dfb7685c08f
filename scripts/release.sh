#!/usr/bin/env bash
# Makes a release in dist/: both Debian packages, amd64 (built here, for this machine's Debian
# release) and arm64 (cross-built for Raspberry Pi OS trixie, as `make deb ARCH=arm64`), and
# SHA256SUMS over them. dist/ is made anew, so it holds exactly one release.
#
# Usage (as root, on an amd64 Debian machine): scripts/release.sh        (make release)
# Env: GARAGED_ROOT_CACHE and the others of scripts/package.sh, which builds each package.
# At the end it lists dist/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

die() { echo "release.sh: $*" >&2; exit 1; }
[ $# = 0 ] || die "takes no arguments (got: $*); it always makes both packages"
host_arch=$(dpkg --print-architecture)
[ "$host_arch" = amd64 ] ||
    die "makes the amd64 package here and cross-builds the arm64 one, so it runs on an amd64 Debian machine, not $host_arch; on a Pi, make deb builds the Pi's own package"
[ "$(id -u)" = 0 ] || die "the arm64 package is cross-built in a chroot: run as root (sudo make release)"
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
    echo "release.sh: note: the work tree has uncommitted changes; the packages hold them, and their changelog names commit $(git rev-parse --short HEAD)" >&2
fi

dist=dist
started=$SECONDS
debs=()
for arch in amd64 arm64; do
    echo "== the $arch package (scripts/package.sh --arch $arch)"
    # Shown as it goes through a copy of stderr; the last line is the .deb's path.
    deb=$(scripts/package.sh --arch "$arch" --no-lintian | tee >(cat >&2) | tail -n 1)
    [ -f "$deb" ] || die "scripts/package.sh --arch $arch made no package (its last line: '$deb')"
    debs+=("$deb")
done

rm -rf "$dist"
mkdir -p "$dist"
cp "${debs[@]}" "$dist/"
(cd "$dist" && sha256sum -- *.deb > SHA256SUMS && sha256sum --check --quiet SHA256SUMS) ||
    die "the checksums in $dist/SHA256SUMS do not check"
echo "== $dist/ in $((SECONDS - started)) s; on a Pi, beside a copy of the arm64 one and SHA256SUMS:"
echo "   sha256sum --check --ignore-missing SHA256SUMS && sudo apt install ./$(basename "${debs[1]}")"
ls -l "$dist"

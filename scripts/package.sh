#!/usr/bin/env bash
# Builds the Debian package: .cache/package/garaged_<version>_<arch>.deb (plain dpkg-deb, no
# debhelper). The file set is `make install`'s (PREFIX=/usr, the unit where the target's systemd
# keeps its own);
# Depends: is what dpkg-shlibdeps finds the binaries linked against, plus adduser (postinst's
# addgroup). The version is GaragedCommand.version, declared once in the Swift source.
#
# Usage: scripts/package.sh [--arch arm64] [--no-lintian]     (make deb [ARCH=arm64])
#   --arch arm64 on an amd64 machine (as root): cross-compiled with Debian's own Swift in a trixie
#   root (scripts/arm64.sh), stripped with Debian's aarch64 binutils, and Depends: from
#   dpkg-shlibdeps reading the root's arm64 libraries. Without --arch: this machine's architecture.
# Env:   GARAGED_PACKAGE_DIR (default .cache/package), DEB_MAINTAINER ("Name <mail>")
# The last line printed is the .deb's path.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
umask 022

lintian=yes
arch=$(dpkg --print-architecture)
host_arch=$arch
while [ $# -gt 0 ]; do
    case "$1" in
    --no-lintian) lintian=no ;;
    --arch) [ $# -ge 2 ] || { echo "package.sh: --arch needs an architecture" >&2; exit 2; }; arch=$2; shift ;;
    --arch=*) arch=${1#--arch=} ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "package.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done

die() { echo "package.sh: $*" >&2; exit 1; }
started=$SECONDS

# Another architecture: only arm64 from amd64, cross-compiled (scripts/arm64.sh, docs/decisions.md).
cross=no
scratch=.build-package
strip="strip"
if [ "$arch" != "$host_arch" ]; then
    if [ "$arch" != arm64 ] || [ "$host_arch" != amd64 ]; then
        die "can build for $host_arch, or for arm64 on amd64; not for $arch here"
    fi
    [ "$(id -u)" = 0 ] || die "--arch $arch builds in a chroot: run as root"
    cross=yes
    scratch=.build-package-$arch
    strip=aarch64-linux-gnu-strip
fi

# Build tools: the libraries' -dev packages (scripts/deps.sh), dpkg-dev for dpkg-shlibdeps.
if [ "$cross" = yes ]; then
    scripts/deps.sh dpkg-dev binutils binutils-aarch64-linux-gnu
else
    scripts/deps.sh dpkg-dev binutils
fi

# Where the unit goes: where the target's systemd keeps its own. Debian 13 (trixie, merged /usr:
# its systemd and debhelper) uses /usr/lib/systemd/system, Debian 12 /lib/systemd/system. The arm64
# package is trixie's; natively, the build machine's systemd says (pkg-config), or its release.
if [ "$cross" = yes ]; then
    unitdir=/usr/lib/systemd/system
elif ! unitdir=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null) || [ -z "$unitdir" ]; then
    # shellcheck disable=SC1091
    debian_major=$(. /etc/os-release && echo "${VERSION_ID%%.*}")
    if [ -n "$debian_major" ] && [ "$debian_major" -lt 13 ] 2>/dev/null; then
        unitdir=/lib/systemd/system
    else
        unitdir=/usr/lib/systemd/system
    fi
fi

version=$(sed -n 's/^[[:space:]]*static let version = "\([^"]*\)".*/\1/p' Sources/garaged/Runtime/BuildInfo.swift)
[ "$(printf '%s\n' "$version" | grep -c .)" = 1 ] ||
    die "expected one 'static let version = \"...\"' in Sources/garaged/Runtime/BuildInfo.swift, found: '$version'"
[[ "$version" =~ ^[0-9][A-Za-z0-9.+~]*$ ]] || die "version '$version' is not a Debian upstream version"
maintainer=${DEB_MAINTAINER:-garaged maintainers <maintainers@users.noreply.a-seed-d4ae77ef.example>}
# Reproducible: every file's time, and the changelog's date, is the last commit's.
SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || date +%s)
export SOURCE_DATE_EPOCH

out=${GARAGED_PACKAGE_DIR:-.cache/package}
stage=$out/stage
root=$stage/debian/garaged
deb=$out/garaged_${version}_${arch}.deb

echo "== release build (static Swift standard library, $scratch/)"
build_started=$SECONDS
if [ "$cross" = yes ]; then
    scripts/arm64.sh release "$scratch/release" | sed 's/^/   /'
else
    make --no-print-directory build 2>&1 | { grep -v -e '^\[' -e "use of \`mktemp' is dangerous" || true; }
fi
echo "   built in $((SECONDS - build_started)) s"

echo "== staging $root"
rm -rf "$stage"
mkdir -p "$root"
make --no-print-directory install DESTDIR="$(realpath -m "$root")" PREFIX=/usr SYSCONFDIR=/etc \
    UNITDIR="$unitdir" ZSHCOMPDIR=/usr/share/zsh/vendor-completions \
    SCRATCH="$scratch" STRIP="$strip" >/dev/null
# In the build root for arm64: there the arm64 libraries are, and qemu-user runs the binaries.
run_staged() { if [ "$cross" = yes ]; then scripts/arm64.sh run "$root" "$@"; else (cd "$root" && "$@"); fi; }
run_staged usr/sbin/garaged --version >/dev/null || die "the staged garaged does not run"
run_staged usr/bin/garage-pins --help >/dev/null || die "the staged garage-pins does not run"

doc=$root/usr/share/doc/garaged
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
{
    echo "garaged ($version) unstable; urgency=medium"
    echo
    echo "  * Release $version, built from git commit $commit (the changes: git log)."
    echo
    echo " -- $maintainer  $(date -u -R -d "@$SOURCE_DATE_EPOCH")"
} | gzip -9n > "$doc/changelog.gz"

echo "== control files; Depends: from what the binaries link (dpkg-shlibdeps)"
mkdir -m 0755 "$root/DEBIAN"
mkdir -p "$stage/debian"
printf 'Source: garaged\n\nPackage: garaged\nArchitecture: any\n' > "$stage/debian/control"
# (dpkg 1.21's "binaries to analyze should already be installed in their package's directory"
# is said even when they are, as here: dropped. So is trixie's "diversions involved" about the
# dynamic loader, which usrmerge diverts: it does not change what a library is found in.)
shlibdeps=(dpkg-shlibdeps -O -e debian/garaged/usr/sbin/garaged -e debian/garaged/usr/bin/garage-pins)
if [ "$cross" = yes ]; then
    shlibs=$(scripts/arm64.sh run "$stage" "${shlibdeps[@]}" \
        2> >(grep -v -e "should already be installed in their package's directory" -e "diversions involved" \
                -e '^ diversion by libc6 ' >&2))
else
    shlibs=$(cd "$stage" && "${shlibdeps[@]}" \
        2> >(grep -v "should already be installed in their package's directory" >&2))
fi
shlibs=${shlibs#shlibs:Depends=}
[[ "$shlibs" == *libc6* ]] || die "dpkg-shlibdeps gave no dependencies: '$shlibs'"
depends="$shlibs, adduser"
echo "   Depends: $depends"

for script in postinst prerm postrm; do
    install -m 0755 "packaging/debian/$script" "$root/DEBIAN/$script"
done
echo /etc/garaged.conf > "$root/DEBIAN/conffiles"
chmod 0644 "$root/DEBIAN/conffiles"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) \
    > "$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/md5sums"
installed_size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@MAINTAINER@|$maintainer|" \
    -e "s|@INSTALLED_SIZE@|$installed_size|" -e "s|@DEPENDS@|$depends|" \
    packaging/debian/control > "$root/DEBIAN/control"
chmod 0644 "$root/DEBIAN/control"
if grep -n '@[A-Z_]*@' "$root/DEBIAN/control"; then die "a placeholder is left in DEBIAN/control"; fi

find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
rm -f "$deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "== $deb ($(du -h "$deb" | cut -f1), installed $installed_size KiB) in $((SECONDS - started)) s"
dpkg-deb --field "$deb" Package Version Architecture Depends | sed 's/^/   /'

if [ "$lintian" = yes ]; then
    if command -v lintian >/dev/null; then
        echo "== lintian"
        lintian --display-info --tag-display-limit 0 "$deb" | sed 's/^/   /' || true
    else
        echo "== lintian: not installed (apt-get install lintian), skipped"
    fi
fi
echo "$deb"

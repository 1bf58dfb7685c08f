#!/usr/bin/env bash
# Proves that Sources/CGpio/*.c compiles and links against libgpiod v2 without touching the
# system (Debian 12 only ships libgpiod v1). Everything lives under .cache/gpiod-v2 (git-ignored):
#
#   1. download the PyPI `gpiod` 2.x sdist, which bundles libgpiod 2.x's C sources (once);
#   2. build a static libgpiod_v2static.a from them and write a libgpiod.pc for it (once);
#   3. C-only check, always: compile CGpio's C files with -Wall -Wextra -Werror against the v2 headers,
#      link a tiny program calling every cgpio_* function against the static v2 library, run it;
#      the same against the system libgpiod (v1) when it is installed, for comparison;
#   4. with --swift: PKG_CONFIG_PATH=<v2 dir> swift build --scratch-path .build-v2 --product garaged
#      (the whole package must be buildable for this one).
#
# Usage: scripts/gpiod-v2.sh [--swift] [--clean]
#   --swift   also build the garaged product against v2 with SwiftPM
#   --clean   delete .cache/gpiod-v2 first (forces a fresh download and library build)
# Environment: CC (default cc), PYTHON (default python3), GPIOD_PYPI_SPEC (default 'gpiod==2.*').
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
cache="$root/.cache/gpiod-v2"
CC="${CC:-cc}"
PYTHON="${PYTHON:-python3}"
spec="${GPIOD_PYPI_SPEC:-gpiod==2.*}"

want_swift=0
for arg in "$@"; do
    case "$arg" in
    --swift) want_swift=1 ;;
    --clean) rm -rf "$cache" ;;
    -h | --help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "gpiod-v2.sh: unknown argument '$arg' (try --help)" >&2; exit 2 ;;
    esac
done

step="starting"
# True when BINARY defines SYMBOL and does not load a shared libgpiod. (No `cmd | grep -q`: with
# pipefail, grep -q exiting early turns cmd's SIGPIPE into a failure.)
static_v2_linked() {
    local syms deps
    syms="$(nm "$1" 2>/dev/null)" || return 1
    deps="$(ldd "$1" 2>/dev/null || true)"
    grep -q " T $2\$" <<<"$syms" && ! grep -q libgpiod <<<"$deps"
}
say() { printf '==> %s\n' "$*"; }
die() { trap - EXIT; printf '\ngpiod-v2.sh: FAILED while %s: %s\n' "$step" "$*" >&2; exit 1; }
trap 'rc=$?; [ $rc -eq 0 ] || printf "\ngpiod-v2.sh: FAILED (exit %s) while %s\n" "$rc" "$step" >&2' EXIT

command -v "$CC" >/dev/null || die "C compiler '$CC' not found (set CC=...)"
command -v ar >/dev/null || die "'ar' not found (apt-get install binutils)"
command -v pkg-config >/dev/null || die "pkg-config not found (apt-get install pkg-config)"
ls "$root"/Sources/CGpio/*.c > /dev/null 2>&1 || die "no C files in $root/Sources/CGpio"
mkdir -p "$cache/dl"

# --- 1. the sdist ---------------------------------------------------------------------------
step="downloading the PyPI '$spec' sdist"
latest_sdist() { ls "$cache"/dl/gpiod-2.*.tar.gz 2>/dev/null | sort -V | tail -n 1; }
sdist="$(latest_sdist || true)"
if [ -z "$sdist" ]; then
    "$PYTHON" -m pip --version >/dev/null 2>&1 || die "'$PYTHON -m pip' does not work (install pip or set PYTHON=...)"
    say "downloading $spec (source only) into ${cache#"$root"/}/dl"
    "$PYTHON" -m pip download --quiet --no-binary :all: --no-deps --dest "$cache/dl" "$spec" \
        || die "pip download failed (is PyPI reachable? a proxy set?)"
    sdist="$(latest_sdist || true)"
    [ -n "$sdist" ] || die "pip reported success but no gpiod-2.*.tar.gz is in $cache/dl"
else
    say "reusing $(basename "$sdist")"
fi

step="unpacking $(basename "$sdist")"
src="$cache/src/$(basename "$sdist" .tar.gz)"
if [ ! -f "$src/.unpacked" ]; then
    rm -rf "$src" && mkdir -p "$cache/src"
    tar -xzf "$sdist" -C "$cache/src" || die "cannot unpack $sdist"
    [ -d "$src" ] || die "$sdist did not unpack into $(basename "$src")/"
    touch "$src/.unpacked"
fi
for f in include/gpiod.h lib/chip.c lib/internal.h lib/uapi/gpio.h libgpiod-version.txt; do
    [ -e "$src/$f" ] || die "$(basename "$sdist") has no $f: this gpiod sdist does not bundle the libgpiod C sources (pin GPIOD_PYPI_SPEC to a version that does)"
done
libver="$(tr -d ' \n' <"$src/libgpiod-version.txt")"
case "$libver" in 2.*) ;; *) die "bundled libgpiod is '$libver', not 2.x" ;; esac

# --- 2. static libgpiod.a + libgpiod.pc --------------------------------------------------------
step="building static libgpiod $libver"
prefix="$cache/prefix-$libver"
pcdir="$prefix/lib/pkgconfig"
stamp="$prefix/.built-by"
# The layout of what is written here is part of the stamp: a change to the .pc rebuilds it.
want_stamp="$(basename "$sdist") $("$CC" --version | head -n 1) pc:own-name"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want_stamp" ]; then
    say "building libgpiod $libver (static) from $(basename "$sdist")"
    rm -rf "$cache"/build.* # leftovers of an interrupted run
    tmp="$(mktemp -d "$cache/build.XXXXXX")"
    mkdir -p "$tmp/obj" "$tmp/prefix/include" "$tmp/prefix/lib/pkgconfig"
    for c in "$src"/lib/*.c; do
        "$CC" -std=gnu11 -O2 -fPIC -Wall -D_GNU_SOURCE -DGPIOD_API_VERSION_STR="\"$libver\"" \
            -I "$src/include" -I "$src/lib" -c "$c" -o "$tmp/obj/$(basename "$c" .c).o" \
            || die "compiling $c failed"
    done
    # Its own name, so a system -L directory earlier on SwiftPM's link line (libbluetooth's adds
    # /usr/lib/x86_64-linux-gnu) cannot hand the linker the system's v1 libgpiod.so instead.
    ar rcs "$tmp/prefix/lib/libgpiod_v2static.a" "$tmp"/obj/*.o || die "ar failed"
    cp "$src/include/gpiod.h" "$tmp/prefix/include/"
    cat >"$tmp/prefix/lib/pkgconfig/libgpiod.pc" <<EOF
prefix=$prefix
includedir=\${prefix}/include
libdir=\${prefix}/lib

Name: libgpiod
Description: libgpiod $libver built statically from the PyPI $(basename "$sdist" .tar.gz) sdist (CI only)
Version: $libver
Cflags: -I\${includedir}
Libs: -L\${libdir} -lgpiod_v2static
EOF
    echo "$want_stamp" >"$tmp/prefix/.built-by"
    rm -rf "$prefix" && mv "$tmp/prefix" "$prefix" && rm -rf "$tmp"
else
    say "reusing static libgpiod $libver in ${prefix#"$root"/}"
fi
[ "$(PKG_CONFIG_PATH="$pcdir" pkg-config --modversion libgpiod)" = "$libver" ] \
    || die "pkg-config does not see libgpiod $libver through $pcdir/libgpiod.pc"

# --- 3. C-only checks ------------------------------------------------------------------------
step="writing the cgpio smoke test"
work="$cache/check"
mkdir -p "$work"
cat >"$work/smoke.c" <<'EOF'
// Calls every cgpio_* function. There is no GPIO hardware in CI, so opening must fail cleanly
// with a sentence; close/set must accept NULL.
#include "cgpio.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
    const char *chip = argc > 1 ? argv[1] : "gpiochip0";
    const char *line = argc > 2 ? argv[2] : "17";
    char err[512];
    memset(err, 'x', sizeof err);
    cgpio_output *out = cgpio_output_open(chip, line, 1, "cgpio-smoke", err, sizeof err);
    printf("cgpio_api_version() = %s\n", cgpio_api_version());
    if (out != NULL) {
        printf("open(%s, %s) succeeded (real hardware?); set 1 -> %d, set 0 -> %d\n", chip, line,
               cgpio_output_set(out, 1), cgpio_output_set(out, 0));
        cgpio_output_close(out);
        return 0;
    }
    if (memchr(err, '\0', sizeof err) == NULL || err[0] == '\0') {
        fprintf(stderr, "open(%s, %s) failed without an error sentence\n", chip, line);
        return 1;
    }
    printf("open(%s, %s) -> NULL: %s\n", chip, line, err);
    if (cgpio_output_set(NULL, 1) != -EINVAL) {
        fprintf(stderr, "cgpio_output_set(NULL, 1) should be -EINVAL\n");
        return 1;
    }
    cgpio_output_close(NULL);
    memset(err, 'x', sizeof err);
    cgpio_input *in = cgpio_input_open(chip, line, 1, "cgpio-smoke", err, sizeof err);
    if (in != NULL) {
        cgpio_edge edges[4];
        printf("input open(%s, %s) succeeded; value %d, edges %d\n", chip, line, cgpio_input_value(in),
               cgpio_input_read_edges(in, edges, 4));
        cgpio_input_close(in);
    } else if (memchr(err, '\0', sizeof err) == NULL || err[0] == '\0') {
        fprintf(stderr, "input open(%s, %s) failed without an error sentence\n", chip, line);
        return 1;
    } else {
        printf("input open(%s, %s) -> NULL: %s\n", chip, line, err);
    }
    cgpio_input_close(NULL);
    return 0;
}
EOF

# check NAME EXPECTED_API PKG_CONFIG_PATH(or "") EXTRA_LDFLAGS
check() {
    local name="$1" expect="$2" pcpath="$3" ldextra="$4" cflags libs out
    step="C-only check against $name"
    cflags="$(PKG_CONFIG_PATH="$pcpath" pkg-config --cflags libgpiod)" || die "pkg-config --cflags failed"
    libs="$(PKG_CONFIG_PATH="$pcpath" pkg-config --libs libgpiod)" || die "pkg-config --libs failed"
    # shellcheck disable=SC2086
    local objects=() c o
    for c in "$root"/Sources/CGpio/*.c; do
        o="$work/$(basename "$c" .c)-$expect.o"
        # shellcheck disable=SC2086
        "$CC" -std=c11 -Wall -Wextra -Werror -I "$root/Sources/CGpio/include" $cflags \
            -c "$c" -o "$o" || die "$(basename "$c") does not compile cleanly against $name"
        objects+=("$o")
    done
    # shellcheck disable=SC2086
    "$CC" -std=c11 -Wall -Wextra -Werror -I "$root/Sources/CGpio/include" \
        "$work/smoke.c" "${objects[@]}" $ldextra $libs -o "$work/smoke-$expect" \
        || die "linking the smoke test against $name failed"
    out="$("$work/smoke-$expect" gpiochip0 17)" || die "smoke test against $name failed: $out"
    printf '%s\n' "$out" | sed 's/^/    /'
    grep -qx "cgpio_api_version() = $expect" <<<"$out" \
        || die "CGpio was built as $(sed -n 's/^cgpio_api_version() = //p' <<<"$out") against $name, expected $expect"
    say "C-only build against $name: OK, cgpio_api_version() = $expect"
}

say "C-only check: CGpio against libgpiod $libver (static, from the sdist)"
check "libgpiod $libver (static)" v2 "$pcdir" ""
# gpiod_chip_request_lines exists only in v2; CGpio's v2 path calls it.
if static_v2_linked "$work/smoke-v2" gpiod_chip_request_lines; then
    say "smoke-v2 has libgpiod $libver linked in statically (no libgpiod.so dependency)"
else
    die "smoke-v2 is not statically linked against the v2 library"
fi

if sysver="$(PKG_CONFIG_PATH= pkg-config --modversion libgpiod 2>/dev/null)"; then
    case "$sysver" in
    1.*) say "C-only check: CGpio against the system libgpiod $sysver"
         check "system libgpiod $sysver" v1 "" "" ;;
    2.*) say "C-only check: CGpio against the system libgpiod $sysver"
         check "system libgpiod $sysver" v2 "" "" ;;
    *) say "system libgpiod is $sysver: not checked" ;;
    esac
else
    say "no system libgpiod (apt-get install libgpiod-dev): v1 check skipped"
fi

# --- 4. optional whole-package SwiftPM build ---------------------------------------------------
if [ "$want_swift" -eq 1 ]; then
    step="swift build of garaged against libgpiod $libver"
    command -v swift >/dev/null || die "swift not found on PATH"
    [ -n "$(find "$root/Sources/garaged" -name '*.swift' -print -quit)" ] \
        || die "Sources/garaged has no .swift files yet: nothing to build with --swift"
    say "PKG_CONFIG_PATH=${pcdir#"$root"/} swift build --scratch-path .build-v2 --product garaged"
    (cd "$root" && PKG_CONFIG_PATH="$pcdir" swift build --scratch-path .build-v2 --product garaged) \
        || die "swift build against libgpiod $libver failed (see above)"
    bin="$(cd "$root" && PKG_CONFIG_PATH="$pcdir" swift build --scratch-path .build-v2 --product garaged --show-bin-path)/garaged"
    [ -x "$bin" ] || die "swift build succeeded but $bin is missing"
    # gpiod_chip_request_lines exists only in v2 and only CGpio's v2 path calls it, so its
    # presence means CGpio was compiled as v2 (cgpio_api_version() = "v2") and linked statically.
    if static_v2_linked "$bin" gpiod_chip_request_lines; then
        say "swift build of garaged: OK, CGpio built as v2 (cgpio_api_version() = v2), libgpiod $libver linked statically"
    else
        die "garaged was not linked against the static libgpiod $libver (ldd: $(ldd "$bin" | grep libgpiod || echo "no libgpiod.so"))"
    fi
fi

step="finishing"
say "all checks passed (libgpiod v2 = $libver from $(basename "$sdist"))"

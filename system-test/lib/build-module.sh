#!/usr/bin/env bash
# Build gpio-sim out of tree for kernel KVER from Debian's linux-source package.
# Usage: build-module.sh KVER OUTDIR   -> prints the path of gpio-sim.ko
# Debian's kernel ships without CONFIG_GPIO_SIM (and without CONFIG_IRQ_SIM), so the module is made
# of gpio-sim.c plus irq_sim.c. irq_to_desc() is not exported to modules, so irq_sim.c's
# handle_simple_irq(irq_to_desc(irq)) becomes generic_handle_irq(irq). Cached by a key made of the
# kernel version, the source package version and this script.
set -euo pipefail

kver=${1:?kernel version}
out=${2:?output dir}
series=$(echo "$kver" | cut -d. -f1,2)
tarball=/usr/src/linux-source-$series.tar.xz
headers=/lib/modules/$kver/build

[ -f "$tarball" ] || { echo "build-module: $tarball missing (package linux-source-$series)" >&2; exit 1; }
[ -d "$headers" ] || { echo "build-module: $headers missing (package linux-headers-$kver)" >&2; exit 1; }

srcver=$(dpkg-query -W -f='${Version}' "linux-source-$series" 2>/dev/null || echo unknown)
key="$kver $srcver $(sha256sum "${BASH_SOURCE[0]}" | cut -c1-16)"
ko=$out/gpio-sim.ko
if [ -f "$ko" ] && [ "$(cat "$out/key" 2>/dev/null)" = "$key" ]; then
    echo "$ko"
    exit 0
fi

rm -rf "$out"
mkdir -p "$out/src"
top=linux-source-$series
tar -xJf "$tarball" -C "$out/src" --strip-components=1 \
    "$top/drivers/gpio/gpio-sim.c" "$top/drivers/gpio/gpiolib.h" "$top/kernel/irq/irq_sim.c"

b=$out/build
mkdir -p "$b"
# The module cannot contain an object named like itself: the driver file becomes gpio-sim-core.o.
cp "$out/src/drivers/gpio/gpio-sim.c" "$b/gpio-sim-core.c"
cp "$out/src/drivers/gpio/gpiolib.h" "$b/gpiolib.h"
sed 's/handle_simple_irq(irq_to_desc(\([a-z_]*\)))/generic_handle_irq(\1)/' \
    "$out/src/kernel/irq/irq_sim.c" > "$b/irq_sim.c"
if grep -q irq_to_desc "$b/irq_sim.c"; then
    echo "build-module: irq_sim.c still calls irq_to_desc after the patch; the source changed" >&2
    exit 1
fi
printf 'obj-m := gpio-sim.o\ngpio-sim-y := gpio-sim-core.o irq_sim.o\n' > "$b/Kbuild"

make -s -C "$headers" M="$b" -j"$(nproc)" modules >"$out/build.log" 2>&1 || {
    cat "$out/build.log" >&2
    echo "build-module: make failed" >&2
    exit 1
}
cp "$b/gpio-sim.ko" "$ko"
rm -rf "$out/src"
echo "$key" > "$out/key"
echo "$ko"

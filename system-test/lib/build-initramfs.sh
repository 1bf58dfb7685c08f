#!/usr/bin/env bash
# Build the guest's initramfs: busybox-static, the modules needed to reach the 9p shares, /init.
# Usage: build-initramfs.sh KVER OUTDIR   -> prints the path of initramfs.cpio.gz
# Cached by a key made of the kernel version, busybox's version and the files that go in.
set -euo pipefail

kver=${1:?kernel version}
out=${2:?output dir}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
img=$out/initramfs.cpio.gz

# modprobe resolves the load order for the guest's kernel from its modules.dep.
mods=$(modprobe -S "$kver" -a --show-depends virtio_pci 9pnet_virtio 9p |
       awk '$1 == "insmod" { print $2 }' | awk '!seen[$0]++')
[ -n "$mods" ] || { echo "build-initramfs: no modules found for $kver" >&2; exit 1; }

bbver=$(dpkg-query -W -f='${Version}' busybox-static 2>/dev/null || echo unknown)
key="$kver $bbver $(cat "$here/init" "${BASH_SOURCE[0]}" | sha256sum | cut -c1-16)"
if [ -f "$img" ] && [ "$(cat "$out/key" 2>/dev/null)" = "$key" ]; then
    echo "$img"
    exit 0
fi

rm -rf "$out"
root=$out/root
mkdir -p "$root"/{bin,dev,proc,sys,newroot,lib/modules}
cp /bin/busybox "$root/bin/busybox"
for a in sh mount insmod mkdir switch_root cat sed tr sleep echo sync; do
    ln -s busybox "$root/bin/$a"
done
: > "$root/modules.list"
for m in $mods; do
    case $m in
        *.ko) cp "$m" "$root/lib/modules/" ;;
        *.ko.xz) xz -dc "$m" > "$root/lib/modules/$(basename "$m" .xz)" ;;
        *.ko.zst) zstd -qdc "$m" > "$root/lib/modules/$(basename "$m" .zst)" ;;
        *) echo "build-initramfs: unexpected module file $m" >&2; exit 1 ;;
    esac
    b=$(basename "$m"); echo "${b%.ko*}.ko" >> "$root/modules.list"
done
install -m 0755 "$here/init" "$root/init"
(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 > "$img.tmp"
mv "$img.tmp" "$img"
rm -rf "$root"
echo "$key" > "$out/key"
echo "$img"

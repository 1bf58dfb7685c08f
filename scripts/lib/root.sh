# shellcheck shell=bash disable=SC2154
# Shared by the scripts that work in a debootstrapped Debian root (scripts/debian-swift.sh,
# scripts/arm64.sh, and for unmount_all scripts/package-test.sh): making the root, mounting into
# it and unmounting, and giving it the host's trust. Sourced; the caller sets `root`, `base` (the
# folder for the logs), `mirror`, a `mounted` array, and defines `say`, `fail` and `in_root`.

# Mounts SOURCE at TARGET inside the root and remembers it for unmounting.
mount_in() { # TYPE-or-[r]bind[-ro] SOURCE TARGET
    local target=$root$3
    mkdir -p "$target"
    case $1 in
    bind) mount --bind "$2" "$target" ;;
    rbind) mount --rbind "$2" "$target" && mount --make-rslave "$target" ;;
    bind-ro) mount --bind "$2" "$target" && mount -o remount,bind,ro "$target" ;;
    *) mount -t "$1" "$2" "$target" ;;
    esac
    mounted+=("$target")
    # Nothing mounted below it reaches the host's own (a bind of a shared /dev would).
    [ "$1" = rbind ] || mount --make-private "$target"
}

# Unmounts what mount_in mounted, the last first, then anything a killed earlier run left
# mounted under DIR (the root) or at DIR itself.
unmount_all() { # DIR
    local under=$1 i m
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        m=${mounted[i]}
        umount -R "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || echo "${0##*/}: cannot unmount $m" >&2
    done
    mounted=()
    while read -r m; do
        umount -l "$m" 2>/dev/null || true
    done < <(awk -v r="$under" 'index($2, r "/") == 1 || $2 == r {print $2}' /proc/self/mounts | sort -r)
}

# A minimal Debian trixie made by debootstrap (in ROOT.tmp, renamed when complete), with the
# host's resolver and /proc, /dev and /run mounted for apt.
bootstrap_root() {
    timeout --kill-after=10 1200 debootstrap --variant=minbase trixie "$root.tmp" "$mirror" \
        > "$base/debootstrap.log" 2>&1 ||
        { tail -n 20 "$base/debootstrap.log"; fail "debootstrap failed (log: $base/debootstrap.log)"; }
    mv "$root.tmp" "$root"
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    mount_in proc proc /proc
    mount_in bind /dev /dev
    mount_in tmpfs tmpfs /run
}

# apt-get update, then install PACKAGES in the root; the log is $base/apt.log.
apt_install_in_root() { # PACKAGE...
    in_root 600 apt-get -q -o Dpkg::Use-Pty=0 -o Acquire::Retries=3 update > "$base/apt.log" 2>&1 ||
        { tail -n 20 "$base/apt.log"; fail "apt-get update (log: $base/apt.log)"; }
    in_root 1800 apt-get -q -y -o Dpkg::Use-Pty=0 -o Acquire::Retries=3 --no-install-recommends install \
        "$@" >> "$base/apt.log" 2>&1 ||
        { tail -n 30 "$base/apt.log"; fail "apt-get install (log: $base/apt.log)"; }
}

# The host's certificate authorities of its own (a proxy's), so pip and git in the root trust
# what the host does; and the host's git URL rewrites (a local mirror of github.com, say), with
# the local folders they name bound read-only.
share_host_trust() {
    local c key value prefix
    rm -f "$root"/usr/local/share/ca-certificates/host-*.crt
    for c in /usr/local/share/ca-certificates/*.crt; do
        [ -f "$c" ] && cp "$c" "$root/usr/local/share/ca-certificates/host-$(basename "$c")"
    done
    in_root 60 update-ca-certificates --fresh > /dev/null 2>&1 || fail "update-ca-certificates in the root"

    : > "$root/etc/gitconfig"
    while read -r key value; do
        [ -n "$key" ] || continue
        in_root 10 git config --system --add "$key" "$value"
        prefix=${key#url.}
        prefix=${prefix%.insteadof}
        prefix=${prefix%/}
        if [ "${prefix#/}" != "$prefix" ] && [ -d "$prefix" ] && ! mountpoint -q "$root$prefix"; then
            mount_in bind-ro "$prefix" "$prefix"
            say "    git: $value -> $prefix (the host's, read-only)"
        fi
    done < <(git config --get-regexp '^url\..*\.insteadof$' || true)
}

# shellcheck shell=bash disable=SC2154
# Shared by the scripts that work in a debootstrapped Debian root (scripts/debian-swift.sh,
# scripts/arm64.sh): mounting into it, and giving it the host's trust. Sourced; the caller sets
# `root`, a `mounted` array, and defines `say`, `fail` and `in_root`.

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

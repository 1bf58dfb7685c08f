#if canImport(Glibc)
import Glibc
#endif

/// Where garaged's local socket is and its address as the kernel takes it: one definition for
/// the daemon that listens on it and the tool that connects to it.
public enum LocalSocketAddress {
    public static let defaultPath = "/run/garaged/garaged.sock"

    /// The longest path a Unix socket address holds (the kernel's 108 bytes, less the NUL).
    public static let maxPathBytes = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// The address of the socket at `path`; nil when the path is too long for one.
    public static func make(_ path: String) -> sockaddr_un? {
        let bytes = Array(path.utf8)
        guard bytes.count <= maxPathBytes else { return nil }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return addr
    }
}

/// The group whose members may use the local socket, and what to do when garaged had none to
/// give it: one text for `garaged doctor` and `garage-pins`, so that they never advise
/// differently (and never joining root's group, which is what the socket has then).
public enum LocalSocketGroup {
    /// The package's group; garaged gives the socket to it when it exists at start.
    public static let defaultName = "garage"

    /// The commands that let `user` use the socket when garaged gave it no group: make the
    /// group (unless `exists`), restart garaged (it gives the socket to the group only when it
    /// starts), then join the group.
    public static func missingAdvice(user: String, exists: Bool) -> String {
        (exists ? "" : "sudo groupadd --system \(defaultName), then ")
            + "sudo systemctl restart garaged (it gives the socket to the group \(defaultName) when it starts), then sudo usermod -aG \(defaultName) \(user) and log in again"
    }
}

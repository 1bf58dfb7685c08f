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

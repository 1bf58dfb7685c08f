import CLinux
import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
#endif

/// The owner's door into the daemon: a Unix SOCK_SEQPACKET socket, mode 0660, one request per
/// packet. The ATT test seam listens the same way.
enum LocalSocket {
    /// Binds and listens (non-blocking). A socket file left by a dead daemon is replaced; one a
    /// live daemon still answers on is not.
    static func listen(path: String, type: Int32 = Int32(SOCK_STREAM.rawValue),
                       flag: String = "--socket") throws(ConfigError) -> Int32 {
        guard var addr = LocalSocketAddress.make(path) else {
            throw ConfigError("socket path \(path) is too long for a Unix socket (at most \(LocalSocketAddress.maxPathBytes) bytes); choose a shorter \(flag)")
        }
        let dir = AtomicFile.directory(of: path)
        if access(dir, F_OK) != 0 {
            guard mkdir(dir, 0o755) == 0 || errno == EEXIST else {
                throw ConfigError("cannot create the socket's directory \(dir): \(String(cString: strerror(errno))); create it or choose another \(flag)")
            }
        }
        var st = stat()
        if lstat(path, &st) == 0 {
            guard st.st_mode & S_IFMT == S_IFSOCK else {
                throw ConfigError("\(path) exists and is not a socket; garaged will not delete it. Choose another \(flag), or remove the file if it is not needed")
            }
            if let probe = try? connect(path: path, type: type) {
                close(probe)
                throw ConfigError("another garaged is already listening on \(path); stop it or choose another \(flag)")
            }
            unlink(path)
        }
        let fd = socket(AF_UNIX, type | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ConfigError("cannot create a Unix socket: \(String(cString: strerror(errno)))") }
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            let e = errno
            close(fd)
            throw ConfigError("cannot bind the socket \(path): \(String(cString: strerror(e))); check that its directory is writable")
        }
        chmod(path, 0o660)
        guard Glibc.listen(fd, 64) == 0 else {
            let e = errno
            close(fd)
            throw ConfigError("cannot listen on \(path): \(String(cString: strerror(e)))")
        }
        return fd
    }

    /// A blocking client connection (used here only to see whether a daemon is alive).
    static func connect(path: String, type: Int32) throws(ConfigError) -> Int32 {
        guard var addr = LocalSocketAddress.make(path) else { throw ConfigError("socket path \(path) is too long") }
        let fd = socket(AF_UNIX, type | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ConfigError("socket: \(String(cString: strerror(errno)))") }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard rc == 0 else {
            close(fd)
            throw ConfigError("connect \(path): \(String(cString: strerror(errno)))")
        }
        return fd
    }

    /// The connecting process's uid, from the kernel (SO_PEERCRED), which a client cannot forge.
    static func peerUID(_ fd: Int32) -> uid_t? {
        let uid = clinux_peer_uid(fd)
        return uid < 0 ? nil : uid_t(uid)
    }
}

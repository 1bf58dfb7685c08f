import CLinux
import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// The local socket's listening end: each connection is told apart by the uid the kernel
/// reports for it, and the owner (uid 0 or the daemon's own uid) is never throttled.
final class LocalListener: Listener {
    let fd: Int32
    let path: String
    private let trustedUIDs: Set<uid_t> = [0, getuid()]

    init(path: String) throws(ConfigError) {
        fd = try LocalSocket.listen(path: path)
        self.path = path
    }

    var description: String { "local socket \(path)" }

    func accept(at now: Instant) -> Connection? {
        let client = clinux_accept_nonblocking(fd)
        guard client >= 0 else { return nil }
        let uid = LocalSocket.peerUID(client)
        let trusted = uid.map { trustedUIDs.contains($0) } ?? false
        let source = RequestSource("local uid=\(uid.map { String($0) } ?? "?")", throttled: !trusted, isLocal: true)
        return LocalClient(fd: client, source: source, at: now)
    }

    func close() {
        Glibc.close(fd)
        unlink(path)
    }
}

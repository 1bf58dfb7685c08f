import CLinux
import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// The local socket's listening end: each connection is told apart by the uid the kernel
/// reports for it, and the owner (uid 0 or the daemon's own uid) is never throttled.
final class LocalListener: SocketFileListener, @unchecked Sendable {
    let fd: Int32
    let path: String
    let connectTimes: ConnectTimes?
    private let trustedUIDs: Set<uid_t> = [0, getuid()]

    private(set) var group: String?
    /// Why the default group could not have the socket (said in the start-up log).
    private(set) var groupProblem: String?

    /// Listens on `path` (mode 0660); with a group, the socket belongs to it, so its members can
    /// reach the daemon (they still need a PIN, and are throttled like any user but the owner).
    /// A group set on purpose that cannot have the socket stops the start; the default group
    /// is only a convenience, so failing it is said and the socket keeps the daemon's group.
    init(path: String, group: (name: String, gid: gid_t)?, required: Bool) throws(ConfigError) {
        fd = try LocalSocket.listen(path: path, type: Int32(SOCK_SEQPACKET.rawValue))
        self.path = path
        connectTimes = ConnectTimes(path: path)
        guard let group else { return }
        if chown(path, uid_t.max, group.gid) == 0 {
            self.group = group.name
            return
        }
        let why = "cannot give the socket \(path) to the group \(group.name): \(String(cString: strerror(errno)))"
        guard required else {
            groupProblem = why
            return
        }
        close()
        throw ConfigError("\(why); run garaged as root, or set --socket-group to a group of its user")
    }

    var description: String { "local socket \(path)" + (group.map { " (group \($0))" } ?? "") }

    func accept(at now: Instant, emptyMark: Int64) throws(AcceptFailure) -> Connection? {
        guard let client = try accepted(clinux_accept_nonblocking(fd)) else { return nil }
        let uid = LocalSocket.peerUID(client)
        let trusted = uid.map { trustedUIDs.contains($0) } ?? false
        let source = RequestSource("local uid=\(uid.map { String($0) } ?? "?")", channel: trusted ? nil : .local, isLocal: true)
        return LocalClient(fd: client, source: source, at: now, arrivals: Arrivals(stamping: client, acceptedAfter: emptyMark))
    }

    func close() {
        Glibc.close(fd)
        unlink(path)
    }
}

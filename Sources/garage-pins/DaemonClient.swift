import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
#endif

/// A connection to garaged's local socket (SOCK_SEQPACKET): one request packet out, reply
/// records (`record\n` lines, in packets) back until the final one.
struct DaemonClient {
    static let timeout: Int32 = 5000  // ms

    let socketPath: String

    /// Sends one request and returns its replies as text records.
    func send(_ request: [UInt8]) throws(CLIError) -> [String] {
        let fd = try connect()
        defer { close(fd) }
        try sendLine(request, on: fd)
        var pending: [UInt8] = []
        var records: [String] = []
        while true {
            let record = try nextRecord(fd, &pending, timeout: DaemonClient.timeout)
            records.append(record)
            if !Reply.continues(record) { return records }
        }
    }

    /// Sends a follow request and hands each pushed record to `body` until the daemon goes
    /// away or `body` returns false; the first record is the daemon's answer (`OK`, or why it
    /// refused).
    func follow(_ request: [UInt8], _ body: (String) throws(CLIError) -> Bool) throws(CLIError) {
        let fd = try connect()
        defer { close(fd) }
        try sendLine(request, on: fd)
        var pending: [UInt8] = []
        let first = try nextRecord(fd, &pending, timeout: DaemonClient.timeout)
        if first.hasPrefix("ERR") { throw .refused(CLIError.explain(first)) }
        while try body(try nextRecord(fd, &pending, timeout: -1)) {}
    }

    private func sendLine(_ request: [UInt8], on fd: Int32) throws(CLIError) {
        var line = request
        line.append(0x0A)
        var sent = 0
        while sent < line.count {
            let n = line.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw unreachable("lost the connection while sending") }
            sent += n
        }
    }

    /// The next record; `timeout` in ms, -1 to wait as long as it takes (following).
    private func nextRecord(_ fd: Int32, _ pending: inout [UInt8], timeout: Int32) throws(CLIError) -> String {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            if let lf = pending.firstIndex(of: 0x0A) {
                let record = String(decoding: pending[..<lf], as: UTF8.self)
                pending.removeSubrange(...lf)
                return record
            }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, timeout)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { throw unreachable("no answer within \(timeout / 1000) s") }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else {
                throw unreachable(timeout < 0 ? "the daemon closed the connection (it stopped, or dropped a reader that fell behind)"
                                              : "the daemon closed the connection before answering")
            }
            pending += buffer[0..<n]
        }
    }

    private func connect() throws(CLIError) -> Int32 {
        guard var addr = LocalSocketAddress.make(socketPath) else {
            throw CLIError.usage("socket path \(socketPath) is too long for a Unix socket (at most \(LocalSocketAddress.maxPathBytes) bytes)")
        }
        let fd = socket(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw unreachable(String(cString: strerror(errno))) }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard rc == 0 else {
            let e = errno
            close(fd)
            throw connectFailure(e)
        }
        return fd
    }

    /// Why connect failed, in words that point at the fix: a permission is not a stopped daemon.
    private func connectFailure(_ e: Int32) -> CLIError {
        switch e {
        case EACCES, EPERM:
            return .unreachable("cannot reach garaged at \(socketPath): permission denied; \(DaemonClient.access(to: socketPath)).")
        case EPROTOTYPE:
            return .unreachable("\(socketPath) is not a garaged socket this garage-pins can talk to (wrong socket type); are garaged and garage-pins the same version?")
        default:
            return unreachable(String(cString: strerror(e)))
        }
    }

    /// Who may use the socket and how to become one of them. The socket's group is the one
    /// garaged gave it; when it is its owner's own group (root's, for the service), garaged had
    /// no group to give it, and joining root's group would be wrong: make the group and restart.
    static func access(to socketPath: String) -> String {
        var st = stat()
        guard stat(socketPath, &st) == 0, let entry = getgrgid(st.st_gid) else { return "ask the owner of the Pi for access, or use sudo" }
        let group = String(cString: entry.pointee.gr_name)
        if let owner = getpwuid(st.st_uid), owner.pointee.pw_gid == st.st_gid {
            let exists = getgrnam(LocalSocketGroup.defaultName) != nil
            return "the socket belongs to \(String(cString: owner.pointee.pw_name))'s own group '\(group)' because garaged found no group '\(LocalSocketGroup.defaultName)' when it started: "
                + LocalSocketGroup.missingAdvice(user: "$USER", exists: exists) + " (or use sudo)"
        }
        return "only root and members of the group '\(group)' may use it: `sudo usermod -aG \(group) $USER`, then log in again (or use sudo)"
    }

    private func unreachable(_ why: String) -> CLIError {
        .unreachable("cannot reach garaged at \(socketPath): \(why). Is it running (systemctl status garaged)? Pass --socket PATH if it listens elsewhere.")
    }
}

import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// One connection on the local socket: its own line framer and its own output queue, so a
/// client that stops reading only ever fills its own buffer, and is dropped when that is full.
final class LocalClient: Connection {
    static let maxQueuedBytes = 64 * 1024

    let fd: Int32
    let source: RequestSource
    /// When the client last sent anything: the idlest one makes room when the daemon is full.
    var lastHeard: Instant
    var framer = LineFramer(maxLength: 64)
    private(set) var outbox: [UInt8] = []
    private(set) var closing = false
    private(set) var closeReason: String?
    /// Set once the client asked to follow: the daemon pushes to it from then on.
    private(set) var following: LocalCommand.FollowTopic?

    init(fd: Int32, source: RequestSource, at now: Instant) {
        self.fd = fd
        self.source = source
        lastHeard = now
    }

    var wantsWrite: Bool { !outbox.isEmpty }

    /// Queues reply records, one line each; a client that has stopped reading is dropped once
    /// its queue is full.
    /// The backlog is judged before the new replies are added, so one long answer (the whole
    /// history for `log`) is fine, but a client that stops reading is dropped at its next one.
    func deliver(_ replies: [Reply]) {
        let backlog = outbox.count
        for r in replies { outbox += r.bytes + [0x0A] }
        flush()
        if backlog > LocalClient.maxQueuedBytes {
            closing = true
            closeReason = following == nil ? "it stopped reading its replies" : "it stopped reading what it follows"
        }
    }

    func follow(_ topic: LocalCommand.FollowTopic) { following = topic }

    func receive() -> [Incoming]? {
        guard let bytes = read() else { return nil }
        return framer.feed(bytes).map { item in
            switch item {
            case .line(let line): return .request(line)
            case .tooLong: return .refused(.error(.format), why: "line longer than \(framer.maxLength) bytes")
            }
        }
    }

    func close() { Glibc.close(fd) }

    /// Writes what the socket takes now, never blocking.
    func flush() {
        while !outbox.isEmpty {
            let n = outbox.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if n > 0 {
                outbox.removeFirst(n)
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                if n < 0 && errno != EAGAIN && errno != EWOULDBLOCK { closing = true }
                return
            }
        }
    }

    /// Reads what is there; nil at end of stream or on error.
    private func read() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n > 0 { return Array(buffer[0..<n]) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return [] }
            return nil
        }
    }
}

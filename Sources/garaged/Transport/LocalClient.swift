import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// One connection on the local socket (SOCK_SEQPACKET): each packet carries one request line
/// or a few. A request is never performed late: packets are stamped by the kernel on arrival
/// (the loop refuses one that waited too long), and a request whose client has already closed
/// the connection (it gave up waiting, as `garage-pins` does after 5 s) is refused unjudged.
/// The kernel can only stamp packets of a connection the daemon has accepted, so the second
/// rule covers a client that connected and sent while the whole daemon was stopped. Replies go
/// back as packets of whole `record\n` lines. Each client has its own output queue, so one
/// that stops reading only ever fills its own, and is dropped when that is full.
final class LocalClient: Connection {
    static let maxQueuedBytes = 64 * 1024
    /// Replies are cut into packets of at most this many bytes (whole records), well under
    /// the socket's send buffer, so a long answer (`log`) never fails as too big for one packet.
    static let maxPacketBytes = 32 * 1024
    /// The largest packet taken whole; one read into it per packet, reused.
    static let maxPacketBytesIn = 4096

    let fd: Int32
    let source: RequestSource
    /// When the client last sent anything: the idlest one makes room when the daemon is full.
    var lastHeard: Instant
    var framer = LineFramer(maxLength: CommandCodec.maxLocalLineLength)
    private var buffer = [UInt8](repeating: 0, count: LocalClient.maxPacketBytesIn)
    private var outbox: [[UInt8]] = []
    private var queuedBytes = 0
    private(set) var closing = false
    private(set) var closeReason: String?
    /// Set once the client asked to follow: the daemon pushes to it from then on.
    private(set) var following: LocalCommand.FollowTopic?
    /// Which doors a status follower may see (its PIN's: `Controller.mayWatch`).
    private var watching: (Int) -> Bool = { _ in false }

    var arrivals: Arrivals

    init(fd: Int32, source: RequestSource, at now: Instant, arrivals: Arrivals) {
        self.fd = fd
        self.arrivals = arrivals
        self.source = source
        lastHeard = now
    }

    var wantsWrite: Bool { !outbox.isEmpty }
    var standing: ConnectionBudget.Standing { source.isOwner ? .owner : .proven }
    var pool: ConnectionBudget.Pool { .local }

    /// Queues reply records, one line each. The backlog is judged before the new replies are
    /// added, so one long answer (the whole history for `log`) is fine, but a client that stops
    /// reading is dropped at its next one.
    func deliver(_ replies: [Reply]) {
        let backlog = queuedBytes
        var packet: [UInt8] = []
        for r in replies {
            let line = r.bytes + [0x0A]
            if !packet.isEmpty, packet.count + line.count > LocalClient.maxPacketBytes {
                queue(packet)
                packet = []
            }
            packet += line
        }
        if !packet.isEmpty { queue(packet) }
        flush()
        if backlog > LocalClient.maxQueuedBytes {
            closing = true
            closeReason = following == nil ? "it stopped reading its replies" : "it stopped reading what it follows"
        }
    }

    var canFollow: Bool { true }

    func follow(_ topic: LocalCommand.FollowTopic, watching: @escaping (Int) -> Bool) {
        following = topic
        self.watching = watching
    }

    func stopFollowing() {
        following = nil
        watching = { _ in false }
    }

    /// A status follower gets the record of each door it may see that changed.
    func statusChanged(from old: StatusSnapshot?, to new: StatusSnapshot, at now: Instant) {
        guard following == .status else { return }
        let records = new.followerRecords(since: old, at: now, mayWatch: watching)
        if !records.isEmpty { deliver(records) }
    }

    /// A history follower gets each record as it is recorded.
    func eventRecorded(_ record: EventRecord) {
        if following == .log { deliver([.record(record.json)]) }
    }

    func receive(hungUp: Bool, polled: Int64) -> Received {
        switch PacketSocket.read(fd, into: &buffer) {
        case .empty:
            arrivals.sawEmpty(at: polled)
            return .empty
        case .closed:
            return .left
        case .packet(let bytes, let stamp, let truncated):
            let receivedAt = arrivals.arrival(of: bytes.count, stamp: stamp)
            // A packet larger than the buffer is refused whole: nothing in it is judged.
            guard !truncated else {
                return .packet([.refused(.error(.format), why: "packet longer than \(buffer.count) bytes")])
            }
            // The usual packet, one whole line: its request in a list of one, with no framing
            // closure or growing list before the press.
            if let line = framer.wholeLine(bytes) {
                let request = Incoming.request(DoorRequest(.line(line), from: source, arrived: nil), receivedAt: receivedAt)
                return .packet([hungUp ? abandoned(request) : request])
            }
            var incoming: [Incoming] = []
            let maxLength = framer.maxLength
            framer.packet(bytes) { item in
                switch item {
                case .line(let line): incoming.append(.request(DoorRequest(.line(line), from: source, arrived: nil), receivedAt: receivedAt))
                case .tooLong: incoming.append(.refused(.error(.format), why: "line longer than \(maxLength) bytes"))
                }
            }
            return .packet(hungUp ? incoming.map(abandoned) : incoming)
        }
    }

    /// A request whose client has gone is not judged: nobody waits for its answer any more.
    private func abandoned(_ item: Incoming) -> Incoming {
        guard case .request = item else { return item }
        return .refused(.error(.stale), why: "the client closed the connection before its request was judged (it gave up waiting)")
    }

    func close() { Glibc.close(fd) }

    /// Writes queued packets the socket takes now, never blocking.
    func flush() {
        while let packet = outbox.first {
            let n = packet.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if n >= 0 {
                outbox.removeFirst()
                queuedBytes -= packet.count
            } else if errno == EINTR {
                continue
            } else {
                if errno != EAGAIN && errno != EWOULDBLOCK {
                    closing = true
                    closeReason = "send failed: \(String(cString: strerror(errno)))"
                }
                return
            }
        }
    }

    private func queue(_ packet: [UInt8]) {
        outbox.append(packet)
        queuedBytes += packet.count
    }
}

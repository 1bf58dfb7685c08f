import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// One HomeKit controller's TCP connection: the bearer of an `HAPSession`, as `ATTConnection` is
/// of an `ATTServer`. It hands the session the bytes it reads with when they arrived at the
/// latest (the socket's empty mark: TCP stamps merged segments with the newest); it sends what the session says, hands the loop the session's door requests
/// (`Incoming.request`, one each) and answers the message once the loop gave back the verdict of
/// each (`answered`). Its output has its own bounded
/// queue, so a controller that stops reading is dropped without holding up anyone.
final class HomeKitConnection: Connection {
    static let maxQueuedBytes = 256 * 1024

    let fd: Int32
    let id: Int
    var lastHeard: Instant
    var arrivals: Arrivals
    private let accessory: HomeKitAccessory
    private let clock: any MonotonicClock
    private var session: HAPSession
    private var outbox: [UInt8] = []
    private var readBuffer = [UInt8](repeating: 0, count: 4096)
    /// Why the connection broke (its session's frames, the socket, a peer that stopped reading).
    private var failure: String?
    /// The verdicts on the requests of the message being answered, so far, and how many it has:
    /// one response answers them all.
    private var verdicts: [Bool] = []
    private var awaiting = 0

    init(fd: Int32, id: Int, peer: String, accessory: HomeKitAccessory, clock: any MonotonicClock, arrivals: Arrivals) {
        self.fd = fd
        self.arrivals = arrivals
        self.id = id
        self.accessory = accessory
        self.clock = clock
        session = HAPSession(id: id, peer: peer)
        lastHeard = clock.now()
        accessory.opened(self)
    }

    var source: RequestSource { session.source }
    var wantsWrite: Bool { !outbox.isEmpty }
    var standing: ConnectionBudget.Standing { session.controller != nil ? .proven : .stranger }
    var mayHaveMore: Bool { session.mayHaveMore }
    var closeReason: String? { failure ?? session.closeReason }

    /// Dropped by the loop: broken, or asked to close and everything it had to say is sent.
    var closing: Bool { failure != nil || (session.closesWhenAnswered && outbox.isEmpty && !session.awaitingVerdicts) }

    // MARK: reading

    func receive(hungUp: Bool, polled: Int64) -> Received {
        // Requests already read come first: one at a time, each answered before the next.
        if let item = next() { return .packet(item) }
        if session.awaitingVerdicts { return .empty }
        switch PacketSocket.read(fd, into: &readBuffer) {
        case .empty:
            arrivals.sawEmpty(at: polled)
            return .empty
        case .closed:
            return .left
        case .packet(let read, _, _):
            // On the judging clock: a request's age counts from when its bytes began to arrive,
            // at the latest. TCP merges segments that wait unread and stamps them with the newest,
            // so a stamp says nothing of the oldest byte: the socket's empty mark is the arrival.
            let arrived = clock.now() - PacketSocket.age(of: arrivals.arrival(of: read.count, stamp: nil))
            guard session.feed(Array(read), arrived: arrived) else {
                fail(session.failure ?? "its session broke")
                return .packet([])
            }
        }
        return .packet(next() ?? [])
    }

    /// The next whole request's handling; nil when none is complete.
    private func next() -> [Incoming]? {
        guard failure == nil, let output = session.next(at: clock.now(), accessory: accessory) else { return nil }
        return act(on: output)
    }

    func answered(_ verdict: Verdict) {
        verdicts.append(verdict.accepted)
        guard verdicts.count == awaiting else { return }
        let accepted = verdicts
        verdicts = []
        awaiting = 0
        _ = act(on: session.judged(accepted, accessory: accessory))
    }

    /// Sends what the session said, tells the other sessions what it asks, and closes the
    /// sessions whose pairing its request removed (only now: none is answering any more).
    private func act(on output: HAPSession.Output) -> [Incoming] {
        send(output.bytes)
        if let why = session.failure { fail(why) }
        for changed in output.othersToTell { accessory.tell(changed, except: self) }
        accessory.closeUnpaired()
        awaiting = output.requests.count
        verdicts = []
        return output.requests.map { .request($0) }
    }

    // MARK: writing

    /// Sends the subscribed ones among `changed` as one event message.
    func sendEvent(_ changed: [(HAPCharacteristicID, JSONValue)]) {
        guard failure == nil else { return }
        send(session.event(changed))
    }

    private func send(_ message: [UInt8]) {
        guard failure == nil, !message.isEmpty else { return }
        outbox += message
        flush()
        if outbox.count > HomeKitConnection.maxQueuedBytes { fail("it stopped reading (\(outbox.count) bytes waiting)") }
    }

    func deliver(_ replies: [Reply]) {}

    func flush() {
        while !outbox.isEmpty {
            let n = outbox.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if n > 0 {
                outbox.removeFirst(n)
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                if n < 0 && errno != EAGAIN && errno != EWOULDBLOCK { fail("send failed: \(String(cString: strerror(errno)))") }
                return
            }
        }
    }

    /// Closes once what is queued is sent (a reset, every session closing).
    func closeAfterReplies() { session.closeAfterReplies() }

    /// The pairings changed: a session whose pairing went closes once answered.
    func pairingsChanged(_ state: HAPAccessoryState) { session.closeIfUnpaired(state) }

    private func fail(_ why: String) {
        guard failure == nil else { return }
        failure = why
        outbox = []
    }

    func close() {
        accessory.closed(self, id: id)
        Glibc.close(fd)
    }
}

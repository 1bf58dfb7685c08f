/// One HomeKit controller's connection as pure code, shaped like `ATTServer`: bytes in (with when
/// they arrived), answers and `DoorRequest`s out; the loop's verdicts in, the answers they make
/// out; status changes in, `EVENT/1.0` messages out. HTTP/1.1 requests come in the clear until
/// pair-verify proves a paired controller, then only in encrypted frames (`HAPRequestStream`),
/// and everything said after is sealed in the session's frames. A connection that has not
/// verified gets 470 for all but pairing. The bearer (garaged's `HomeKitConnection`) reads and
/// writes the socket; what all sessions share comes from an `HAPAccessoryModel` given with each
/// call, so nothing here touches a file, a socket or a clock.
public struct HAPSession: Sendable {
    /// What one call produced, for the bearer to carry out in this order.
    public struct Output: Sendable {
        /// Bytes for the wire, in order: in the clear before pair-verify, sealed after.
        public var bytes: [UInt8] = []
        /// Door requests to judge, in order, each stamped with when its bytes began to arrive;
        /// the verdicts come back through `judged` and make the answer.
        public var requests: [DoorRequest] = []
        /// Event messages every other session is to be sent (a refused target: the real one
        /// again, so no Home app keeps showing the refused one); this session's own is in `bytes`.
        public var othersToTell: [[(HAPCharacteristicID, JSONValue)]] = []

        public init() {}
    }

    /// A timed write's `pid` is valid this long at most (the controller says how long, in ms).
    public static let maxPrepareTTL: Duration = .seconds(10)

    /// The bearer's connection number: which connection a pair-setup belongs to.
    public let id: Int
    /// "address:port", for pair-setup's holds and the key-exchange budget.
    public let peer: String
    /// Who asks, for the requests and the log: the peer until pair-verify, then the controller.
    public internal(set) var source: RequestSource
    /// The pairing id pair-verify proved. Its rights (admin or not) are read from the pairings
    /// each time they are used, never copied here: a demoted admin is demoted at once.
    public internal(set) var controller: String?
    /// The requests read, in the clear until pair-verify, then only from encrypted frames.
    var stream = HAPRequestStream()
    var verify = PairVerify()
    var subscriptions: Set<HAPCharacteristicID> = []
    /// The timed write `PUT /prepare` announced, and until when it may come.
    var prepared: (pid: UInt64, until: Instant)?
    /// The writes waiting for the loop's verdicts, with the answer's other items.
    var waiting: (writes: [(HAPCharacteristicID, HAPCharacteristic, Int)], statuses: [(HAPCharacteristicID, HAPStatus)])?
    /// When the bytes waiting in the stream began to arrive (nil: none wait): a request taken
    /// from them counts its age from there, so a request read during a stall is judged stale.
    var waitingSince: Instant?
    /// When the last bytes fed arrived.
    var lastArrived: Instant?
    /// When the request being answered began to arrive (a request is only ever found after bytes
    /// were fed, so it is known).
    var requestArrival: Instant?
    /// What the call under way has produced so far.
    var out = Output()
    /// Why the session broke (a frame that does not open, bytes in the clear behind pair-verify):
    /// close the connection now, with nothing more said.
    public private(set) var failure: String?
    /// Why the session asked to close itself once answered (a malformed request), for the log.
    public private(set) var closeReason: String?
    /// True once it is to close when what it said is sent: nothing more is read or told.
    public private(set) var closesWhenAnswered = false
    /// The last look found a whole request: another may follow it in what was read.
    public private(set) var mayHaveMore = false

    /// A new connection's session, `id` its bearer's number and `peer` its "address:port".
    public init(id: Int, peer: String) {
        self.id = id
        self.peer = peer
        // Strangers share one allowance (identify's warning, the log's bursts): a peer can come
        // back with a new port at will.
        source = RequestSource("homekit \(peer)", channel: nil, summaryKey: "homekit-unpaired")
    }

    /// True while the writes of the last request wait for `judged`: nothing more is read meanwhile.
    public var awaitingVerdicts: Bool { waiting != nil }

    /// True once pair-verify gave the session its keys.
    public var isSecure: Bool { stream.isSecure }

    // MARK: bytes in

    /// Takes bytes as the socket gave them, `arrived` when they came (on the judging clock).
    /// False when they break the session (a frame that does not open): close it at once.
    public mutating func feed(_ bytes: [UInt8], arrived: Instant) -> Bool {
        if waitingSince == nil { waitingSince = arrived }
        lastArrived = arrived
        do throws(HAPRequestStream.Broken) {
            try stream.feed(bytes)
        } catch {
            switch error { case .frame(let why): fail(why) }
            return false
        }
        return true
    }

    /// Answers the next whole request read so far; nil when none is complete, or none may be
    /// served now (verdicts awaited, the session closing or broken). One at a time, each
    /// answered (or its verdicts awaited) before the next.
    public mutating func next(at now: Instant, accessory: any HAPAccessoryModel) -> Output? {
        guard failure == nil, !closesWhenAnswered, waiting == nil else { return nil }
        let request: HTTPRequest?
        do { request = try stream.next() } catch {
            mayHaveMore = false
            respond(HTTPResponse(status: error.status))
            closeAfterReplies()
            closeReason = "malformed HTTP: \(error.reason)"
            return take()
        }
        mayHaveMore = request != nil
        guard let request else { return nil }
        requestArrival = waitingSince ?? lastArrived
        if stream.isIdle { waitingSince = nil }
        route(request, Turn(accessory: accessory, now: now))
        return take()
    }

    // MARK: verdicts and status in

    /// The loop's verdicts on the requests the last answer handed out, in order (true:
    /// accepted): the write's answer, 204, or 207 with -70402 for each refusal, after which
    /// every session is told the real target (the door's, or the lock's), this one first,
    /// before its answer.
    public mutating func judged(_ accepted: [Bool], accessory: any HAPAccessoryModel) -> Output {
        guard let w = waiting else { return take() }
        waiting = nil
        var statuses = w.statuses
        for ((id, c, _), ok) in zip(w.writes, accepted) {
            statuses.append((id, ok ? .success : .unableToCommunicate))
            switch c {
            case .targetDoorState, .lockTargetState: break
            default: continue
            }
            guard !ok else { continue }
            let real = [(id, c.value(among: accessory.views))]
            out.bytes += event(real)
            out.othersToTell.append(real)
        }
        answerWrites(statuses)
        return take()
    }

    /// The `EVENT/1.0` message telling the subscribed ones among `changed`, sealed; empty when
    /// none is subscribed, or the session is not verified, is closing or broke.
    public mutating func event(_ changed: [(HAPCharacteristicID, JSONValue)]) -> [UInt8] {
        guard stream.isSecure, failure == nil, !closesWhenAnswered else { return [] }
        let mine = changed.filter { subscriptions.contains($0.0) }
        guard !mine.isEmpty else { return [] }
        let items: [JSONValue] = mine.map {
            .object([("aid", .number(Int64($0.0.aid))), ("iid", .number(Int64($0.0.iid))), ("value", $0.1)])
        }
        return stream.seal(HTTPResponse.event(json: Array(JSONValue.object([("characteristics", .array(items))]).serialized.utf8)))
    }

    // MARK: closing

    /// Closes once what it said is sent (a reset, a malformed request): nothing more is read.
    public mutating func closeAfterReplies() { closesWhenAnswered = true }

    /// Closes once answered when the pairing pair-verify proved is gone (removed, or every
    /// pairing forgotten): a removed pairing has no session.
    public mutating func closeIfUnpaired(_ state: HAPAccessoryState) {
        if let c = controller, state.pairing(c) == nil { closeAfterReplies() }
    }

    mutating func fail(_ why: String) {
        failure = why
        closeReason = why
    }

    // MARK: bytes out

    /// What one call is given of the accessory, and when it runs.
    struct Turn {
        let accessory: any HAPAccessoryModel
        let now: Instant
    }

    /// The output of the call under way, handed over.
    mutating func take() -> Output {
        defer { out = Output() }
        return out
    }

    /// Queues an answer, sealed once the session is secure; nothing once it broke.
    mutating func respond(_ r: HTTPResponse) {
        guard failure == nil else { return }
        out.bytes += stream.seal(r.bytes)
    }

    /// A request of the one being answered, stamped with when its bytes began to arrive.
    func request(_ ask: DoorRequest.Ask) -> DoorRequest {
        DoorRequest(ask, from: source, arrived: requestArrival)
    }
}

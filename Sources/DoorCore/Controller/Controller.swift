/// The book's rxCallback: one request in, reply records and door presses out. It owns the
/// table, the door and the throttle, and is driven by one thread (the daemon's loop), so it
/// needs no locks; every input carries the time it is judged at.
public struct Controller: Sendable {
    /// Everything a request produced: the replies to send back, the press to perform (if
    /// any), and what to log.
    public struct Outcome: Sendable {
        public var replies: [Reply]
        public var press: Door.Press?
        /// The command's name, when the request could be decoded.
        public var command: String?
        /// The slot whose PIN matched, when one did; logged instead of the PIN.
        public var slot: Int?
        /// Set when this wrong PIN started or extended a lockout.
        public var lockout: Duration?
        /// Door events that fell due before the request was judged (the caller performs any
        /// auto-close press among them, as for `tick`).
        public var doorEvents: [Door.Event]

        /// The last reply, which is what the log records as the result.
        public var result: Reply { replies.last! }
    }

    public private(set) var table: PinTable
    public private(set) var door: Door
    public private(set) var throttle: Throttle
    private let store: any PinTableSaving

    public init(table: PinTable, door: Door, throttle: Throttle = Throttle(),
                store: any PinTableSaving) {
        self.table = table
        self.door = door
        self.throttle = throttle
        self.store = store
    }

    /// Judges one request (one BLE write or one socket line).
    public mutating func handle<C: Collection>(_ bytes: C, from source: RequestSource,
                                               at now: Instant) -> Outcome where C.Element == UInt8 {
        let events = door.advance(to: now)
        var outcome = Outcome(replies: [], press: nil, command: nil, slot: nil, lockout: nil,
                              doorEvents: events)

        let request: Request
        switch CommandCodec.decode(bytes) {
        case .failure(let code):
            outcome.replies = [.error(code)]
            return outcome
        case .success(let r): request = r
        }
        outcome.command = request.command.name

        if source.throttled, let left = throttle.remainingLock(at: now) {
            outcome.replies = [.locked(seconds: left.secondsRoundedUp)]
            return outcome
        }
        guard let slot = table.slot(of: request.pin), slot == 0 || !request.command.needsMaster else {
            if source.throttled { outcome.lockout = throttle.recordFailure(at: now) }
            outcome.replies = [.error(.pin)]
            return outcome
        }
        if source.throttled { throttle.recordSuccess() }
        outcome.slot = slot
        outcome.replies = execute(request.command, at: now, press: &outcome.press)
        return outcome
    }

    /// Moves the door's time forward (travel ends, auto-close fires); the caller performs any
    /// press among the events.
    public mutating func tick(at now: Instant) -> [Door.Event] {
        door.advance(to: now)
    }

    private mutating func execute(_ command: Command, at now: Instant,
                                  press: inout Door.Press?) -> [Reply] {
        switch command {
        case .open, .close:
            let decision = door.request(open: command == .open, at: now)
            if let p = decision.press { press = p }
            return [decision.reply]
        case .status:
            return [.status(door.position, autoCloseIn: door.autoCloseIn(at: now))]
        case .list:
            let entries = table.entries
            return entries.map { Reply.entry(slot: $0.slot, pin: $0.pin) } + [.listed(count: entries.count)]
        case .add(let pin):
            return change { table throws(ErrorCode) in .added(slot: try table.add(pin)) }
        case .edit(let slot, let pin):
            return change { table throws(ErrorCode) in try table.edit(slot: slot, to: pin); return .ok }
        case .delete(let slot):
            return change { table throws(ErrorCode) in try table.delete(slot: slot); return .ok }
        }
    }

    /// Applies a table change to a copy, saves it, and only then makes it current.
    private mutating func change(_ body: (inout PinTable) throws(ErrorCode) -> Reply) -> [Reply] {
        var copy = table
        do {
            let reply = try body(&copy)
            try store.save(copy)
            table = copy
            return [reply]
        } catch let code as ErrorCode {
            return [.error(code)]
        } catch {
            return [.error(.store)]
        }
    }
}

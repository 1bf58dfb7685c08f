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
        /// Set when this wrong PIN started or extended a lockout: how long, and after how many
        /// wrong PINs on the request's channel.
        public var lockout: (duration: Duration, failures: Int)?
        /// Door events that fell due before the request was judged (the caller performs any
        /// auto-close press among them, as for `tick`).
        public var doorEvents: [Door.Event]
        /// A local request the caller answers itself (the history lives in the daemon).
        public var query: LocalQuery?
        /// The decoded command, when the request could be decoded (for the event history).
        public var decoded: Command?
        /// Why a save failed (`ERR STORE`), for the log: the file and the system's reason.
        public var storeError: String?
        /// Why the request was refused before it was judged, for the log (`ERR STALE`).
        public var refusal: String?

        /// The last reply, which is what the log records as the result.
        public var result: Reply { replies.last ?? .ok }

        /// True when the request changed the door or the table: the log and the history
        /// always keep these; everything else may be summarised.
        public var changedSomething: Bool {
            if press != nil { return true }
            switch decoded {
            case .add, .edit, .delete, .local(.add), .local(.label), .local(.unlock): return !result.isError
            default: return false
            }
        }
    }

    /// Local requests the controller authorises but cannot answer: the caller serves them.
    public enum LocalQuery: Equatable, Sendable {
        case log(since: Int64?)
        case follow(LocalCommand.FollowTopic, since: Int64?)
    }

    /// A request that waited longer than this between arriving in the kernel and being
    /// judged (a stalled loop, a slow SD card, a stopped process) is refused, never performed:
    /// whoever sent it has given up (`garage-pins` waits 5 s) and would not expect the door to
    /// move now.
    public static let maxRequestAge: Duration = .seconds(2)

    public private(set) var table: PinTable
    public private(set) var door: Door
    public private(set) var throttle: Throttle
    /// Names of used slots; labels of free slots are never kept.
    public private(set) var labels: Labels
    private let store: any PinTableSaving
    private let labelStore: (any LabelsSaving)?

    public init(table: PinTable, door: Door, throttle: Throttle = Throttle(),
                store: any PinTableSaving, labels: Labels = Labels(),
                labelStore: (any LabelsSaving)? = nil) {
        self.table = table
        self.door = door
        self.throttle = throttle
        self.store = store
        self.labels = labels.pruned(to: table)
        self.labelStore = labelStore
    }

    /// The label of `slot`, for logs and events.
    public func label(of slot: Int?) -> String? { slot.flatMap { labels[$0] } }

    /// The status record the local socket sends for `Lstatus` and to status followers.
    /// `locked_s` and `failures` are the worst channel's; `lockout` has each channel's.
    public func statusRecord(at now: Instant) -> JSONValue {
        var worstLock = 0, worstFailures = 0
        var channels: [(String, JSONValue)] = []
        for channel in Throttle.Channel.allCases {
            let locked = throttle.remainingLock(channel, at: now)?.secondsRoundedUp ?? 0
            let failures = throttle.budget(channel, at: now).failures
            worstLock = max(worstLock, locked)
            worstFailures = max(worstFailures, failures)
            channels.append((channel.rawValue, .object([("locked_s", .number(Int64(locked))),
                                                        ("failures", .number(Int64(failures)))])))
        }
        return .object([
            ("door", .string(door.position.rawValue)),
            ("auto_close_s", door.autoCloseIn(at: now).map { .number(Int64($0)) } ?? .null),
            ("locked_s", .number(Int64(worstLock))),
            ("failures", .number(Int64(worstFailures))),
            ("lockout", .object(channels)),
        ])
    }

    /// Judges one request (one BLE write or one socket line). `age` is how long it waited
    /// since the kernel received it, when the transport knows.
    public mutating func handle<C: Collection>(_ bytes: C, from source: RequestSource,
                                               at now: Instant, age: Duration? = nil) -> Outcome where C.Element == UInt8 {
        let events = door.advance(to: now)
        var outcome = Outcome(replies: [], press: nil, command: nil, slot: nil, lockout: nil,
                              doorEvents: events)

        let request: Request
        switch CommandCodec.decode(bytes) {
        case .failure(let code):
            // Bluetooth does not know the local extensions at all, malformed or not.
            let local = bytes.count > PIN.length && Array(bytes)[PIN.length] == LocalCommand.letter
            outcome.replies = [.error(local && !source.isLocal && code == .format ? .command : code)]
            return outcome
        case .success(let r): request = r
        }
        outcome.command = request.command.name
        outcome.decoded = request.command
        if case .local = request.command, !source.isLocal {
            outcome.replies = [.error(.command)]
            return outcome
        }

        if let age, age > Controller.maxRequestAge {
            outcome.replies = [.error(.stale)]
            outcome.refusal = "it waited \(age.nanoseconds / 1_000_000) ms between arriving and being judged (the limit is \(Controller.maxRequestAge.nanoseconds / 1_000_000) ms)"
            return outcome
        }
        if let channel = source.channel, let left = throttle.remainingLock(channel, at: now) {
            outcome.replies = [.locked(seconds: left.secondsRoundedUp)]
            return outcome
        }
        guard let slot = table.slot(of: request.pin), Controller.may(slot, request.command, source) else {
            // A correct PIN never resets the count (only time and the owner's unlock do), so
            // knowing one PIN gives no speed-up in guessing another.
            if let channel = source.channel, let delay = throttle.recordFailure(channel, at: now) {
                outcome.lockout = (delay, throttle.budget(channel, at: now).failures)
            }
            outcome.replies = [.error(.pin)]
            return outcome
        }
        outcome.slot = slot
        outcome.replies = execute(request.command, at: now, outcome: &outcome)
        return outcome
    }

    /// Whether the PIN in `slot` may ask for `command`: the master for management, any stored
    /// PIN for the door; the owner at the shell may also unlock with any stored PIN.
    static func may(_ slot: Int, _ command: Command, _ source: RequestSource) -> Bool {
        if slot == 0 || !command.needsMaster { return true }
        if source.isOwner, case .local(.unlock) = command { return true }
        return false
    }

    /// Moves the door's time forward (travel ends, auto-close fires); the caller performs any
    /// press among the events.
    public mutating func tick(at now: Instant) -> [Door.Event] {
        door.advance(to: now)
    }

    /// The relay released the last press; returns any auto-close that waited for it.
    public mutating func relayReleased(at now: Instant) -> [Door.Event] {
        door.relayReleased()
        return door.advance(to: now)
    }

    private mutating func execute(_ command: Command, at now: Instant, outcome: inout Outcome) -> [Reply] {
        switch command {
        case .open, .close:
            let decision = door.request(open: command == .open, at: now)
            if let p = decision.press { outcome.press = p }
            return [decision.reply]
        case .status:
            return [.status(door.position, autoCloseIn: door.autoCloseIn(at: now))]
        case .list:
            let entries = table.entries
            return entries.map { Reply.entry(slot: $0.slot, pin: $0.pin) } + [.listed(count: entries.count)]
        case .add(let pin):
            return add(pin, label: nil, storeError: &outcome.storeError)
        case .edit(let slot, let pin):
            return change(storeError: &outcome.storeError) { table throws(ErrorCode) in try table.edit(slot: slot, to: pin); return .ok }
        case .delete(let slot):
            let replies = change(storeError: &outcome.storeError) { table throws(ErrorCode) in try table.delete(slot: slot); return .ok }
            if replies == [.ok], labels[slot] != nil {
                // Best effort: a label left on a free slot is never shown, and the next add
                // into that slot rewrites the labels first.
                var copy = labels
                copy.set(nil, for: slot)
                try? labelStore?.save(copy)
                labels = copy
            }
            return replies
        case .local(let local):
            return execute(local, at: now, outcome: &outcome)
        }
    }

    private mutating func execute(_ command: LocalCommand, at now: Instant, outcome: inout Outcome) -> [Reply] {
        switch command {
        case .list:
            let records = table.entries.map { e -> Reply in
                var m: [(String, JSONValue)] = [("slot", .number(Int64(e.slot))), ("pin", .string(e.pin.string))]
                if let l = labels[e.slot] { m.append(("label", .string(l))) }
                return .record(.object(m))
            }
            return records + [.listed(count: records.count)]
        case .add(let pin, let label):
            return add(pin, label: label, storeError: &outcome.storeError)
        case .label(let slot, let name):
            guard slot >= 1, slot < table.capacity, table.slots[slot] != nil else { return [.error(.slot)] }
            var copy = labels
            copy.set(name, for: slot)
            do { try labelStore?.save(copy) } catch {
                outcome.storeError = error.description
                return [.error(.store)]
            }
            labels = copy
            return [.ok]
        case .status:
            return [.record(statusRecord(at: now)), .ok]
        case .log(let since):
            outcome.query = .log(since: since)
            return []
        case .follow(let topic, let since):
            outcome.query = .follow(topic, since: since)
            return []
        case .unlock(let channel):
            throttle.clear(channel)
            return [.ok]
        }
    }

    /// `A` and `Ladd`: the labels are saved first (the new slot's label, or none, so a stale
    /// name of an earlier holder can never reappear), then the table; either failing changes
    /// nothing that is shown.
    private mutating func add(_ pin: PIN, label: String?, storeError: inout String?) -> [Reply] {
        var copy = table
        let slot: Int
        do { slot = try copy.add(pin) } catch { return [.error(error)] }
        var newLabels = labels
        newLabels.set(label, for: slot)
        do {
            try labelStore?.save(newLabels)
            try store.save(copy)
        } catch {
            storeError = error.description
            return [.error(.store)]
        }
        table = copy
        labels = newLabels
        return [.added(slot: slot)]
    }

    /// Applies a table change to a copy, saves it, and only then makes it current.
    private mutating func change(storeError: inout String?,
                                 _ body: (inout PinTable) throws(ErrorCode) -> Reply) -> [Reply] {
        var copy = table
        let reply: Reply
        do { reply = try body(&copy) } catch { return [.error(error)] }
        do {
            try store.save(copy)
        } catch {
            storeError = error.description
            return [.error(.store)]
        }
        table = copy
        return [reply]
    }
}

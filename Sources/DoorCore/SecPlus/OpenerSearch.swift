/// `opener = auto:DEVICE`: finds which wire the opener speaks, then is that wire's session. A
/// round listens at 9600 8N1 for a Security+ 2.0 packet, then asks GET_STATUS (a 2.0 session's
/// own questions, nothing pressed); then at 1200 8E1 a 1.0 session listens for a wall panel's
/// polls and, with none, asks as a panel would (0x38 first, never a button). The first answer
/// names the wire; the drive only sets the line this says. Started from a kept result, it is
/// that wire's session at once, and searches again if that wire stays silent before it ever
/// answered. While searching, every press and setting is refused, never kept for later.
public struct OpenerSearch: OpenerSession {
    /// The search's times; the tests may shorten them.
    public struct Timing: Sendable {
        /// Listen at 9600 8N1 this long before asking (the first round).
        public var listen2For: Duration = .seconds(2)
        /// ...and this long on every later round: a quiet wire is searched at this pace.
        public var listen2Again: Duration = .seconds(30)
        /// GET_STATUS unanswered this long ends the 2.0 try (the 2.0 session says silent sooner).
        public var probe2For: Duration = .seconds(8)
        /// The 1.0 try's longest: its session's listening, its silence, and a margin.
        public var probe1For: Duration = .seconds(25)

        public init() {}
    }

    /// Where the search is.
    private enum Phase: Equatable {
        case listen2(until: Instant)
        case probe2(until: Instant)
        case probe1(until: Instant)
        /// The wire is known; `trusted`: from a kept result, not yet answered this run.
        case found(OpenerKind, trusted: Bool)
    }

    public let device: String
    public let timing: Timing
    private let make: (OpenerKind, Instant) -> any OpenerSession
    private var phase: Phase
    private var inner: (any OpenerSession)?
    private var receiver = SecPlus2Receiver()
    private var pending: [OpenerEvent] = []
    private var round = 1
    /// Counts each session the search drops or makes: a write is carried only by the session that gave it.
    private var generation = 0
    private let started: Instant

    /// A search on `device` from `now`; `kept`: the wire found before (and how), tried first.
    /// `make` builds a wire's session (2.0's with its kept codes).
    public init(device: String, kept: (kind: OpenerKind, how: String)? = nil, timing: Timing = Timing(), at now: Instant,
                make: @escaping (OpenerKind, Instant) -> any OpenerSession) {
        self.device = device
        self.timing = timing
        self.make = make
        started = now
        if let kept {
            phase = .found(kept.kind, trusted: true)
            inner = make(kept.kind, now)
            pending = [.identified(OpenerIdentity(kind: kept.kind, how: kept.how, device: device, kept: true)),
                       .note(.init(.info, "opener-kept", [("device", device), ("protocol", kept.kind.id), ("found_by", kept.how),
                                                          ("then", "no search; searched again if it stays silent")]))]
        } else {
            phase = .listen2(until: now + timing.listen2For)
            pending = [identifying()]
        }
    }

    /// What is tried now, for the status, `doctor` and the refusal.
    public var trying: String {
        switch phase {
        case .listen2: return "Security+ 2.0 at 9600 8N1, listening for its packets" + (round > 1 ? " (round \(round): nothing answered before)" : "")
        case .probe2: return "Security+ 2.0 at 9600 8N1, asked GET_STATUS"
        case .probe1: return "Security+ 1.0 at 1200 8E1, listening for a wall panel, then asking 0x38"
        case .found(let kind, _): return kind.title
        }
    }

    /// Whether the wire is known (presses go to its session).
    public var searching: Bool { if case .found = phase { return false } else { return true } }

    public var line: OpenerLine {
        switch phase {
        case .listen2, .probe2: return SecPlus2Session.line
        case .probe1: return SecPlus1Session.line
        case .found: return inner?.line ?? SecPlus2Session.line
        }
    }

    public var nextWake: Instant? {
        var earliest = pending.isEmpty ? inner?.nextWake : started
        func consider(_ t: Instant) { if earliest.map({ t < $0 }) ?? true { earliest = t } }
        switch phase {
        case .listen2(let until), .probe2(let until), .probe1(let until): consider(until)
        case .found: break
        }
        if let d = receiver.deadline, case .listen2 = phase { consider(d) }
        return earliest
    }

    public var releasePending: Bool { searching ? false : inner?.releasePending ?? false }

    public mutating func carryOut(_ permit: PressPermit, deadline: Instant, at now: Instant) -> String? {
        guard !searching, inner != nil else { return refusal }
        return inner!.carryOut(permit, deadline: deadline, at: now)
    }

    /// Why nothing is pressed while searching: the search and the device.
    public var refusal: String { "garaged is still searching for the wire of the opener on \(device) (\(trying)); it takes presses once the opener answers" }

    public mutating func ask(_ setting: OpenerSetting, at now: Instant) -> Bool {
        guard !searching else { return false }
        return inner?.ask(setting, at: now) ?? false
    }

    public mutating func received(_ bytes: [UInt8], at now: Instant) -> [OpenerEvent] {
        if case .listen2 = phase {
            guard receiver.feed(bytes, at: now).contains(where: { if case .packet = $0 { return true } else { return false } }) else { return [] }
            return take(.secPlus2, how: "its packets (a Security+ 2.0 packet heard on the wire)", at: now)
        }
        guard inner != nil else { return [] }
        return judge(inner!.received(bytes, at: now), at: now)
    }

    public mutating func due(at now: Instant) -> (events: [OpenerEvent], write: [UInt8]?) {
        var events = pending
        pending = []
        if case .listen2 = phase { _ = receiver.expire(at: now) }
        switch phase {
        case .listen2(let until) where now >= until: begin(.probe2(until: now + timing.probe2For), .secPlus2, at: now, &events)
        case .probe2(let until) where now >= until: begin(.probe1(until: now + timing.probe1For), .secPlus1, at: now, &events)
        case .probe1(let until) where now >= until: nothingAnswered(at: now, &events)
        default: break
        }
        guard inner != nil else { return (events, nil) }
        let before = generation
        let step = inner!.due(at: now)
        events += judge(step.events, at: now)
        // A try that ended in this step: its session's bytes are not written (nor confirmed).
        return (events, generation == before ? step.write : nil)
    }

    public mutating func wrote(ok: Bool, unsent: Int, error: String?, at now: Instant) -> [OpenerEvent] {
        guard inner != nil else { return [] }
        return judge(inner!.wrote(ok: ok, unsent: unsent, error: error, at: now), at: now)
    }

    public mutating func deviceGone(_ why: String, at now: Instant) -> [OpenerEvent] {
        guard inner != nil else { return [] }
        return judge(inner!.deviceGone(why, at: now), at: now)
    }

    public mutating func deviceBack(at now: Instant) -> [OpenerEvent] {
        guard inner != nil else { return [] }
        return judge(inner!.deviceBack(at: now), at: now)
    }

    // MARK: - The search

    private func identifying() -> OpenerEvent { .identified(OpenerIdentity(kind: nil, how: trying, device: device)) }

    /// The next try: its phase, and a fresh session of its wire.
    private mutating func begin(_ next: Phase, _ kind: OpenerKind, at now: Instant, _ events: inout [OpenerEvent]) {
        phase = next
        inner = make(kind, now)
        generation += 1
        events.append(identifying())
        events.append(.note(.init(.info, "opener-search", [("device", device), ("trying", trying)])))
    }

    /// A round ended with no answer on either wire: said, and the next round listens longer.
    private mutating func nothingAnswered(at now: Instant, _ events: inout [OpenerEvent]) {
        events.append(.note(.init(.warning, "opener-search-nothing", [
            ("device", device), ("round", String(round)),
            ("why", "no Security+ 2.0 packet or answer to GET_STATUS at 9600 8N1, no wall panel or answer to 0x38 at 1200 8E1"),
            ("check", "the wiring to the opener's red and white terminals, the level circuit, the opener's power; then it searches again by itself")])))
        round += 1
        restart(at: now, &events)
    }

    /// Back to listening at 9600 8N1, with nothing of the last wire's session kept.
    private mutating func restart(at now: Instant, _ events: inout [OpenerEvent]) {
        inner = nil
        generation += 1
        receiver = SecPlus2Receiver()
        phase = .listen2(until: now + (round > 1 ? timing.listen2Again : timing.listen2For))
        events.append(identifying())
    }

    /// The wire is `kind`'s: said, and its session (a fresh one when the search heard a packet
    /// without one) is the door's from now.
    private mutating func take(_ kind: OpenerKind, how: String, at now: Instant) -> [OpenerEvent] {
        if inner == nil { inner = make(kind, now); generation += 1 }
        phase = .found(kind, trusted: false)
        return [.identified(OpenerIdentity(kind: kind, how: how, device: device)),
                .note(.init(.info, "opener-found", [("device", device), ("protocol", kind.id), ("found_by", how), ("round", String(round))]))]
    }

    /// What the current wire's session said: passed on once the wire is known; while searching,
    /// an answer names the wire and a silence ends the try; nothing else reaches the door.
    private mutating func judge(_ events: [OpenerEvent], at now: Instant) -> [OpenerEvent] {
        switch phase {
        case .found(let kind, trusted: true):
            if events.contains(.answering(true)) { phase = .found(kind, trusted: false) }
            guard events.contains(.answering(false)) else { return events }
            // The kept wire never answered this run: the kept result may be wrong; search again.
            var out = events.filter { if case .note = $0 { return true } else { return $0 == .answering(false) } }
            out.append(.note(.init(.warning, "opener-search-again", [
                ("device", device), ("kept", kind.id), ("why", "the kept \(kind.title) wire stays silent"), ("then", "searching both wires again")])))
            restart(at: now, &out)
            return out
        case .found:
            return events
        case .listen2:
            return []
        case .probe2, .probe1:
            let kind: OpenerKind = if case .probe1 = phase { .secPlus1 } else { .secPlus2 }
            if events.contains(where: OpenerSearch.answers) {
                let how = kind == .secPlus2 ? "an answer to GET_STATUS"
                    : (inner as? SecPlus1Session)?.role == .withPanel ? "a wall panel's polls, and the opener's answers" : "the opener's answer to 0x38"
                return take(kind, how: how, at: now) + events
            }
            var out: [OpenerEvent] = events.filter {
                switch $0 {
                case .note(let note): return note.event != "opener-silent"
                case .off: return true
                default: return false
                }
            }
            if events.contains(.answering(false)) {
                if kind == .secPlus2 { begin(.probe1(until: now + timing.probe1For), .secPlus1, at: now, &out) } else { nothingAnswered(at: now, &out) }
            }
            return out
        }
    }

    /// An event that only an opener answering on this wire brings.
    private static func answers(_ event: OpenerEvent) -> Bool {
        switch event {
        case .answering(true), .status: return true
        default: return false
        }
    }
}

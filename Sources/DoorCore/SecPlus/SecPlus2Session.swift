/// One Security+ 2.0 opener's conversation on its wall wire, pure, as `ATTServer` and
/// `HAPSession` are: bytes and time in; what to write, when to wake, and what the door and the
/// log are told out. It keeps what the opener said, what was sent and when, so the loop counts
/// an output as done only when `wrote` confirms it was written, never when it was asked for.
/// The serial drive only opens the device, reads, sends a break and writes what `due` gives it.
public struct SecPlus2Session: OpenerSession {
    /// The wire's times; the tests may shorten them.
    public struct Timing: Sendable {
        /// Send only after the line has been quiet this long (a wall panel's collision avoidance).
        public var quiet: Duration = .microseconds(1300)
        /// A packet that found no quiet line this long means no opener is there (or the wiring is wrong).
        public var busyLimit: Duration = .seconds(5)
        /// Between a DOOR_ACTION's press and its release, as a wall panel sends them.
        public var releaseAfter: Duration = .milliseconds(150)
        /// A release the line kept from going out this long past its time is given up.
        public var releaseWithin: Duration = .seconds(1)
        /// How often the status and the openings are asked until answered: every 5 s for the
        /// first minute, then every 30 s.
        public var askEarly: Duration = .seconds(5)
        public var askLater: Duration = .seconds(30)
        public var earlyPeriod: Duration = .seconds(60)
        /// Asked and not answered this long: the opener is silent.
        public var silentAfter: Duration = .seconds(5)
        /// Heard nothing from the opener this long: ask again (a quiet line is normal; this long
        /// a quiet one may be a cut wire).
        public var askAgainAfter: Duration = .seconds(360)
        /// How often the backup battery is asked, from the opener's first answer on (a wall panel
        /// asks about once a day, ratgdo every 55 minutes); an opener without one may never answer.
        public var askBatteryEvery: Duration = .seconds(3600)
        /// How long the light stays on, then off, while it flashes as the warning.
        public var flashEvery: Duration = .milliseconds(500)
        /// The first flash not on the wire this long after the warning was asked: nobody is warned.
        public var flashWithin: Duration = .seconds(2)
        /// A packet of ours heard back this long after it was written is its echo.
        public var echoWithin: Duration = .seconds(2)
        /// How long one byte takes on the wire (10 bits at 9600 baud): the line is busy while
        /// the device still holds bytes of ours.
        public var byteTime: Duration = .microseconds(1042)
        /// Keep this many rolling codes reserved ahead, so no press waits for a file's save.
        public var codesAhead: UInt32 = 8

        public init() {}
    }


    /// What a write carries, so `wrote` knows what it confirmed.
    private enum Purpose: Equatable {
        case press, release, flash, light(Bool), lock(Bool), ask(SecPlus2Command)
    }

    /// A command waiting for the line: it takes its rolling code only when written, so codes
    /// go out in ascending order whatever jumps the queue (a press, a flash).
    private struct Queued {
        let command: SecPlus2Command
        let nibble: UInt8
        let purpose: Purpose
    }

    /// A packet to write, its rolling code (to know its echo) and what it carries.
    private struct Outgoing {
        let packet: [UInt8]
        let rolling: UInt32
        let purpose: Purpose
    }

    /// A press waiting for the line, or for its release (which carries the press's code).
    private struct Pressing {
        let permit: PressPermit
        let deadline: Instant
        let move: SecPlus2DoorMove
        /// The release, built with the press's code once the press was written.
        var release: Outgoing?
        var pressedAt: Instant?
    }

    /// The warning on the opener's light: when it switches next, which way it is, what it is
    /// left at, and whether its first flash was written.
    private struct Flashing {
        var next: Instant
        var phase: Bool
        var restore: Bool
        var shown = false
        let deadline: Instant
    }

    public let device: String
    public let timing: Timing
    /// 9600 baud, 8N1, each packet after a break.
    public var line: OpenerLine { Self.line }
    /// The same, for whoever opens the wire without a session (`doctor`).
    public static let line = OpenerLine(baud: 9600, evenParity: false, breakBefore: .microseconds(1300))
    private let codes: any SecPlus2CodeSource
    private let started: Instant
    private var receiver = SecPlus2Receiver()
    /// When the wire was last busy (a byte read, or the end of one of ours).
    private var lineBusyUntil: Instant?
    /// Since when something has waited for a quiet line (for "opener-absent").
    private var waitingSince: Instant?
    private var pressing: Pressing? {
        didSet { if pressing == nil { latch.release() } }
    }
    /// The permits taken: its door's only, one at a time, none twice.
    private var latch: PermitLatch
    /// Settings and asks to write, in order.
    private var queue: [Queued] = []
    /// What the write under way carries (between `due` and `wrote`).
    private var writing: Outgoing?
    /// The rolling codes written lately: a packet with our client id and one of these is our echo.
    private var sent: [(rolling: UInt32, at: Instant)] = []
    private var flashing: Flashing?
    /// The light as garaged last asked it, until a STATUS confirms it.
    private var lightAsked: Bool?
    /// The opener's client id, learned from its answer to GET_STATUS.
    public private(set) var openerID: SecPlus2ClientID?
    private var askWrittenAt: Instant?
    /// The last answer to GET_STATUS named no door state (nibble 0).
    private var answeredNoState = false
    private var nextAsk: Instant
    private var statusAnswered = false
    private var openingsAnswered = false
    /// When the backup battery is asked next: set once the opener first answers.
    private var nextBatteryAsk: Instant?
    /// BATTERY's byte1 as last heard, and when a change was last said: a change is said at most
    /// once a `summaryEvery` (anyone on the wire can make it flap).
    private var lastBattery: UInt8?
    private var batterySaidAt: Instant?
    private var askedSince: Instant?
    private var lastHeard: Instant?
    private var toldAnswering: Bool?
    private var lastState: OpenerDoorState?
    private var lastLight: Bool?
    /// Bad packets, said once a minute.
    private var garbageNoise = WireNoise()
    /// Packets with our client id that we did not send, said once a minute.
    private var forgedNoise = WireNoise(.error, repeats: "opener-identity-forged-repeats")
    /// Why garaged cannot speak on the wire now (the device is gone, no rolling code can be
    /// reserved); nil when it can.
    private var cannotSpeak: String?
    /// Bad packets are said at most once in this long (with their count).
    public static let summaryEvery: Duration = WireNoise.every

    /// A session for the opener on `device`, its rolling codes from `codes`, from `now`.
    public init(device: String, codes: any SecPlus2CodeSource, door: Int = 0, timing: Timing = Timing(), at now: Instant) {
        self.device = device
        latch = PermitLatch(door: door)
        self.codes = codes
        self.timing = timing
        started = now
        nextAsk = now
    }

    /// The client id garaged speaks with.
    public var client: SecPlus2ClientID { codes.client }

    // MARK: Asked by the loop

    /// Takes a permit: its press is written as soon as the line is quiet, before `deadline` or
    /// not at all. nil when taken; otherwise why not (the loop tells the door at once).
    public mutating func carryOut(_ permit: PressPermit, deadline: Instant, at now: Instant) -> String? {
        if let cannotSpeak { return cannotSpeak }
        if let why = latch.take(permit) { return why }
        let move: SecPlus2DoorMove = switch permit.action {
        case .open: .open
        case .close: .close
        case .stop: .stop
        }
        // Its code is on disk already (`keepCodesAhead`): taken when the press is written.
        guard codes.reservedAhead > 0 else {
            latch.release()
            return "no rolling code is reserved for it (the file beside the table could not be saved)"
        }
        pressing = Pressing(permit: permit, deadline: deadline, move: move)
        return nil
    }

    /// Switches the opener's light, locks its remotes, or starts or ends the warning's flashing.
    /// False when garaged cannot speak on the wire now, or too much already waits.
    public mutating func ask(_ setting: OpenerSetting, at now: Instant) -> Bool {
        guard cannotSpeak == nil else { return false }
        switch setting {
        case .light(let on) where flashing != nil:
            lightAsked = on
            flashing?.restore = on
            return true
        case .light(let on):
            lightAsked = on
            return enqueue(.light, nibble: on ? 1 : 0, .light(on))
        case .remotesLocked(let locked):
            return enqueue(.lock, nibble: locked ? 1 : 0, .lock(locked))
        case .flashing(true):
            guard flashing == nil else { return true }
            let restore = lightAsked ?? lastLight ?? false
            flashing = Flashing(next: now, phase: restore, restore: restore, deadline: now + timing.flashWithin)
            return true
        case .flashing(false):
            guard let f = flashing else { return true }
            flashing = nil
            // Left as last asked: said even when it is already so (the last flash may be in flight).
            return enqueue(.light, nibble: f.restore ? 1 : 0, .light(f.restore))
        }
    }

    /// Bytes read from the wire at `now`.
    public mutating func received(_ bytes: [UInt8], at now: Instant) -> [OpenerEvent] {
        guard !bytes.isEmpty else { return [] }
        markBusy(until: now)
        var events: [OpenerEvent] = []
        for item in receiver.feed(bytes, at: now) { take(item, at: now, &events) }
        return events
    }

    /// What is due at `now`: the events time brought, and the one packet to write now (a break,
    /// then its bytes), if any. The caller writes it and calls `wrote` before anything else.
    public mutating func due(at now: Instant) -> (events: [OpenerEvent], write: [UInt8]?) {
        var events: [OpenerEvent] = []
        for item in receiver.expire(at: now) { take(item, at: now, &events) }
        summarise(at: now, &events)
        keepCodesAhead(at: now, &events)
        askIfDue(at: now)
        askBatteryIfDue(at: now)
        if let asked = askedSince, now - asked >= timing.silentAfter, toldAnswering != false {
            toldAnswering = false
            // An answer that named no state is not silence: say what came, not "check the wiring".
            let why = answeredNoState
                ? "it answers GET_STATUS but names no door state (STATUS nibble 0): the opener may be in its learn mode or still starting; garaged asks again"
                : "asked \(timing.silentAfter.secondsRoundedUp) s ago and not answered: check the wiring, the level circuit and the opener's power"
            events.append(.note(.init(.warning, "opener-silent", [
                ("device", device), ("effect", "the door takes no press until the opener says where the door is"), ("why", why)])))
            events.append(.answering(false))
        }
        if let p = pressing, p.pressedAt == nil, now >= p.deadline {
            pressing = nil
            let why = "the line was busy until past the request's deadline: the press was not sent"
            events.append(.note(.init(.error, "press-not-sent", [("reason", p.permit.reason.rawValue), ("device", device), ("why", why)])))
            events.append(.pressNotSent(p.permit, why: why))
        }
        if let p = pressing, let at = p.pressedAt, now >= at + timing.releaseAfter + timing.releaseWithin {
            // The line stayed busy past the release's time: the opener acts on the press it had.
            pressing = nil
            events.append(.note(.init(.error, "release-failed", [("reason", p.permit.reason.rawValue), ("device", device),
                ("why", "the line stayed busy \(timing.releaseWithin.secondsRoundedUp) s past the release's time"),
                ("effect", "the opener saw a press without its release; it acts on the press")])))
            events.append(.pressOver(p.permit))
        }
        if let f = flashing, !f.shown, now >= f.deadline {
            flashing = nil
            let why = "the opener's light could not be flashed within \(timing.flashWithin.secondsRoundedUp) s: the line was busy"
            events.append(.warningFailed(why: why))
            }
        guard somethingDue(at: now) else {
            waitingSince = nil
            return (events, nil)
        }
        if let busy = lineBusyUntil, now < busy + timing.quiet {
            let since = waitingSince ?? now
            waitingSince = since
            if now - since >= timing.busyLimit {
                // Asks and settings are given up (asked again later); a press has its own deadline.
                waitingSince = nil
                queue.removeAll()
                events.append(.note(.init(.error, "opener-absent", [
                    ("device", device),
                    ("why", "the line stayed busy for \(timing.busyLimit.secondsRoundedUp) s; check the wiring (a non-inverting interface to the red terminal)")])))
            }
            return (events, nil)
        }
        waitingSince = nil
        guard let next = nextToWrite(at: now) else { return (events, nil) }
        writing = next
        return (events, next.packet)
    }

    /// The packet `due` gave was written at `now` (`ok`), `unsent` of its bytes still to leave
    /// the device, or could not be (`error` says why).
    public mutating func wrote(ok: Bool, unsent: Int = 0, error: String? = nil, at now: Instant) -> [OpenerEvent] {
        guard let written = writing else { return [] }
        writing = nil
        let purpose = written.purpose
        var events: [OpenerEvent] = []
        if ok {
            markBusy(until: now + timing.byteTime * min(unsent, SecPlus2Packet.length))
            sent.removeAll { now - $0.at > timing.echoWithin }
            sent.append((written.rolling, now))
        } else {
            events.append(.note(.init(.error, "opener-write-failed", [("device", device), ("error", error ?? "unknown")])))
        }
        switch purpose {
        case .press:
            guard var p = pressing else { break }
            if ok {
                p.pressedAt = now
                pressing = p
                events.append(.note(.init(.info, "press", [("reason", p.permit.reason.rawValue), ("action", p.permit.action.rawValue),
                                                           ("opener", device)])))
            } else {
                pressing = nil
                events.append(.pressNotSent(p.permit, why: "the press could not be written: \(error ?? "unknown")"))
            }
        case .release:
            guard let p = pressing else { break }
            pressing = nil
            if ok {
                events.append(.note(.init(.info, "release", [("reason", p.permit.reason.rawValue),
                                                             ("width_ms", (now - (p.pressedAt ?? now)).millisecondsText)])))
            } else {
                events.append(.note(.init(.error, "release-failed", [("reason", p.permit.reason.rawValue),
                                                                     ("effect", "the opener saw a press without its release; it acts on the press")])))
            }
            events.append(.pressOver(p.permit))
        case .flash:
            guard var f = flashing else { break }
            f.next = now + timing.flashEvery
            if ok && !f.shown {
                f.shown = true
                events.append(.warningShown(at: now))
            }
            flashing = f
        case .light(let on):
            if ok { events.append(.note(.init(.info, "opener-asked", [("light", on ? "on" : "off")]))) }
        case .lock(let locked):
            if ok { events.append(.note(.init(.info, "opener-asked", [("remotes", locked ? "lock" : "unlock")]))) }
        case .ask(let command):
            if ok && command == .getStatus { askWrittenAt = now }
        }
        return events
    }

    /// The device failed (unplugged, an I/O error): the opener cannot be spoken to until
    /// `deviceBack`; a press waiting is not sent, and the door takes none meanwhile.
    public mutating func deviceGone(_ why: String, at now: Instant) -> [OpenerEvent] {
        guard cannotSpeak == nil else { return [] }
        cannotSpeak = "the opener's device \(device) is gone (\(why))"
        var events: [OpenerEvent] = [.note(.init(.error, "opener-device-gone", [
            ("device", device), ("error", why), ("effect", "the door takes no press; garaged reopens the device when it is back")]))]
        events += stopSpeaking(why: cannotSpeak!)
        return events + [.off(why: "its device \(device) is gone (\(why)); garaged opens it again as soon as it is back: check the cable or adapter")]
    }

    /// The device is open again: ask the opener at once.
    public mutating func deviceBack(at now: Instant) -> [OpenerEvent] {
        guard cannotSpeak != nil else { return [] }
        cannotSpeak = nil
        receiver = SecPlus2Receiver()
        restartAsking(at: now)
        return [.note(.init(.info, "opener-device-back", [("device", device)])), .off(why: nil)]
    }

    /// Whether a press was written and its release not yet.
    public var releasePending: Bool { pressing?.pressedAt != nil }

    /// Whether garaged can speak on the wire (the device is there, codes can be reserved).
    public var canSpeak: Bool { cannotSpeak == nil }

    /// When `due` should be called next, even if no byte comes.
    public var nextWake: Instant? {
        var earliest: Instant?
        func consider(_ t: Instant?) { if let t, earliest.map({ t < $0 }) ?? true { earliest = t } }
        consider(receiver.deadline)
        if cannotSpeak == nil {
            if !(statusAnswered && openingsAnswered) { consider(nextAsk) }
            if statusAnswered, let heard = lastHeard { consider(heard + timing.askAgainAfter) }
            consider(nextBatteryAsk)
            if let asked = askedSince, toldAnswering != false { consider(asked + timing.silentAfter) }
        } else {
            consider(nextAsk)
        }
        if let f = flashing { consider(f.next); if !f.shown { consider(f.deadline) } }
        if let p = pressing {
            if let at = p.pressedAt { consider(at + timing.releaseAfter); consider(at + timing.releaseAfter + timing.releaseWithin) } else { consider(p.deadline) }
        }
        consider(garbageNoise.nextWake)
        consider(forgedNoise.nextWake)
        // Something to write now: as soon as the line is quiet (at once if it has been).
        if somethingDue(at: lineBusyUntil ?? started) { consider((lineBusyUntil ?? started) + timing.quiet) }
        if let since = waitingSince { consider(since + timing.busyLimit) }
        return earliest
    }

    // MARK: Inside

    /// Whether a packet waits to be written at `now` (for a quiet line).
    private func somethingDue(at now: Instant) -> Bool {
        guard cannotSpeak == nil else { return false }
        if let p = pressing { return p.pressedAt.map { now >= $0 + timing.releaseAfter } ?? true }
        if let f = flashing, now >= f.next { return true }
        return !queue.isEmpty
    }

    /// The next packet, most urgent first: the press, its release when due, a flash when due,
    /// then settings and asks in order.
    private mutating func nextToWrite(at now: Instant) -> Outgoing? {
        guard cannotSpeak == nil else { return nil }
        if var p = pressing {
            if p.pressedAt == nil {
                guard let rolling = try? codes.take(), let packets = try? p.move.packets(client: codes.client, rolling: rolling) else { return nil }
                p.release = Outgoing(packet: packets.release.encoded, rolling: rolling, purpose: .release)
                pressing = p
                return Outgoing(packet: packets.press.encoded, rolling: rolling, purpose: .press)
            }
            // Nothing between a press and its release: they share one code, as a wall panel's do.
            guard let at = p.pressedAt, now >= at + timing.releaseAfter else { return nil }
            return p.release
        }
        if var f = flashing, now >= f.next {
            f.phase.toggle()
            flashing = f
            return build(.light, nibble: f.phase ? 1 : 0, .flash)
        }
        guard let next = queue.first, let outgoing = build(next.command, nibble: next.nibble, next.purpose) else { return nil }
        queue.removeFirst()
        return outgoing
    }

    private mutating func enqueue(_ command: SecPlus2Command, nibble: UInt8 = 0, _ purpose: Purpose) -> Bool {
        guard queue.count < 8 else { return false }
        queue.append(Queued(command: command, nibble: nibble, purpose: purpose))
        return true
    }

    /// One command with the next rolling code; nil when no code can be had.
    private func build(_ command: SecPlus2Command, nibble: UInt8, _ purpose: Purpose) -> Outgoing? {
        guard let rolling = try? codes.take(),
              let packet = try? SecPlus2Fields(command: command, nibble: nibble, client: codes.client).packet(rolling: rolling) else { return nil }
        return Outgoing(packet: packet.encoded, rolling: rolling, purpose: purpose)
    }

    private mutating func markBusy(until t: Instant) {
        if lineBusyUntil.map({ t > $0 }) ?? true { lineBusyUntil = t }
    }

    /// Asks the status and the openings while either is unanswered (and again after a long quiet).
    private mutating func askIfDue(at now: Instant) {
        guard cannotSpeak == nil else { return }
        if statusAnswered, let heard = lastHeard, now - heard >= timing.askAgainAfter {
            statusAnswered = false
            nextAsk = now
        }
        guard !(statusAnswered && openingsAnswered), now >= nextAsk else { return }
        if !statusAnswered, !queue.contains(where: { $0.purpose == .ask(.getStatus) }) { _ = enqueue(.getStatus, .ask(.getStatus)) }
        if !openingsAnswered, !queue.contains(where: { $0.purpose == .ask(.getOpenings) }) { _ = enqueue(.getOpenings, .ask(.getOpenings)) }
        if askedSince == nil { askedSince = now }
        nextAsk = now + (now - started < timing.earlyPeriod ? timing.askEarly : timing.askLater)
    }

    /// Asks the backup battery once the opener first answered, then every `askBatteryEvery`, as
    /// a wall panel asks it (nibble 5), after the status and the openings; its answer (or its
    /// silence, without a battery) says nothing of whether the opener answers.
    private mutating func askBatteryIfDue(at now: Instant) {
        guard cannotSpeak == nil, let at = nextBatteryAsk, now >= at else { return }
        if !queue.contains(where: { $0.purpose == .ask(.getBattery) }) { _ = enqueue(.getBattery, nibble: 5, .ask(.getBattery)) }
        nextBatteryAsk = now + timing.askBatteryEvery
    }

    private mutating func restartAsking(at now: Instant) {
        statusAnswered = false
        openingsAnswered = false
        askedSince = nil
        nextAsk = now
    }

    /// Keeps codes reserved ahead of every press; when none can be reserved, garaged stops
    /// speaking (the door takes no press it could not send) and tries again at each ask.
    private mutating func keepCodesAhead(at now: Instant, _ events: inout [OpenerEvent]) {
        let reserveFailed = cannotSpeak?.hasPrefix("no rolling code") ?? false
        guard codes.reservedAhead < timing.codesAhead || reserveFailed else { return }
        if reserveFailed && now < nextAsk { return }
        do {
            try codes.reserve()
            if reserveFailed {
                cannotSpeak = nil
                restartAsking(at: now)
                events.append(.note(.init(.info, "opener-codes-reserved", [("device", device)])))
                events.append(.off(why: nil))
            }
        } catch {
            guard !reserveFailed else {
                nextAsk = now + timing.askEarly
                return
            }
            let why = "no rolling code can be reserved: \(error)"
            cannotSpeak = why
            events.append(.note(.init(.error, "opener-codes-failed", [("device", device), ("error", "\(error)"),
                                                                        ("effect", "the door takes no press until a code can be reserved; garaged tries again every \(timing.askEarly.secondsRoundedUp) s")])))
            events += stopSpeaking(why: why)
            events.append(.off(why: "\(why); garaged tries again every \(timing.askEarly.secondsRoundedUp) s: free space on the disk that holds the PIN table"))
            nextAsk = now + timing.askEarly
        }
    }

    /// Nothing more goes out: a press waiting is not sent, the flashing warning fails, and the
    /// door is told the opener cannot be reached.
    private mutating func stopSpeaking(why: String) -> [OpenerEvent] {
        var events: [OpenerEvent] = []
        queue.removeAll()
        writing = nil
        if let p = pressing {
            pressing = nil
            events.append(p.pressedAt == nil ? .pressNotSent(p.permit, why: why) : .pressOver(p.permit))
        }
        if let f = flashing {
            flashing = nil
            if !f.shown { events.append(.warningFailed(why: why)) }
        }
        statusAnswered = false
        askedSince = nil
        if toldAnswering != false {
            toldAnswering = false
            events.append(.answering(false))
        }
        return events
    }

    private mutating func take(_ item: SecPlus2Receiver.Item, at now: Instant, _ events: inout [OpenerEvent]) {
        switch item {
        case .packet(let packet, _):
            let from = SecPlus2ClientID(of: packet)
            if from == codes.client {
                ownID(packet, at: now, &events)
                return
            }
            heard(packet, from: from, at: now, &events)
        case .refused(let bytes, let error):
            garbage("opener-packet-refused", [("bytes", Hex.string(bytes, separator: "", lowercase: true)), ("why", error.description)], at: now, &events)
        case .dropped(let bytes):
            garbage("opener-packet-cut", [("bytes", Hex.string(bytes, separator: "", lowercase: true)),
                                          ("why", "its rest did not come within 100 ms")], at: now, &events)
        }
    }

    /// A packet with garaged's own client id: our echo if it carries a code we just wrote;
    /// otherwise another device uses our id, or someone forged it. The opener would then refuse
    /// our codes below its, so ours move past it (or, past what 2^28 allows, a new id is taken).
    private mutating func ownID(_ packet: SecPlus2Packet, at now: Instant, _ events: inout [OpenerEvent]) {
        sent.removeAll { now - $0.at > timing.echoWithin }
        if sent.contains(where: { $0.rolling == packet.rolling }) { return }
        let fields: [(String, String)] = [("device", device), ("rolling", String(packet.rolling)),
                                          ("command", SecPlus2Fields(packet).command.description)]
        events += forgedNoise.heard(.init(.error, "opener-identity-forged", fields + [
            ("why", "a packet with garaged's own client id \(codes.client) that garaged did not send: another device uses that id, or someone on the wire forged it")]),
            at: now).map(OpenerEvent.note)
        guard packet.rolling >= codes.next else { return }
        do {
            let renewed = try codes.skip(past: packet.rolling)
            if renewed {
                events.append(.note(.init(.warning, "opener-new-identity", [
                    ("device", device), ("client", codes.client.description),
                    ("why", "the forged code left no room below 2^28: garaged speaks with a new client id, which the opener accepts")])))
            } else {
                events.append(.note(.init(.warning, "opener-codes-moved", [("device", device), ("next", String(codes.next)),
                                                                             ("why", "past the forged code, so the opener accepts ours")])))
            }
        } catch {
            events.append(.note(.init(.error, "opener-codes-failed", [("device", device), ("error", "\(error)")])))
        }
    }

    /// A packet from another client id: the opener's news when it is the opener's, learned
    /// from its answer to GET_STATUS; anything else on the wire (a wall panel) says nothing of it.
    private mutating func heard(_ packet: SecPlus2Packet, from: SecPlus2ClientID, at now: Instant, _ events: inout [OpenerEvent]) {
        let message = SecPlus2Message(SecPlus2Fields(packet))
        if from != openerID, case .doorAction(_, pressed: true) = message {
            // A wall panel's press (only the press, not its release): who moves the door next.
            events.append(.wallButton)
            return
        }
        if from != openerID {
            // Learned from a STATUS that answers our GET_STATUS: at the start, or while the
            // opener it knew is silent (the opener was replaced).
            guard case .status(let state, _, _, _, _) = message, let asked = askWrittenAt, now - asked < timing.silentAfter,
                  openerID == nil || toldAnswering == false else { return }
            // An answer naming no state: not yet the opener's word on the door (asked again).
            answeredNoState = state == .unknown
            guard state != .unknown else { return }
            if let old = openerID {
                events.append(.note(.init(.warning, "opener-id-changed", [("device", device), ("was", old.description), ("now", from.description)])))
            }
            openerID = from
        }
        lastHeard = now
        askedSince = nil
        if toldAnswering != true {
            if toldAnswering == false { events.append(.note(.init(.info, "opener-answers", [("device", device)]))) }
            toldAnswering = true
            events.append(.answering(true))
        }
        switch message {
        case .status(let state, let light, let locked, let obstructed, _):
            // Only a STATUS that names the door's state answers the ask.
            if state != .unknown { statusAnswered = true }
            // The battery is asked once the opener first answers, then every askBatteryEvery.
            if state != .unknown, nextBatteryAsk == nil { nextBatteryAsk = now }
            // At an end after moving: the count of openings changed, ask it again.
            if (state == .open || state == .closed), let last = lastState, last != state {
                openingsAnswered = false
                nextAsk = now
            }
            if state != .unknown { lastState = state }
            lastLight = light
            if lightAsked == light { lightAsked = nil }
            events.append(.status(state, obstructed: obstructed, light: flashing?.restore ?? light, locked: locked))
        case .openings(let count):
            openingsAnswered = true
            events.append(.openings(count))
        case .motion:
            events.append(.motion)
        case .battery(let byte1):
            // Asked or not: the opener may say it by itself too.
            if byte1 != lastBattery, batterySaidAt.map({ now - $0 >= Self.summaryEvery }) ?? true {
                lastBattery = byte1
                batterySaidAt = now
                let said = OpenerBattery(secPlus2: byte1)
                events.append(.note(.init(said == nil ? .warning : .info, "opener-battery", [
                    ("device", device), ("battery", said?.rawValue ?? "not known (\(byte1): 6 is charging, 8 full)")])))
            }
            events.append(.battery(OpenerBattery(secPlus2: byte1)))
        default:
            break
        }
    }

    /// Garbage on the wire (anyone on it can make it): said once a minute (`WireNoise`).
    private mutating func garbage(_ event: String, _ fields: [(String, String)], at now: Instant, _ events: inout [OpenerEvent]) {
        events += garbageNoise.heard(.init(.warning, event, fields), at: now).map(OpenerEvent.note)
    }

    /// Says how many bad or forged packets followed the first of the minute, once it is over.
    private mutating func summarise(at now: Instant, _ events: inout [OpenerEvent]) {
        events += (garbageNoise.summarise(at: now) + forgedNoise.summarise(at: now)).map(OpenerEvent.note)
    }
}

/// Where a session's rolling codes come from: kept on disk so none is sent twice across
/// restarts (`SecPlus2Codes` in DoorSystem). Every call may save, and throws when it cannot.
public protocol SecPlus2CodeSource: AnyObject {
    var client: SecPlus2ClientID { get }
    /// The next code to send.
    var next: UInt32 { get }
    /// Codes reserved on disk and not yet taken: a take with any left writes nothing.
    var reservedAhead: UInt32 { get }
    /// The code for the next command, reserved first when none is left.
    func take() throws(StoreError) -> UInt32
    /// Reserves the next block now.
    func reserve() throws(StoreError)
    /// Moves past `rolling` (someone else's packet with our id carried it); true when that left
    /// no room below 2^28 and a new client id was taken instead.
    func skip(past rolling: UInt32) throws(StoreError) -> Bool
}

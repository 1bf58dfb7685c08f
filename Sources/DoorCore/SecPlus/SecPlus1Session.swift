/// One Security+ 1.0 opener's conversation on its wall wire, pure, as `SecPlus2Session` is:
/// bytes and time in; the byte to write, when to wake, and what the door and the log are told
/// out. The wall panel (or garaged standing in for one) sends single bytes and the opener only
/// answers its questions, so garaged listens first: with a panel polling it learns the door from
/// the panel's exchanges and sends its buttons only in the gaps; with none heard it polls as a
/// panel would. The door has one button, a toggle, so an open, close or stop is a sequence of
/// toggles, each decided from the state the opener reported and confirmed by the next one; a
/// toggle that may send the door down is written only for a permit the gate warned
/// (`PressPermit.warned`) and never while the photo-eye's beam is broken.
public struct SecPlus1Session: OpenerSession {
    /// The wire's times; the tests may shorten them.
    public struct Timing: Sendable {
        /// Listen this long for a wall panel before standing in for one (homekit-ratgdo32's
        /// 15 s; ratgdo waits 35 s, gdolib 2.5 s).
        public var listenFor: Duration = .seconds(15)
        /// A panel heard nothing from this long is gone: garaged stands in for it.
        public var panelGoneAfter: Duration = .seconds(15)
        /// Standing in: one byte a slot, a question or a button in its place (ratgdo's 250 ms).
        public var slot: Duration = .milliseconds(250)
        /// Write only this long after the last byte on the wire (ratgdo's 50 ms)...
        public var afterWire: Duration = .milliseconds(50)
        /// ...and this long after garaged's own last byte (ratgdo's 200 ms).
        public var betweenOwn: Duration = .milliseconds(200)
        /// With a panel: write only this soon after the panel's last question began
        /// (homekit-ratgdo32's window), so garaged's byte lands after an exchange, never just
        /// before the panel's next question.
        public var panelWindow: Duration = .milliseconds(200)
        /// How long the door and light buttons are held (ratgdo's 500 ms)...
        public var buttonHeld: Duration = .milliseconds(500)
        /// ...and the lock's (ratgdo's 3.5 s).
        public var lockHeld: Duration = .milliseconds(3500)
        /// An answer comes this soon after its question, or not at all (ratgdo drops a partial
        /// exchange after 100 ms).
        public var answerWithin: Duration = .milliseconds(100)
        /// A byte of garaged's own heard back this soon after it left is its echo.
        public var echoWithin: Duration = .milliseconds(250)
        /// Questions unanswered this long: the opener is silent.
        public var silentAfter: Duration = .seconds(5)
        /// A toggle whose effect the opener has not reported this long after its release: the
        /// sequence stops there.
        public var confirmWithin: Duration = .seconds(5)
        /// A toggle after the first, once decided, is written within this or not at all.
        public var stepWithin: Duration = .seconds(2)
        /// The most toggles one permit may take (an open from STOPPED takes two; three covers an
        /// opener that stops instead of reversing).
        public var maxToggles = 3
        /// The warning: the light's button pressed this often (each press toggles the light).
        public var flashEvery: Duration = .milliseconds(500)
        /// The first flash not on the wire this long after the warning was asked: nobody is warned.
        public var flashWithin: Duration = .seconds(2)
        /// How long one byte takes on the wire (11 bits at 1200 baud).
        public var byteTime: Duration = .microseconds(9167)

        public init() {}
    }

    /// How garaged is on the wire: listening for a panel, with one, or standing in for one.
    public enum Role: Equatable, Sendable {
        case listening
        case withPanel
        case standingIn
    }

    /// Two answers in a row that agree make a value count, as all three peers do.
    private struct Reading<Value: Equatable> {
        var last: Value?
        var confirmed: Value?
        /// When two answers last agreed (whether or not the value changed).
        var confirmedAt: Instant?

        /// Takes an answer; true when the value that counts changed.
        mutating func read(_ value: Value, at now: Instant) -> Bool {
            defer { last = value }
            guard last == value else { return false }
            confirmedAt = now
            guard confirmed != value else { return false }
            confirmed = value
            return true
        }

        /// The value that counts, if two answers agreed on it after `instant` (any time: nil).
        func confirmedSince(_ instant: Instant?) -> Value? {
            guard let instant else { return confirmed }
            return confirmedAt.map { $0 > instant } == true ? confirmed : nil
        }

        /// The next two answers decide.
        mutating func fresh() { last = nil }
    }

    /// The light's or the lock's button, and the state it is asked to reach: pressed only while
    /// the opener says otherwise (a toggle), then judged by two answers after the release.
    private struct Button {
        let press: UInt8
        let release: UInt8
        let held: Duration
        var target: Bool?
        var pressedAt: Instant?
        /// The last release: only answers after it say whether the toggle took.
        var releasedAt: Instant?
        var tries = 0
    }

    /// An open, close or stop as toggles: which one is next and what it waits for.
    private struct Sequence {
        let permit: PressPermit
        /// The first toggle is written by then or never (the request's deadline).
        let deadline: Instant
        var toggles = 0
        var step: Step

        enum Step: Equatable {
            /// Just taken: what it needs is decided from the opener's state at the next `due`.
            case decide
            /// A toggle from `from`, to be written by `by`.
            case toWrite(by: Instant, from: OpenerDoorState)
            /// Written at `at`: its release is due.
            case pressed(at: Instant, from: OpenerDoorState)
            /// Released: the opener must report a state other than `from` by `until`.
            case awaiting(until: Instant, from: OpenerDoorState)
        }
    }

    /// The warning on the opener's light: when its button is pressed next, the light it is left
    /// at, and whether its first press was written.
    private struct Flashing {
        var next: Instant
        var restore: Bool
        var shown = false
        let deadline: Instant
    }

    /// A question on the wire awaiting its one-byte answer (garaged's, or a panel's).
    private struct Exchange {
        let question: UInt8
        let at: Instant
    }

    /// What a write carries, so `wrote` knows what it confirmed.
    private enum Purpose: Equatable {
        case doorPress, doorRelease, lateRelease, flash, flashRelease, lightPress, lightRelease, lockPress, lockRelease, poll
    }

    public let device: String
    public let timing: Timing
    /// 1200 baud, 8 data bits, even parity, 1 stop bit, no break.
    public var line: OpenerLine { Self.line }
    /// The same, for whoever opens the wire without a session (`doctor`).
    public static let line = OpenerLine(baud: 1200, evenParity: true, breakBefore: nil)
    /// Garbage is said at most once in this long (with its count).
    public static let summaryEvery: Duration = WireNoise.every

    public private(set) var role: Role = .listening
    private var listeningSince: Instant
    private var panelHeardAt: Instant?
    /// When the panel's last question began: garaged writes in the window after it.
    private var panelAskedAt: Instant?
    /// Standing in: where in ratgdo's start (nil once done), then in the polls.
    private var startIndex: Int? = 0
    private var pollIndex = 0
    /// The last question was an answer's check, not the polling's (one check in a row at most,
    /// so an opener answering noise cannot starve the other questions).
    private var reasked = false
    private var lastWire: Instant?
    private var lastOwn: Instant?
    /// garaged's bytes not yet heard back, and by when they must be.
    private var echoes: [(byte: UInt8, by: Instant)] = []
    private var exchange: Exchange?
    private var writing: (byte: UInt8, purpose: Purpose)?

    private var door = Reading<OpenerDoorState>()
    private var light = Reading<Bool>()
    private var locked = Reading<Bool>()
    private var obstructed = Reading<Bool>()
    /// The status the door was last told; nil before the first, and after a silence.
    private var told: (state: OpenerDoorState, obstructed: Bool, light: Bool, locked: Bool)?
    /// The door is told the state again, whatever it was told before (a sequence ended).
    private var tellStateAgain = false
    /// A sequence's pressOver, said after the status that ends it.
    private var overAfterStatus: PressPermit?

    private var sequence: Sequence? {
        didSet { if sequence == nil { latch.release() } }
    }
    /// A door press whose sequence ended before its release (a panel's press, a silence): the
    /// release still goes out then.
    private var doorReleaseAt: Instant?
    /// The permits taken: its door's only, one at a time, none twice.
    private var latch: PermitLatch
    private var flashing: Flashing?
    private var flashReleases = 0
    private var lightButton = Button(press: SecPlus1Wire.lightPress, release: SecPlus1Wire.lightRelease, held: .zero)
    private var lockButton = Button(press: SecPlus1Wire.lockPress, release: SecPlus1Wire.lockRelease, held: .zero)

    /// Since when a question (garaged's or a panel's) has gone unanswered; nil once answered.
    private var unansweredSince: Instant?
    private var lastEcho: Instant?
    private var toldAnswering: Bool?
    private var heard0x37 = false
    /// Garbage, said once a minute.
    private var garbageNoise = WireNoise()
    /// Why garaged cannot speak on the wire now (the device is gone); nil when it can.
    private var cannotSpeak: String?

    /// A session for the opener on `device`, from `now`: it listens for a panel first.
    public init(device: String, door: Int = 0, timing: Timing = Timing(), at now: Instant) {
        self.device = device
        latch = PermitLatch(door: door)
        self.timing = timing
        listeningSince = now
        lightButton = Button(press: SecPlus1Wire.lightPress, release: SecPlus1Wire.lightRelease, held: timing.buttonHeld)
        lockButton = Button(press: SecPlus1Wire.lockPress, release: SecPlus1Wire.lockRelease, held: timing.lockHeld)
    }

    // MARK: Asked by the loop

    /// Takes a permit: its toggles are written as the opener's reports call for them, the first
    /// before `deadline` or none at all. nil when taken (even when no toggle will be needed: the
    /// door is then told `pressNotSent` at the next `due`); otherwise why not.
    public mutating func carryOut(_ permit: PressPermit, deadline: Instant, at now: Instant) -> String? {
        if let cannotSpeak { return cannotSpeak }
        guard role != .listening, door.confirmed != nil else { return "the opener has not said where the door is yet" }
        if let why = latch.take(permit) { return why }
        sequence = Sequence(permit: permit, deadline: deadline, step: .decide)
        return nil
    }

    /// Switches the opener's light, locks its remotes, or starts or ends the warning's flashing:
    /// each a toggle button pressed only while the opener says otherwise. False when garaged
    /// cannot speak on the wire now.
    public mutating func ask(_ setting: OpenerSetting, at now: Instant) -> Bool {
        guard cannotSpeak == nil else { return false }
        switch setting {
        case .light(let on) where flashing != nil:
            flashing?.restore = on
        case .light(let on):
            lightButton.target = on
            lightButton.tries = 0
        case .remotesLocked(let locked):
            lockButton.target = locked
            lockButton.tries = 0
        case .flashing(true):
            guard flashing == nil else { return true }
            let restore = lightButton.target ?? light.confirmed ?? false
            lightButton.target = nil
            flashing = Flashing(next: now, restore: restore, deadline: now + timing.flashWithin)
        case .flashing(false):
            guard let f = flashing else { return true }
            flashing = nil
            // homekit-ratgdo32 releases the button more than once after its flashing presses.
            if f.shown { flashReleases = 2 }
            lightButton.target = f.restore
            lightButton.tries = 0
        }
        return true
    }

    /// Bytes read from the wire at `now`.
    public mutating func received(_ bytes: [UInt8], at now: Instant) -> [OpenerEvent] {
        guard !bytes.isEmpty else { return [] }
        var events: [OpenerEvent] = []
        for byte in bytes { take(byte, at: now, &events) }
        reconsider(at: now, &events)
        return events
    }

    /// What is due at `now`: the events time brought, and the one byte to write now, if any.
    /// The caller writes it and calls `wrote` before anything else.
    public mutating func due(at now: Instant) -> (events: [OpenerEvent], write: [UInt8]?) {
        var events: [OpenerEvent] = []
        summarise(at: now, &events)
        if let x = exchange, now - x.at > timing.answerWithin { exchange = nil }
        echoes.removeAll { now > $0.by }
        switchRole(at: now, &events)
        if let since = unansweredSince, now - since >= timing.silentAfter, toldAnswering != false {
            silent(at: now, &events)
        }
        if let f = flashing, !f.shown, now >= f.deadline {
            flashing = nil
            events.append(.warningFailed(why: "the opener's light could not be flashed within \(timing.flashWithin.secondsRoundedUp) s: the line gave no gap"))
        }
        giveUpButtons(at: now, &events)
        reconsider(at: now, &events)
        guard cannotSpeak == nil, role != .listening, let from = writableAt, now >= from, now <= writableUntil,
              let next = nextByte(at: now, mayAsk: pollWritableAt.map { now >= $0 } ?? false) else { return (events, nil) }
        writing = next
        return (events, [next.byte])
    }

    /// The byte `due` gave was written at `now` (`ok`), `unsent` bytes still to leave the
    /// device, or could not be (`error` says why).
    public mutating func wrote(ok: Bool, unsent: Int = 0, error: String? = nil, at now: Instant) -> [OpenerEvent] {
        guard let (byte, purpose) = writing else { return [] }
        writing = nil
        var events: [OpenerEvent] = []
        if ok {
            let leaves = now + timing.byteTime * max(unsent, 1)
            lastOwn = now
            lastWire = max(lastWire ?? leaves, leaves)
            echoes.append((byte, leaves + timing.echoWithin))
        } else {
            events.append(.note(.init(.error, "opener-write-failed", [("device", device), ("error", error ?? "unknown")])))
        }
        switch purpose {
        case .doorPress:
            guard var s = sequence, case .toWrite(_, let from) = s.step else { break }
            guard ok else {
                end(s, why: "the toggle could not be written: \(error ?? "unknown")", at: now, &events)
                break
            }
            s.toggles += 1
            s.step = .pressed(at: now, from: from)
            sequence = s
            if s.toggles == 1 {
                events.append(.note(.init(.info, "press", [("reason", s.permit.reason.rawValue), ("action", s.permit.action.rawValue), ("opener", device)])))
            }
            events.append(.note(.init(.info, "opener-toggle", [("reason", s.permit.reason.rawValue), ("from", from.description), ("toggle", String(s.toggles))])))
        case .doorRelease:
            guard var s = sequence, case .pressed(let at, let from) = s.step else { break }
            if !ok {
                events.append(.note(.init(.error, "release-failed", [("reason", s.permit.reason.rawValue),
                                                                     ("effect", "the opener saw a press without its release; it acts on the press")])))
            }
            events.append(.note(.init(.info, "release", [("reason", s.permit.reason.rawValue), ("width_ms", (now - at).millisecondsText)])))
            s.step = .awaiting(until: now + timing.confirmWithin, from: from)
            sequence = s
        case .lateRelease:
            doorReleaseAt = nil
        case .flash:
            guard var f = flashing else { break }
            f.next = now + timing.flashEvery
            if ok && !f.shown {
                f.shown = true
                events.append(.warningShown(at: now))
            }
            flashing = f
        case .flashRelease:
            flashReleases = max(0, flashReleases - 1)
            if flashReleases == 0 {
                // Only answers after the flashing says where the light was left.
                lightButton.releasedAt = now
                light.fresh()
            }
        case .lightPress, .lockPress:
            let lock = purpose == .lockPress
            var b = lock ? lockButton : lightButton
            b.pressedAt = now
            b.tries += 1
            if lock { lockButton = b } else { lightButton = b }
            if ok, let target = b.target {
                events.append(.note(.init(.info, "opener-asked", [lock ? ("remotes", target ? "lock" : "unlock") : ("light", target ? "on" : "off")])))
            }
        case .lightRelease, .lockRelease:
            if purpose == .lockRelease {
                lockButton.pressedAt = nil
                lockButton.releasedAt = now
                locked.fresh()
            } else {
                lightButton.pressedAt = nil
                lightButton.releasedAt = now
                light.fresh()
            }
        case .poll:
            if ok, SecPlus1Wire.isQuestion(byte), unansweredSince == nil { unansweredSince = now }
        }
        reconsider(at: now, &events)
        return events
    }

    /// The device failed (unplugged, an I/O error): nothing is written until `deviceBack`; a
    /// sequence under way ends (the door is told what was and was not sent).
    public mutating func deviceGone(_ why: String, at now: Instant) -> [OpenerEvent] {
        guard cannotSpeak == nil else { return [] }
        let reason = "the opener's device \(device) is gone (\(why))"
        var events: [OpenerEvent] = [.note(.init(.error, "opener-device-gone", [
            ("device", device), ("error", why), ("effect", "the door takes no press; garaged reopens the device when it is back")]))]
        if let s = sequence { end(s, why: reason, at: now, &events) }
        if let p = overAfterStatus {
            overAfterStatus = nil
            events.append(.pressOver(p))
        }
        cannotSpeak = reason
        if let f = flashing {
            flashing = nil
            if !f.shown { events.append(.warningFailed(why: reason)) }
        }
        forgetTheWire()
        if toldAnswering != false {
            toldAnswering = false
            events.append(.answering(false))
        }
        return events
    }

    /// The device is open again: garaged takes the role it had (a panel, or standing in, starting
    /// over), and the opener's answers are read afresh.
    public mutating func deviceBack(at now: Instant) -> [OpenerEvent] {
        guard cannotSpeak != nil else { return [] }
        cannotSpeak = nil
        switch role {
        case .listening: listeningSince = now
        case .withPanel: panelHeardAt = now
        case .standingIn: startIndex = 0
        }
        return [.note(.init(.info, "opener-device-back", [("device", device)]))]
    }

    /// Whether a button was pressed and its release is still to come.
    public var releasePending: Bool {
        if case .pressed = sequence?.step { return true }
        return doorReleaseAt != nil || lightButton.pressedAt != nil || lockButton.pressedAt != nil
    }

    /// When `due` must be called next, even if no byte comes.
    public var nextWake: Instant? {
        var earliest: Instant?
        func consider(_ t: Instant?) { if let t, earliest.map({ t < $0 }) ?? true { earliest = t } }
        consider(garbageNoise.nextWake)
        guard cannotSpeak == nil else { return earliest }
        switch role {
        case .listening: consider(listeningSince + timing.listenFor)
        case .withPanel: consider(panelHeardAt.map { $0 + timing.panelGoneAfter })
        case .standingIn: break
        }
        if let since = unansweredSince, toldAnswering != false { consider(since + timing.silentAfter) }
        if let x = exchange { consider(x.at + timing.answerWithin + .nanoseconds(1)) }
        consider(echoes.first.map { $0.by + .nanoseconds(1) })
        if let s = sequence {
            switch s.step {
            case .toWrite(let by, _): consider(by)
            case .awaiting(let until, _): consider(until)
            case .decide: consider(Instant(nanoseconds: 0))
            case .pressed: break
            }
        }
        if let f = flashing, !f.shown { consider(f.deadline) }
        for b in [lightButton, lockButton] where b.target != nil && b.pressedAt == nil {
            consider(b.releasedAt.map { $0 + timing.confirmWithin })
        }
        if role != .listening, let wanted = byteWantedAt, let from = writableAt, max(wanted, from) <= writableUntil {
            consider(max(wanted, from))
        }
        consider(pollWritableAt)
        return earliest
    }

    // MARK: Inside: the wire

    /// When garaged may write a button next: after the last byte on the wire, never while a
    /// question awaits its answer; with a panel, 200 ms after its own last byte and only after
    /// one of the panel's questions (nil until the panel has asked one). Standing in, a button
    /// takes the next gap in the wire at once: the slot spaces only garaged's questions
    /// (`pollWritableAt`), so a press does not wait out the rest of a slot.
    private var writableAt: Instant? {
        var at = lastWire.map { $0 + timing.afterWire } ?? Instant(nanoseconds: 0)
        if let x = exchange { at = max(at, x.at + timing.answerWithin) }
        if role == .withPanel {
            if let own = lastOwn { at = max(at, own + timing.betweenOwn) }
            guard let asked = panelAskedAt else { return nil }
            at = max(at, asked)
        }
        return at
    }

    /// When garaged, standing in, may ask its next question: a slot after its own last byte.
    private var pollWritableAt: Instant? {
        guard role == .standingIn, let at = writableAt else { return nil }
        return lastOwn.map { max(at, $0 + timing.slot) } ?? at
    }

    /// Until when the gap lasts: with a panel, the window after its last question closes (its
    /// next question may come); standing in, it does not close.
    private var writableUntil: Instant {
        guard role == .withPanel else { return Instant(nanoseconds: .max) }
        return (panelAskedAt ?? Instant(nanoseconds: 0)) + timing.panelWindow
    }

    /// The earliest instant a byte is wanted (before the gap rules), nil when none is.
    private var byteWantedAt: Instant? {
        let now = Instant(nanoseconds: 0)
        var earliest: Instant?
        func consider(_ t: Instant?) { if let t, earliest.map({ t < $0 }) ?? true { earliest = t } }
        if let s = sequence {
            switch s.step {
            case .pressed(let at, _): consider(at + timing.buttonHeld)
            case .toWrite: consider(now)
            case .awaiting, .decide: break
            }
        }
        consider(doorReleaseAt)
        if let f = flashing, lightButton.pressedAt == nil { consider(f.next) }
        if flashReleases > 0 { consider(now) }
        for b in [lightButton, lockButton] {
            if let at = b.pressedAt { consider(at + b.held) }
        }
        if wantsPress(lightButton, light) || wantsPress(lockButton, locked) { consider(now) }
        return earliest
    }

    /// The byte to write now, most urgent first: the door's release, its toggle, a flash, the
    /// flashing's releases, the light's and the lock's buttons; standing in, the next question.
    private mutating func nextByte(at now: Instant, mayAsk: Bool) -> (byte: UInt8, purpose: Purpose)? {
        if let s = sequence {
            switch s.step {
            case .pressed(let at, _) where now >= at + timing.buttonHeld:
                return (SecPlus1Wire.doorRelease, .doorRelease)
            case .toWrite(_, let from) where door.confirmed == from && mayToggle(s.permit, from: from) == nil:
                return (SecPlus1Wire.doorPress, .doorPress)
            default:
                break
            }
        }
        if let at = doorReleaseAt, now >= at { return (SecPlus1Wire.doorRelease, .lateRelease) }
        if let f = flashing, now >= f.next, lightButton.pressedAt == nil { return (SecPlus1Wire.lightPress, .flash) }
        if flashReleases > 0 { return (SecPlus1Wire.lightRelease, .flashRelease) }
        if let at = lightButton.pressedAt, now >= at + lightButton.held { return (SecPlus1Wire.lightRelease, .lightRelease) }
        if let at = lockButton.pressedAt, now >= at + lockButton.held { return (SecPlus1Wire.lockRelease, .lockRelease) }
        if flashing == nil, wantsPress(lightButton, light) { return (SecPlus1Wire.lightPress, .lightPress) }
        if wantsPress(lockButton, locked) { return (SecPlus1Wire.lockPress, .lockPress) }
        guard role == .standingIn, mayAsk else { return nil }
        if let i = startIndex {
            startIndex = i + 1 < SecPlus1Wire.standInStart.count ? i + 1 : nil
            return (SecPlus1Wire.standInStart[i], .poll)
        }
        let polls = sequence == nil ? SecPlus1Wire.polls : SecPlus1Wire.pollsWhileToggling
        let turn = SecPlus1Wire.polls.count * SecPlus1Wire.pollsWhileToggling.count
        if !reasked, let check = unconfirmed {
            reasked = true
            // The check stands for the polling's own question when that is the same one.
            if polls[pollIndex % polls.count] == check { pollIndex = (pollIndex + 1) % turn }
            return (check, .poll)
        }
        reasked = false
        let question = polls[pollIndex % polls.count]
        pollIndex = (pollIndex + 1) % turn
        return (question, .poll)
    }

    /// The question whose last answer differs from the value that counts (the door first, then
    /// the photo-eye): asked again in the next slot, so the second answer a change needs comes a
    /// slot later, not a turn of the polling later.
    private var unconfirmed: UInt8? {
        if let last = door.last, last != door.confirmed { return SecPlus1Wire.askDoor }
        if let last = obstructed.last, last != obstructed.confirmed { return SecPlus1Wire.askObstruction }
        return nil
    }

    /// Whether a light or lock button should be pressed: asked, not pressed already, the
    /// opener's word since the last release says otherwise, and fewer than two tries.
    private func wantsPress(_ b: Button, _ reading: Reading<Bool>) -> Bool {
        guard let target = b.target, b.pressedAt == nil, b.tries < 2, flashReleases == 0,
              let now = reading.confirmedSince(b.releasedAt) else { return false }
        return now != target
    }

    /// A light or lock toggle the opener has not confirmed within `confirmWithin` of its release
    /// is given up (said once); one it confirmed is done.
    private mutating func giveUpButtons(at now: Instant, _ events: inout [OpenerEvent]) {
        for lock in [false, true] {
            var b = lock ? lockButton : lightButton
            let reading = lock ? locked : light
            guard let target = b.target, b.pressedAt == nil else { continue }
            if reading.confirmedSince(b.releasedAt) == target {
                b.target = nil
                b.tries = 0
            } else if let released = b.releasedAt, b.tries > 0, now >= released + timing.confirmWithin {
                b.target = nil
                b.tries = 0
                events.append(.note(.init(.warning, "opener-setting-unconfirmed", [
                    ("device", device), (lock ? "remotes" : "light", lock ? (target ? "lock" : "unlock") : (target ? "on" : "off")),
                    ("why", "the opener's answers did not show it within \(timing.confirmWithin.secondsRoundedUp) s of the button's release; ask again once the status shows the last one")])))
            }
            if lock { lockButton = b } else { lightButton = b }
        }
    }

    /// One byte from the wire: garaged's own echo, the answer to the open question, a panel's
    /// button or question, a pair nobody explained, or garbage.
    private mutating func take(_ byte: UInt8, at now: Instant, _ events: inout [OpenerEvent]) {
        lastWire = max(lastWire ?? now, now)
        echoes.removeAll { now > $0.by }
        if let mine = echoes.first, mine.byte == byte {
            echoes.removeFirst()
            lastEcho = now
            exchange = SecPlus1Wire.isQuestion(byte) || SecPlus1Wire.unexplained.contains(byte) ? Exchange(question: byte, at: now) : nil
            return
        }
        // The second byte of a pair nobody explained (C0 3F, F8 3F, FE 3F: it may look like a
        // command) goes with its first.
        if let x = exchange, now - x.at <= timing.answerWithin,
           !SecPlus1Wire.isCommand(byte) || SecPlus1Wire.unexplained.contains(x.question) {
            exchange = nil
            answer(x.question, byte, at: now, &events)
            return
        }
        exchange = nil
        switch byte {
        case SecPlus1Wire.doorPress...SecPlus1Wire.lockRelease:
            panelHeard(at: now, &events)
            if byte == SecPlus1Wire.doorPress {
                events.append(.note(.init(.info, "opener-panel-press", [("device", device), ("button", "door")])))
                // Who moves the door next: the wall button.
                events.append(.wallButton)
                if let s = sequence {
                    end(s, why: "a wall panel's door button was pressed meanwhile: garaged presses no more", at: now, &events)
                }
            }
        case SecPlus1Wire.askDoor0x37:
            panelHeard(at: now, &events)
            panelAskedAt = now
            if !heard0x37 {
                heard0x37 = true
                events.append(.note(.init(.warning, "opener-panel-unsupported", [
                    ("device", device),
                    ("why", "a wall panel that asks 0x37 (a 398LM-type) is on the wire: the opener does not tell it the door's state, so garaged cannot learn it, and does not talk over the panel"),
                    ("fix", "replace the panel with one that asks 0x38 (an 889LM-type) or disconnect it")])))
            }
            exchange = Exchange(question: byte, at: now)
            if unansweredSince == nil { unansweredSince = now }
        case SecPlus1Wire.askDoor...SecPlus1Wire.askLightLock:
            panelHeard(at: now, &events)
            panelAskedAt = now
            exchange = Exchange(question: byte, at: now)
            if unansweredSince == nil { unansweredSince = now }
        case _ where SecPlus1Wire.unexplained.contains(byte):
            exchange = Exchange(question: byte, at: now)
        case SecPlus1Wire.idle:
            break
        default:
            garbage("opener-byte-refused", [("byte", Hex.string([byte], separator: "", lowercase: true)),
                                            ("why", "no question awaited an answer and it is no button or question of Security+ 1.0")], at: now, &events)
        }
    }

    /// The opener's answer to `question`: the door, the photo-eye, or the light and the lock.
    private mutating func answer(_ question: UInt8, _ value: UInt8, at now: Instant, _ events: inout [OpenerEvent]) {
        guard SecPlus1Wire.isQuestion(question) || question == SecPlus1Wire.askDoor0x37 else { return }
        unansweredSince = nil
        if toldAnswering != true {
            if toldAnswering == false { events.append(.note(.init(.info, "opener-answers", [("device", device)]))) }
            toldAnswering = true
            events.append(.answering(true))
        }
        switch question {
        case SecPlus1Wire.askDoor:
            guard let state = SecPlus1Wire.doorState(value) else {
                door.fresh()
                garbage("opener-answer-refused", [("byte", Hex.string([value], separator: "", lowercase: true)),
                                                  ("why", "its low 3 bits name no door state")], at: now, &events)
                return
            }
            _ = door.read(state, at: now)
        case SecPlus1Wire.askLightLock:
            _ = light.read(SecPlus1Wire.light(value), at: now)
            _ = locked.read(SecPlus1Wire.locked(value), at: now)
        case SecPlus1Wire.askObstruction:
            let broken = SecPlus1Wire.obstructed(value)
            // A broken beam counts at its first answer; only the clear waits for a second.
            if broken { obstructed.last = true }
            _ = obstructed.read(broken, at: now)
        default:
            break
        }
    }

    /// Someone else's button or question: a panel is on the wire, and garaged stops polling.
    private mutating func panelHeard(at now: Instant, _ events: inout [OpenerEvent]) {
        panelHeardAt = now
        guard role != .withPanel else { return }
        role = .withPanel
        events.append(.note(.init(.info, "opener-panel-heard", [
            ("device", device), ("effect", "garaged sends no question of its own, learns the door from the panel's, and sends its buttons in the gaps")])))
    }

    /// Listening ends, or a panel is gone: garaged stands in for one.
    private mutating func switchRole(at now: Instant, _ events: inout [OpenerEvent]) {
        guard cannotSpeak == nil else { return }
        switch role {
        case .listening where now - listeningSince >= timing.listenFor:
            events.append(.note(.init(.info, "opener-standing-in", [
                ("device", device), ("why", "no wall panel heard for \(timing.listenFor.secondsRoundedUp) s: garaged asks the opener itself, as a panel would")])))
        case .withPanel where panelHeardAt.map({ now - $0 >= timing.panelGoneAfter }) ?? true:
            events.append(.note(.init(.info, "opener-standing-in", [
                ("device", device), ("why", "the wall panel has not been heard for \(timing.panelGoneAfter.secondsRoundedUp) s: garaged asks the opener itself, as a panel would")])))
        default:
            return
        }
        role = .standingIn
        startIndex = 0
        unansweredSince = nil
    }

    /// The opener stopped answering: the door is told, its state is read afresh once it answers,
    /// and a sequence under way ends.
    private mutating func silent(at now: Instant, _ events: inout [OpenerEvent]) {
        toldAnswering = false
        let why: String
        if heard0x37 && role == .withPanel {
            why = "a 0x37 wall panel's questions go unanswered (garaged does not support such panels): replace the panel or disconnect it"
        } else if role == .standingIn, lastEcho.map({ now - $0 >= timing.silentAfter }) ?? true {
            why = "garaged does not hear its own bytes back either: check RXD and TXD through the level circuit to the red terminal"
        } else {
            why = "asked \(timing.silentAfter.secondsRoundedUp) s ago and not answered: check the wiring, the level circuit and the opener's power"
        }
        events.append(.note(.init(.warning, "opener-silent", [
            ("device", device), ("effect", "the door takes no press until the opener answers"), ("why", why)])))
        if let s = sequence { end(s, why: "the opener stopped answering", at: now, &events) }
        unansweredSince = nil
        told = nil
        door = Reading()
        light = Reading()
        locked = Reading()
        obstructed = Reading()
        events.append(.answering(false))
    }

    /// Nothing half-heard survives the device going away.
    private mutating func forgetTheWire() {
        echoes.removeAll()
        exchange = nil
        writing = nil
        unansweredSince = nil
        told = nil
        door = Reading()
        light = Reading()
        locked = Reading()
        obstructed = Reading()
        lightButton.pressedAt = nil
        lockButton.pressedAt = nil
        doorReleaseAt = nil
        flashReleases = 0
    }

    // MARK: Inside: the door

    /// After anything changed: the sequence's next step, then the status the door is told.
    private mutating func reconsider(at now: Instant, _ events: inout [OpenerEvent]) {
        advance(at: now, &events)
        tellStatus(&events)
    }

    /// Why the permit may not toggle from `state` now, nil when it may: a toggle that may send
    /// the door down needs a warned permit and a clear beam.
    private func mayToggle(_ permit: PressPermit, from state: OpenerDoorState) -> String? {
        guard SecPlus1Toggle.mayGoDown(from: state) else { return nil }
        if !permit.warned {
            return "a toggle from \(state) may send the door down, and this \(permit.action.rawValue) was not warned (it was decided with the door closed): garaged presses nothing that could close the door unwarned"
        }
        if obstructed.confirmed != false || obstructed.last == true {
            return "a toggle from \(state) may send the door down, and \(PressRefusal.beamBroken) (or the opener has not said it is clear)"
        }
        return nil
    }

    /// The sequence's next step from the opener's confirmed state: done, the next toggle, or
    /// the end (the door went elsewhere, a deadline passed, a toggle would be unsafe).
    private mutating func advance(at now: Instant, _ events: inout [OpenerEvent]) {
        guard var s = sequence else { return }
        let from: OpenerDoorState
        switch s.step {
        case .pressed:
            return
        case .decide:
            guard let state = door.confirmed else { return end(s, why: "the opener's state is no longer known", at: now, &events) }
            from = state
        case .toWrite(let by, let was):
            guard let state = door.confirmed else { return end(s, why: "the opener's state is no longer known", at: now, &events) }
            if state == was {
                if let why = mayToggle(s.permit, from: state) { return end(s, why: why, at: now, &events) }
                if now >= by {
                    let why = s.toggles == 0 ? "the line gave no gap before the request's deadline: the press was not sent"
                        : "the next toggle could not be written within \(timing.stepWithin.secondsRoundedUp) s"
                    return end(s, why: why, at: now, &events)
                }
                return
            }
            from = state
        case .awaiting(let until, let was):
            guard let state = door.confirmed, state != was else {
                if now >= until {
                    end(s, why: "the opener did not report the toggle's effect within \(timing.confirmWithin.secondsRoundedUp) s", at: now, &events)
                }
                return
            }
            guard SecPlus1Toggle.outcomes(from: was).contains(state) else {
                return end(s, why: "the door went \(state) after a toggle from \(was): someone else moved it, or this opener toggles another way; garaged presses no more", at: now, &events)
            }
            from = state
        }
        switch SecPlus1Toggle.needsToggle(s.permit.action, at: from) {
        case false?:
            end(s, why: nil, at: now, &events)
        case nil:
            end(s, why: "the opener's state is not known", at: now, &events)
        case true?:
            if s.toggles >= timing.maxToggles {
                return end(s, why: "\(timing.maxToggles) toggles did not bring the door where the \(s.permit.action.rawValue) asked", at: now, &events)
            }
            if let why = mayToggle(s.permit, from: from) { return end(s, why: why, at: now, &events) }
            s.step = .toWrite(by: s.toggles == 0 ? s.deadline : now + timing.stepWithin, from: from)
            sequence = s
        }
    }

    /// Ends a sequence: with no toggle written the door is told nothing moved because of it
    /// (`pressNotSent`); otherwise, after the state it ended at, that the press is over. `why`
    /// nil: it reached what it asked.
    private mutating func end(_ s: Sequence, why: String?, at now: Instant, _ events: inout [OpenerEvent]) {
        sequence = nil
        tellStateAgain = true
        if case .pressed(let at, _) = s.step { doorReleaseAt = at + timing.buttonHeld }
        guard s.toggles > 0 else {
            let why = why ?? "the door is \(door.confirmed?.description ?? "elsewhere") already: nothing was pressed"
            events.append(.note(.init(.error, "press-not-sent", [("reason", s.permit.reason.rawValue), ("device", device), ("why", why)])))
            events.append(.pressNotSent(s.permit, why: why))
            return
        }
        if why == nil {
            events.append(.note(.init(.info, "opener-toggles-done", [
                ("reason", s.permit.reason.rawValue), ("toggles", String(s.toggles)), ("door", door.confirmed?.description ?? "unknown")])))
        }
        if let why {
            events.append(.note(.init(.warning, "opener-toggles-stopped", [
                ("reason", s.permit.reason.rawValue), ("toggles", String(s.toggles)), ("door", door.confirmed?.description ?? "unknown"), ("why", why)])))
        }
        overAfterStatus = s.permit
    }

    /// Tells the door the opener's status when any part of it changed, once all four are known.
    /// While a sequence runs, its intermediate states are held back (sent as `unknown`, which
    /// moves nothing): the door took the press as one movement toward its end, and an open from
    /// STOPPED that goes down first is not "someone else closing it". The light reads as where
    /// the warning's flashing will leave it.
    private mutating func tellStatus(_ events: inout [OpenerEvent]) {
        defer {
            if let p = overAfterStatus {
                overAfterStatus = nil
                events.append(.pressOver(p))
            }
        }
        guard toldAnswering == true, let state = door.confirmed, let eye = obstructed.confirmed,
              let lightNow = flashing?.restore ?? light.confirmed, let lock = locked.confirmed else { return }
        if sequence != nil {
            guard let t = told, (t.obstructed, t.light, t.locked) != (eye, lightNow, lock) else { return }
            told = (t.state, eye, lightNow, lock)
            events.append(.status(.unknown, obstructed: eye, light: lightNow, locked: lock))
            return
        }
        if let t = told, !tellStateAgain, (t.state, t.obstructed, t.light, t.locked) == (state, eye, lightNow, lock) { return }
        tellStateAgain = false
        told = (state, eye, lightNow, lock)
        events.append(.status(state, obstructed: eye, light: lightNow, locked: lock))
    }

    /// Garbage on the wire (anyone on it can make it): said once a minute (`WireNoise`).
    private mutating func garbage(_ event: String, _ fields: [(String, String)], at now: Instant, _ events: inout [OpenerEvent]) {
        events += garbageNoise.heard(.init(.warning, event, [("device", device)] + fields), at: now).map(OpenerEvent.note)
    }

    /// Says how much garbage followed the first of the minute, once it is over.
    private mutating func summarise(at now: Instant, _ events: inout [OpenerEvent]) {
        events += garbageNoise.summarise(at: now).map(OpenerEvent.note)
    }
}

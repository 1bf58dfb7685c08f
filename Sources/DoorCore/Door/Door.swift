/// The book's `loop`: the door as a state machine over an injected clock. It decides when the
/// button is pressed (the caller performs the press on the relay), when the warning output and
/// the light go on and off, and what the door is doing.
///
/// With limit switches (`DoorSensing`) the position is what they say, debounced; with one
/// switch the far end is inferred from the travel time; without, the position is what the
/// daemon's own presses imply (the book's design). Every press, asked for or automatic, is
/// decided by one gate (`Door+Gate.swift`) whose rules are the door's invariants: no press
/// toward where the door is, none while the sensors contradict each other or the relay still
/// presses, none for a late request, no automatic one after a failed close, none that may close
/// the door while the photo-eye's beam is broken, and none from anywhere but CLOSED without the
/// whole warning first when a warning output is wired. It
/// never presses at start: a door found open is reported, not closed.
/// Requests are in `Door+Requests.swift`, the switches in `Door+Sensors.swift`, the timers in
/// `Door+Timers.swift`, the warning in `Door+Warning.swift`.
public struct Door: Sendable, Equatable {
    /// Why a press happened, for the log and the relay.
    public enum Press: String, Sendable {
        case open, close, autoClose = "auto-close"
        /// A press while the door moves, to stop it (Home Assistant's STOP).
        case stop
    }

    /// What the door decided or saw, in order, for the caller to carry out and report.
    public enum Event: Equatable, Sendable {
        /// Press the button now: the permit is what the relay takes.
        case press(PressPermit)
        /// The door's position changed; `bySomeoneElse` when no press of garaged's explains
        /// it (the wall button, the opener's remote, a hand), and `who` when an opener's wire
        /// says which ("the wall button", "a remote or keypad").
        case moved(DoorPosition, bySomeoneElse: Bool, who: String? = nil)
        /// The warning output (light or buzzer) goes on or off. When it goes on, the caller
        /// says when it really did (`warningShown`) or that it could not (`warningFailed`).
        case warning(on: Bool)
        /// A press waits for the warning to run its whole time.
        case pressWarned(Press)
        /// A press that waited for its warning was called off, and why.
        case pressCancelled(Press, String)
        /// The light goes on or off.
        case light(on: Bool)
        case fault(DoorFault)
        /// The door has been open this long (repeated each time as long passes again).
        case leftOpen(Duration)
        /// A hold ran out (auto-close counts again from now).
        case holdEnded
        /// The opener is to lock (true) or unlock its remotes and keypads.
        case remotesLock(Bool)
    }

    /// The answer to a request, and what it set going.
    public struct Decision: Equatable, Sendable {
        public var reply: Reply
        public var events: [Event]
        /// Why the press the request asked for was not made, when it was not: the gate's
        /// refusal, or the door already where (or on its way where) it asks.
        public var refusal: PressRefusal?
        /// Why a request that presses nothing (the light) was refused or had nothing to do.
        public var because: String?

        public init(reply: Reply, events: [Event], refusal: PressRefusal? = nil, because: String? = nil) {
            self.reply = reply
            self.events = events
            self.refusal = refusal
            self.because = because
        }

        /// In words, for whoever asked and the log: why the request was refused or did
        /// nothing; nil when it did what it asked.
        public var words: String? { because ?? refusal?.words }

        /// The press among the events, if the request caused one at once.
        public var press: Press? { events.presses.first?.reason }
    }

    /// After a press: where it should bring the door, by when, and whether the door has left
    /// the end it was at.
    struct Expectation: Equatable, Sendable {
        var target: DoorPosition
        var by: Instant
        var reason: Press
        var left = false
        /// The opener has said the door moves toward `target` (its travel counts from then).
        var openerSaw = false
    }

    /// A press waiting for the warning: due a whole warning after the output was confirmed on
    /// (nil until then).
    struct PendingPress: Equatable, Sendable {
        var reason: Press
        var automatic: Bool
        var due: Instant?
    }

    /// A lock or unlock of the opener's remotes asked, not yet confirmed.
    struct RemotesAsk: Equatable, Sendable {
        var locked: Bool
        var at: Instant
    }

    public let timing: DoorTiming
    public let sensing: DoorSensing
    /// What the door has (its light, its opener's parts, its photo-eye, its warning), from
    /// `timing` and `sensing`: every part's request and report asks this, never the settings.
    public let capabilities: DoorCapabilities
    /// Which door this is (0 the first): every permit it issues names it, and a door's relay
    /// presses no other door's permit.
    public let index: Int
    /// False limits auto-close to openings garaged made itself (a door opened by its remote or
    /// by hand then stays open until someone closes it).
    public let autoCloseAnyOpening: Bool
    public internal(set) var position: DoorPosition {
        didSet { if let end = position.heading { heading = end } }
    }
    /// Where the door was last going or last was: `.open` or `.closed`. A STOPPED door keeps
    /// it, so HomeKit's target of a stopped door is where it was headed (and OPEN at first).
    public internal(set) var heading: DoorPosition = .open
    public internal(set) var fault: DoorFault?
    /// True from a press until the relay reports it released: no other press is decided
    /// meanwhile, so the door model and the relay never disagree about what was pressed.
    public internal(set) var pressing = false
    /// The closing interval in force (`auto-close-s`, or the app's `C=`); nil: off.
    public internal(set) var autoCloseInterval: Duration?
    public internal(set) var warningOn = false
    public internal(set) var lightOn = false
    /// A close did not reach CLOSED: no automatic press until the door is seen closed. The
    /// caller keeps it beside the table, so it outlives a restart.
    public internal(set) var closeFailed = false

    var switches = DoorSwitches()
    /// A door whose opener reports it (`DoorSensing.opener`): true while the opener answers.
    public internal(set) var openerAnswering = false
    /// When the opener's wire last carried a wall button's press that was not garaged's: a move
    /// no press of garaged's explains soon after was that button's.
    var wallButtonAt: Instant?
    /// Who is moving the door when garaged did not (the wall button, a remote), from when it
    /// left an end until it arrives or stops.
    var movedBy: String?
    /// Why the door's opener is off for good until garaged restarts (its kept codes are
    /// damaged): every press is refused saying so; nil while it is on.
    public internal(set) var openerOff: String?
    /// An `auto` door's opener: what it was found to be, or that its wire is still searched
    /// (every press refused saying so); nil for a door whose protocol is set.
    public internal(set) var openerIdentity: OpenerIdentity?
    /// Whether the opener's remotes and keypads are locked out, as it last said; nil until then.
    public internal(set) var remotesLocked: Bool?
    /// The lock garaged last asked of the opener, and when, until its STATUS says so: a repeat
    /// meanwhile changes nothing (`remotesWillBe`).
    var remotesAsked: RemotesAsk?
    /// Its count of openings, as it last said; nil until then.
    public internal(set) var openings: Int?
    /// Its backup battery, as it last said; nil until it said charging or full.
    public internal(set) var battery: OpenerBattery?
    /// Until when its motion sensor reads motion; nil when it saw none.
    public internal(set) var motionUntil: Instant?
    /// A door whose opener reports it: true once the opener said where the door is (its first
    /// such report is where the door was found, as the switches' levels are at start).
    var openerFound = false
    /// A door whose opener reports it: true once the opener said where the door is since it
    /// last went silent (an "it answers" alone says nothing of where the door went meanwhile).
    var openerHeard = false
    var expectation: Expectation?
    /// When a door that is moving counts as arrived (an end inferred from the travel time) or,
    /// at an end a switch senses, as STOPPED.
    var travelEndsAt: Instant?
    var autoCloseAt: Instant?
    var pendingPress: PendingPress?
    /// When the warning output was confirmed on; nil while it is off or not yet confirmed.
    var warningSince: Instant?
    /// When the door decided the warning: a confirmation never counts from before it.
    var warningDecidedAt: Instant?
    var warningOffAt: Instant?
    var holdUntil: Instant?
    var openedByGaraged = false
    var openSince: Instant?
    var nextLeftOpen: Instant?
    var lightManual = false
    var lightOffAt: Instant?
    /// Presses the gate allowed so far: the number of the last permit.
    var permitsIssued: UInt64 = 0

    /// A door in `sensing` mode whose switches read `closed` and `open` at `now` (ignored for
    /// a switch it does not have). `debounce` is how long a limit switch's new level must hold,
    /// and how long the photo-eye's beam must stay clear (its break counts at once). Without switches it is assumed CLOSED, as the book's was.
    /// `closeFailed` is what was kept of a close that failed before a restart: it holds until
    /// the door is seen CLOSED (at once, when it is found closed).
    public init(timing: DoorTiming, sensing: DoorSensing = .none, debounce: Duration = .zero,
                closed: Bool = false, open: Bool = false, obstructed: Bool = false, autoCloseAnyOpening: Bool = true,
                closeFailed: Bool = false, at now: Instant = Instant(nanoseconds: 0), index: Int = 0) {
        self.index = index
        self.timing = timing
        self.sensing = sensing
        capabilities = DoorCapabilities(sensing: sensing, timing: timing)
        self.autoCloseAnyOpening = autoCloseAnyOpening
        autoCloseInterval = timing.autoClose
        // An opener's reports are its own word, already settled: nothing to debounce.
        let debounce = capabilities.position == .opener ? .zero : debounce
        if sensing.closedSwitch { switches[.closed] = Debouncer(period: debounce, initial: closed) }
        if sensing.openSwitch { switches[.open] = Debouncer(period: debounce, initial: open) }
        // A break counts at once: a beam broken often and briefly must not read as clear.
        if sensing.obstructionSwitch { switches[.obstruction] = .photoEye(clearAfter: debounce, initial: obstructed) }
        let c = sensing.closedSwitch && closed, o = sensing.openSwitch && open
        switch (sensing.believed, c, o) {
        case (true, _, _): position = .closed
        case (false, true, true): position = .stopped; fault = .sensors
        case (false, true, false): position = .closed
        case (false, false, true): position = .open
        case (false, false, false): position = .stopped
        }
        if position == .open || position == .stopped && !sensing.believed {
            // Found open (or not closed) at start: report it, never close it unasked.
            openSince = now
            nextLeftOpen = timing.leftOpen.map { now + $0 }
        }
        heading = position.heading ?? .open
        if closeFailed && position != .closed {
            self.closeFailed = true
            if fault == nil { fault = .didNotClose }
        }
    }

    /// The level a switch counts as, nil for a switch the door does not have.
    public func isActive(_ which: DoorSwitch) -> Bool? { switches[which]?.stable }

    /// When the door closes by itself (the warned close, or auto-close and its warning), nil
    /// when nothing will close it.
    public func closesAt(at now: Instant) -> Instant? {
        if let p = pendingPress, p.reason == .close || p.reason == .autoClose {
            return p.due ?? (warningDecidedAt ?? now) + (timing.warning ?? .zero)
        }
        guard let interval = autoCloseInterval, holdUntil == nil, !closeFailed else { return nil }
        let warning = timing.warning ?? .zero
        switch position {
        case .open:
            return autoCloseAt.map { $0 + warning }
        case .opening where expectation?.target == .open && (sensing.believed || travelEndsAt != nil):
            return travelEndsAt.map { $0 + interval + warning }
        default:
            return nil
        }
    }

    /// Whole seconds until the door closes by itself, for `S`; nil when nothing is pending.
    public func closesIn(at now: Instant) -> Int? { closesAt(at: now).map { max(0, ($0 - now).secondsRoundedUp) } }


    /// The next instant at which `advance` has something to do, for the caller's timer (a
    /// close waiting for the relay is woken by `pressEnded`, not by the timer).
    public var nextDeadline: Instant? {
        // Asked every turn of the daemon's loop: the earliest of a few optionals, with nothing
        // allocated.
        var earliest: Instant?
        func consider(_ t: Instant?) {
            if let t, earliest.map({ t < $0 }) ?? true { earliest = t }
        }
        consider(switches.closed?.deadline)
        consider(switches.open?.deadline)
        consider(switches.obstruction?.deadline)
        consider(travelEndsAt)
        consider(expectation?.by)
        consider(warningOffAt)
        consider(holdUntil)
        consider(nextLeftOpen)
        if !lightManual { consider(lightOffAt) }
        consider(motionUntil)
        if !pressing {
            consider(pendingPress?.due)
            if autoCloseArmed { consider(autoCloseAt) }
        }
        return earliest
    }

    /// True when auto-close would fire at `autoCloseAt`.
    var autoCloseArmed: Bool {
        position == .open && autoCloseAt != nil && holdUntil == nil && !closeFailed && pendingPress == nil
    }
}

extension Array where Element == Door.Event {
    /// The permits of the presses among these events, in order.
    public var presses: [PressPermit] { compactMap { if case .press(let p) = $0 { return p } else { return nil } } }
}

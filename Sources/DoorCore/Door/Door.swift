/// The book's `loop`: the door as a state machine over an injected clock. It decides when the
/// button is pressed (the caller performs the press on the relay), when the warning output and
/// the light go on and off, and what the door is doing.
///
/// With limit switches (`DoorSensing`) the position is what they say, debounced; with one
/// switch the far end is inferred from the travel time; without, the position is what the
/// daemon's own presses imply (the book's design). In every mode:
/// - it never presses toward the end the door is at or going to (`O=1` on an open door, `O=0`
///   on a closed one), and decides no press while the relay is still pressing;
/// - it never presses on its own except to close an OPEN door automatically, after the
///   warning when a warning output is wired (any request or movement during the warning
///   cancels it), never while held open, and not again after a close that failed;
/// - it never presses at start: a door found open at start is reported, not closed.
/// Requests are in `Door+Requests.swift`, the switches in `Door+Sensors.swift`, the timers in
/// `Door+Timers.swift`.
public struct Door: Sendable {
    /// Why a press happened, for the log and the relay.
    public enum Press: String, Sendable {
        case open, close, autoClose = "auto-close"
        /// A press while the door moves, to stop it (Home Assistant's STOP).
        case stop
    }

    /// What the door decided or saw, in order, for the caller to carry out and report.
    public enum Event: Equatable, Sendable {
        /// Press the button now.
        case press(Press)
        /// The door's position changed; `bySomeoneElse` when no press of garaged's explains
        /// it (the wall button, the opener's remote, a hand).
        case moved(DoorPosition, bySomeoneElse: Bool)
        /// The warning output (light or buzzer) goes on or off.
        case warning(on: Bool)
        /// The light goes on or off.
        case light(on: Bool)
        case fault(DoorFault)
        /// The door has been open this long (repeated each time as long passes again).
        case leftOpen(Duration)
        /// A warned close was called off before its press, and why.
        case closeCancelled(String)
        /// A hold ran out (auto-close counts again from now).
        case holdEnded
    }

    /// The answer to a request, and what it set going.
    public struct Decision: Equatable, Sendable {
        public var reply: Reply
        public var events: [Event]

        /// The press among the events, if the request caused one at once.
        public var press: Press? {
            events.lazy.compactMap { if case .press(let p) = $0 { return p } else { return nil } }.first
        }
    }

    /// After a press: where it should bring the door, by when, and whether the door has left
    /// the end it was at.
    struct Expectation: Equatable, Sendable {
        var target: DoorPosition
        var by: Instant
        var reason: Press
        var left = false
    }

    public let timing: DoorTiming
    public let sensing: DoorSensing
    /// False limits auto-close to openings garaged made itself (a door opened by its remote or
    /// by hand then stays open until someone closes it).
    public let autoCloseAnyOpening: Bool
    public internal(set) var position: DoorPosition
    public internal(set) var fault: DoorFault?
    /// True from a press until the relay reports it released: no other press is decided
    /// meanwhile, so the door model and the relay never disagree about what was pressed.
    public internal(set) var pressing = false
    /// The closing interval in force (`auto-close-s`, or the app's `C=`); nil: off.
    public internal(set) var autoCloseInterval: Duration?
    public internal(set) var warningOn = false
    public internal(set) var lightOn = false

    var switches: [DoorSwitch: Debouncer] = [:]
    var expectation: Expectation?
    /// When a door that is moving counts as arrived (an end inferred from the travel time) or,
    /// at an end a switch senses, as STOPPED.
    var travelEndsAt: Instant?
    var autoCloseAt: Instant?
    /// Set when a close did not reach CLOSED; auto-close waits until the door is seen closed.
    var autoCloseBlocked = false
    /// A close waiting for its warning to run: the press is due at `at`.
    var pendingClose: (reason: Press, at: Instant)?
    var warningOffAt: Instant?
    var holdUntil: Instant?
    var openedByGaraged = false
    var openSince: Instant?
    var nextLeftOpen: Instant?
    var lightManual = false
    var lightOffAt: Instant?

    /// A door in `sensing` mode whose switches read `closed` and `open` at `now` (ignored for
    /// a switch it does not have). Without switches it is assumed CLOSED, as the book's was.
    public init(timing: DoorTiming, sensing: DoorSensing = .none, debounce: Duration = .zero,
                closed: Bool = false, open: Bool = false, autoCloseAnyOpening: Bool = true,
                at now: Instant = Instant(nanoseconds: 0)) {
        self.timing = timing
        self.sensing = sensing
        self.autoCloseAnyOpening = autoCloseAnyOpening
        autoCloseInterval = timing.autoClose
        if sensing.closedSwitch { switches[.closed] = Debouncer(period: debounce, initial: closed) }
        if sensing.openSwitch { switches[.open] = Debouncer(period: debounce, initial: open) }
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
    }

    /// The level a switch counts as, nil for a switch the door does not have.
    public func isActive(_ which: DoorSwitch) -> Bool? { switches[which]?.stable }

    /// Whole seconds until the door closes by itself (the warned press, or auto-close and its
    /// warning), for `S` and status; nil when nothing is pending.
    public func closesIn(at now: Instant) -> Int? {
        if let p = pendingClose { return max(0, (p.at - now).secondsRoundedUp) }
        guard let interval = autoCloseInterval, holdUntil == nil, !autoCloseBlocked else { return nil }
        let warning = timing.warning ?? .zero
        switch position {
        case .open:
            return autoCloseAt.map { max(0, (($0 - now) + warning).secondsRoundedUp) }
        case .opening where expectation?.target == .open && (sensing.believed || travelEndsAt != nil):
            return travelEndsAt.map { (($0 - now) + interval + warning).secondsRoundedUp }
        default:
            return nil
        }
    }

    /// Seconds the hold still lasts, nil when none.
    public func holdLeft(at now: Instant) -> Int? { holdUntil.map { max(0, ($0 - now).secondsRoundedUp) } }

    /// Seconds the door has been open (or not closed), nil when closed.
    public func openFor(at now: Instant) -> Int? { openSince.map { max(0, (now - $0).nanoseconds / 1_000_000_000) }.map(Int.init) }

    /// The next instant at which `advance` has something to do, for the caller's timer (a
    /// close waiting for the relay is woken by `relayReleased`, not by the timer).
    public var nextDeadline: Instant? {
        var deadlines = switches.values.compactMap(\.deadline)
        deadlines += [travelEndsAt, expectation?.by, warningOffAt, holdUntil, nextLeftOpen,
                      lightManual ? nil : lightOffAt].compactMap { $0 }
        if !pressing {
            deadlines += [pendingClose?.at, autoCloseArmed ? autoCloseAt : nil].compactMap { $0 }
        }
        return deadlines.min()
    }

    /// True when auto-close would fire at `autoCloseAt`.
    var autoCloseArmed: Bool {
        position == .open && autoCloseAt != nil && holdUntil == nil && !autoCloseBlocked && pendingClose == nil
    }
}

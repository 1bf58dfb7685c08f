/// The one gate every press passes: a request from any channel (the socket, Bluetooth, MQTT,
/// and whatever comes next), a warned press falling due, an auto-close. It decides with the
/// rules of a one-button opener, where any press from anywhere but CLOSED may close the door
/// (a stopped door goes the other way, some openers reverse while opening), so the rules are
/// the door's invariants (docs/threat-model.md):
///
/// 1. no press while the last one is still pressing;
/// 2. no press for a request older than `Door.maxRequestAge`;
/// 3. no press while the switches contradict each other (both ends at once);
/// 4. no press toward the end the door is at, sensed or believed; a STOP only while it moves,
///    an open or close only while it rests;
/// 5. no automatic press after a close that failed, until the door is seen closed (the fault
///    outlives a restart);
/// 6. no press that may close the door while the photo-eye's beam is broken, where one is
///    wired (`mayClose`): a close or auto-close, an open of a door anywhere but CLOSED (a
///    STOPPED door goes the other way) and a STOP of an OPENING door (some openers reverse).
///    An open from CLOSED can only open the door. A STOP of a CLOSING door stays allowed:
///    stopping a closing door is what a broken beam asks for, and refusing it would leave a
///    door that really closes onto what breaks the beam (an opener that does not reverse for
///    it, a photo-eye of garaged's own) unstoppable from here. (Where the opener has already
///    reversed the door for its own eye, the press finds it rising: most openers stop.)
/// 6b. no press of a door whose opener speaks on its own wire while that opener is silent
///    (before it first answered, or once it stopped), nor until it has said where the door is
///    (since it last went silent): its state is not known;
/// 7. with a warning output, no press from anywhere but CLOSED unless the warning has been on,
///    as the daemon confirmed it, for the whole warning time.
///
/// Only this file can make a `PressPermit`, and `startPress` and the relay take nothing else,
/// so a press cannot be decided around it.
extension Door {
    /// What the gate says of a press: make it (with its permit), warn first, or not at all.
    public enum Verdict: Equatable, Sendable {
        case press(PressPermit)
        case warnFirst
        case refuse(PressRefusal)
    }

    /// The longest a request may wait between arriving and being judged: a stalled loop, a slow
    /// SD card or a stopped process must never move the door late, when whoever asked has given
    /// up (`garage-pins` waits 5 s) and would not expect it to move.
    public static let maxRequestAge: Duration = .seconds(2)

    /// True for a request that waited longer than `maxRequestAge` (nil: no request, a timer).
    public static func isStale(_ age: Duration?) -> Bool { age.map { $0 > maxRequestAge } ?? false }

    /// Decides a press of `reason` now. `automatic` for presses nobody asked for at that moment
    /// (auto-close); `age` is how long the request behind it waited (nil for a timer). A press
    /// it allows is counted, and its permit is what `startPress` and the relay take.
    mutating func gate(_ reason: Press, automatic: Bool, age: Duration?, at now: Instant) -> Verdict {
        if let refusal = refusal(reason, automatic: automatic, age: age) { return .refuse(refusal) }
        if needsWarning(at: now) { return .warnFirst }
        permitsIssued += 1
        // Rule 7 held: with a wired warning, a press from anywhere but CLOSED had all of it.
        return .press(PressPermit(reason: reason, number: permitsIssued, door: index, warned: timing.warning != nil && position != .closed))
    }

    /// Rules 1 to 6: why no press of `reason` may be made now, nil when one may.
    func refusal(_ reason: Press, automatic: Bool, age: Duration?) -> PressRefusal? {
        if pressing { return .stillPressing }
        if Door.isStale(age) { return .stale }
        if let why = openerOff { return .openerOff(why) }
        if let search = openerIdentity, search.kind == nil { return .openerSearching(search) }
        if let opener = sensing.opener, !openerReady { return .openerSilent(opener) }
        let closedSensed = isActive(.closed) == true, openSensed = isActive(.open) == true
        if closedSensed && openSensed { return .sensorsContradict }
        switch reason {
        case .stop:
            if closedSensed || openSensed || !(position == .opening || position == .closing) { return .notMoving }
        case .open:
            if openSensed || position == .open { return .alreadyThere(.open) }
            if position == .opening || position == .closing { return .moving }
        case .close, .autoClose:
            if closedSensed || position == .closed { return .alreadyThere(.closed) }
            if position == .opening || position == .closing { return .moving }
        }
        if isActive(.obstruction) == true && mayClose(reason) { return .obstructed }
        if automatic && closeFailed { return .closeFailed }
        return nil
    }

    /// Rule 6's judgement: true when a press of `reason` now may close the door on a
    /// one-button opener. Every press may, but an open from CLOSED (it can only open) and a
    /// STOP of a CLOSING door (it stops it, or sends it back up).
    func mayClose(_ reason: Press) -> Bool {
        switch reason {
        case .close, .autoClose: return true
        case .open: return position != .closed
        case .stop: return position != .closing
        }
    }

    /// Rule 7: true while a press would need the warning first (a wired warning, a door not
    /// CLOSED, and the warning not yet on, as confirmed, for its whole time).
    func needsWarning(at now: Instant) -> Bool {
        guard let warning = timing.warning, position != .closed else { return false }
        guard warningOn, let since = warningSince else { return true }
        return now < since + warning
    }
}

/// The only thing that presses the button: issued by the door's gate for one press, numbered
/// so the relay can refuse one it has already carried out (a replay).
public struct PressPermit: Equatable, Sendable {
    public let reason: Door.Press
    /// What the door is to do: a relay's pulse does any of them; an opener's wire sends the
    /// explicit command. Never a toggle: the gate decided this one action.
    public var action: DoorAction {
        switch reason {
        case .open: return .open
        case .close, .autoClose: return .close
        case .stop: return .stop
        }
    }
    /// 1 for the first press this door decided, then counting up.
    public let number: UInt64
    /// The door that decided it (`Door.index`): only that door's relay may press it.
    public let door: Int
    /// Whether the whole warning ran before it (a wired warning, and the door anywhere but
    /// CLOSED when it was decided). A drive that moves the door by toggles (Security+ 1.0's one
    /// button) sends a toggle that may take the door down only for a permit that was warned: an
    /// open decided at CLOSED was not, and may only ever toggle the door up.
    public let warned: Bool

    fileprivate init(reason: Door.Press, number: UInt64, door: Int, warned: Bool) {
        self.reason = reason
        self.number = number
        self.door = door
        self.warned = warned
    }
}

/// What a permitted press asks of the door's drive.
public enum DoorAction: String, Sendable, CaseIterable {
    case open, close, stop
}

/// Why a press was not made: the gate's refusal (rules 1 to 6b), or a request's own rule
/// (`Door.request`, `Door.stop`: the door is already where, or on its way where, it asks).
/// What the request is answered, and in words for the log and for whoever asked.
public enum PressRefusal: Equatable, Sendable {
    /// The door's drive (its relay, or its opener's wire) is still carrying out the last press.
    case stillPressing
    case stale
    case sensorsContradict
    /// The door is at that end already (sensed, inferred or believed).
    case alreadyThere(DoorPosition)
    /// The door is already on its way to that end (`.open` or `.closed`), or was just pressed
    /// toward it.
    case alreadyGoing(DoorPosition)
    /// A press of that kind already waits for the warning.
    case alreadyWaiting(Door.Press)
    /// An open or close while the door moves.
    case moving
    /// An open or close while the door moves (`.opening` or `.closing`) the other way.
    case movingTheOtherWay(DoorPosition)
    /// An open or close while garaged's press toward the other end (`.open` or `.closed`) has
    /// not brought the door there yet.
    case pressedTheOtherWay(DoorPosition)
    /// A close while a STOP waits for the warning.
    case stopWaiting
    /// A STOP for a door at rest.
    case notMoving
    /// An automatic press after a close that failed, before the door was seen closed.
    case closeFailed
    /// A press that may close the door (a close, an open of a door not CLOSED, a STOP of an
    /// opening door) while the photo-eye's beam is broken.
    case obstructed
    /// Any press of a door whose opener (named) has not answered, or stopped answering.
    case openerSilent(String)
    /// Any press of a door whose opener garaged cannot speak to safely (why, and what to do).
    case openerOff(String)
    /// Any press of an `auto` door whose wire is still searched (what is tried, on which device).
    case openerSearching(OpenerIdentity)

    /// The answer to a request refused this way: a request for where the door already is or
    /// is going (or, for a STOP, a door already at rest) is a harmless OK; the rest are errors.
    public var reply: Reply {
        switch self {
        case .stillPressing, .moving, .movingTheOtherWay, .pressedTheOtherWay, .stopWaiting: return .error(.busy)
        case .stale: return .error(.stale)
        case .sensorsContradict, .closeFailed, .openerSilent, .openerOff, .openerSearching: return .error(.fault)
        case .obstructed: return .error(.obstructed)
        case .alreadyThere, .alreadyGoing, .alreadyWaiting, .notMoving: return .ok
        }
    }

    /// The cause alone, short: what a press called off records (`close called off: ...`).
    public var why: String {
        switch self {
        case .stillPressing: return "the relay is still pressing"
        case .stale: return "it came more than \(Door.maxRequestAge.secondsRoundedUp) s late (garaged was held up)"
        case .sensorsContradict: return "both position switches report their end at once"
        case .alreadyThere(let p): return "the door is \(p.rawValue) already"
        case .alreadyGoing(let end): return "the door is \(end == .open ? "opening" : "closing") already"
        case .alreadyWaiting(let press): return "\(PressRefusal.aPress(press)) already waits for the warning"
        case .moving: return "the door is moving"
        case .movingTheOtherWay(let p): return "the door is \(p == .opening ? "opening" : "closing")"
        case .pressedTheOtherWay(let end): return "garaged pressed to \(end == .open ? "open" : "close") the door and it has not got there yet"
        case .stopWaiting: return "a stop waits for the warning"
        case .notMoving: return "the door is not moving"
        case .obstructed: return PressRefusal.beamBroken
        case .closeFailed: return "the last close did not reach CLOSED; no automatic close until the door is seen closed"
        case .openerSilent(let opener): return "\(opener) does not answer"
        case .openerOff(let why): return "the opener is off: \(why)"
        case .openerSearching(let search): return "garaged is still searching for the wire of the opener on \(search.device) (\(search.how))"
        }
    }

    /// What whoever asked is told, and the log's `why`: for a harmless OK what was (not) done
    /// ("already closed: nothing pressed"); for a refusal its cause and what to do about it.
    public var words: String {
        switch self {
        case .alreadyThere(let p): return "already \(p == .open ? "open" : p == .closed ? "closed" : p.rawValue): nothing pressed"
        case .alreadyGoing(let end): return "already \(end == .open ? "opening" : "closing"): nothing pressed"
        case .alreadyWaiting: return why + ": nothing more pressed"
        case .notMoving: return why + ": nothing pressed"
        case .stillPressing: return why + "; ask again in a moment"
        case .stale: return why + ", so it was not performed; send it again"
        case .sensorsContradict:
            return why + ", so garaged presses nothing until they agree; check their wiring (garage-pins status shows what each reads)"
        case .moving, .movingTheOtherWay, .pressedTheOtherWay: return why + "; wait until it stops, then ask again"
        case .stopWaiting: return why + "; ask again once it is pressed"
        case .obstructed: return why + ", so garaged presses nothing that could close the door; clear the doorway and try again"
        case .closeFailed: return why
        case .openerSilent: return why + ", so garaged presses nothing; " + PressRefusal.openerChecks
        case .openerOff: return why
        case .openerSearching: return why + ", so garaged presses nothing and keeps nothing for later; it takes requests once the opener answers (docs/openers.md, auto)"
        }
    }

    /// What to check when an opener does not answer (`openerSilent`, and a light it cannot switch).
    static let openerChecks = "check its wiring to the Pi, the level circuit and the opener's power "
        + "(garaged asks again by itself, and takes requests once the opener says where the door is)"

    /// The photo-eye's refusal, as a press called off for it records it.
    static let beamBroken = "something breaks the photo-eye's beam across the doorway"

    /// "a close", "an open", "a stop".
    private static func aPress(_ press: Door.Press) -> String {
        switch press {
        case .open: return "an open"
        case .close, .autoClose: return "a close"
        case .stop: return "a stop"
        }
    }
}

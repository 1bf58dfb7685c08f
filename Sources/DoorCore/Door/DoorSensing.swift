/// Which limit switches the door has: none (the daemon believes), one, or both; and whether
/// the opener's photo-eye is wired as an obstruction input.
public struct DoorSensing: Equatable, Sendable {
    public var closedSwitch: Bool
    public var openSwitch: Bool
    /// The photo-eye's output is read (`--sensor-obstruction`): no press that may close the door
    /// starts while its beam is broken (the gate's rule 6).
    public var obstructionSwitch: Bool
    /// The opener reports where the door is, and its own photo-eyes (Security+ 2.0's STATUS, 1.0's answers):
    /// what it is, for refusals ("the Security+ 2.0 opener on /dev/ttyAMA0"); nil without one.
    /// Its reports drive the door's switches as if both ends and a photo-eye were wired.
    public var opener: String?
    /// The opener's kind (what it has: `DoorCapabilities`) and device, for the status record
    /// (`secplus2`, `/dev/ttyAMA0`).
    public var openerKind: OpenerKind?
    public var openerDevice: String?

    public init(closedSwitch: Bool = false, openSwitch: Bool = false, obstructionSwitch: Bool = false) {
        self.closedSwitch = closedSwitch
        self.openSwitch = openSwitch
        self.obstructionSwitch = obstructionSwitch
    }

    /// A door whose opener reports its position and obstruction (`opener` names it).
    public static func reported(by opener: String, kind: OpenerKind = .secPlus2, device: String? = nil) -> DoorSensing {
        var s = DoorSensing(closedSwitch: true, openSwitch: true, obstructionSwitch: kind.has(.obstruction))
        s.opener = opener
        s.openerKind = kind
        s.openerDevice = device
        return s
    }

    public static let none = DoorSensing()

    /// True without any switch: positions are what the daemon's own presses imply.
    public var believed: Bool { !closedSwitch && !openSwitch }

    /// How the status and the start-up log describe it.
    public var description: String {
        if let opener { return "reported by \(opener)" }
        let eye = obstructionSwitch ? "; a photo-eye" : ""
        switch (closedSwitch, openSwitch) {
        case (false, false): return "believed (no sensors)" + eye
        case (true, false): return "sensed: closed switch; OPEN inferred from the travel time" + eye
        case (false, true): return "sensed: open switch; CLOSED inferred from the travel time" + eye
        case (true, true): return "sensed: closed and open switches" + eye
        }
    }
}

/// The two limit switches, and the photo-eye's obstruction output.
public enum DoorSwitch: String, Sendable, CaseIterable {
    /// Active when the door is fully closed.
    case closed
    /// Active when the door is fully open.
    case open
    /// Active while the opener's photo-eye beam across the doorway is broken. It says nothing
    /// of where the door is, only that closing it now could hit someone. A break counts at once;
    /// only the clear waits for the debounce (`Debouncer.photoEye`).
    case obstruction
}

/// A door's switches, each where it is wired (nil where it is not): read on every request's
/// path, so held in place rather than in a dictionary that hashes.
struct DoorSwitches: Sendable, Equatable {
    var closed: Debouncer?
    var open: Debouncer?
    var obstruction: Debouncer?

    subscript(which: DoorSwitch) -> Debouncer? {
        get {
            switch which {
            case .closed: return closed
            case .open: return open
            case .obstruction: return obstruction
            }
        }
        set {
            switch which {
            case .closed: closed = newValue
            case .open: open = newValue
            case .obstruction: obstruction = newValue
            }
        }
    }
}

/// Turns a switch's raw edges into a stable level: a new level counts once it has held long
/// enough. A limit switch is debounced both ways (`period`: contacts bounce for a few ms; a reed
/// switch as the door passes, for longer). A photo-eye is not (`photoEye`): a break counts at
/// once and only the clear is debounced, so a beam broken again and again, each time for less
/// than the debounce, reads as broken throughout instead of never.
public struct Debouncer: Sendable, Equatable {
    /// How long a new active level must hold before it counts.
    public let activeAfter: Duration
    /// How long a new inactive level must hold before it counts.
    public let inactiveAfter: Duration
    /// The level that counts.
    public private(set) var stable: Bool
    private var pending: (level: Bool, since: Instant)?

    /// A limit switch's: a new level either way counts once it has held for `period`.
    public init(period: Duration, initial: Bool) {
        self.init(activeAfter: period, inactiveAfter: period, initial: initial)
    }

    public init(activeAfter: Duration, inactiveAfter: Duration, initial: Bool) {
        self.activeAfter = activeAfter
        self.inactiveAfter = inactiveAfter
        stable = initial
    }

    /// A photo-eye's: a broken beam (active) counts at its edge, a clear beam only once it has
    /// stayed clear for `clearAfter`.
    public static func photoEye(clearAfter: Duration, initial: Bool) -> Debouncer {
        Debouncer(activeAfter: .zero, inactiveAfter: clearAfter, initial: initial)
    }

    public static func == (a: Debouncer, b: Debouncer) -> Bool {
        a.activeAfter == b.activeAfter && a.inactiveAfter == b.inactiveAfter && a.stable == b.stable
            && a.pending?.level == b.pending?.level && a.pending?.since == b.pending?.since
    }

    /// A raw edge (or reading) at `now`.
    public mutating func feed(_ level: Bool, at now: Instant) {
        if level == stable {
            pending = nil
        } else if pending?.level != level {
            pending = (level, now)
        }
    }

    /// The new stable level when a pending one has held long enough by `now`, else nil.
    public mutating func settle(at now: Instant) -> Bool? {
        guard let p = pending, now - p.since >= hold(p.level) else { return nil }
        stable = p.level
        pending = nil
        return stable
    }

    /// When `settle` will have something to say.
    public var deadline: Instant? { pending.map { $0.since + hold($0.level) } }

    /// How long `level` must hold before it counts.
    private func hold(_ level: Bool) -> Duration { level ? activeAfter : inactiveAfter }
}

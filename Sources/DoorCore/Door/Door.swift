/// The book's `loop`: the door as a state machine over an injected clock. It decides when
/// the button is pressed; the caller performs the press on the relay. It starts CLOSED and
/// never presses on its own except for auto-close, which only fires from OPEN.
public struct Door: Sendable {
    /// Why a press happened, for the log and the relay.
    public enum Press: String, Sendable {
        case open, close, autoClose = "auto-close"
    }

    /// What `advance` observed, in order.
    public enum Event: Equatable, Sendable {
        case arrived(DoorPosition)
        case pressed(Press)
    }

    /// The answer to an open or close request.
    public struct Decision: Equatable, Sendable {
        public var reply: Reply
        public var press: Press?
    }

    public let timing: DoorTiming
    public private(set) var position: DoorPosition = .closed
    /// When the current movement ends (OPENING or CLOSING only).
    public private(set) var movingUntil: Instant?
    /// When auto-close fires (OPEN only, with auto-close on).
    public private(set) var autoCloseAt: Instant?
    /// True from the moment a press is decided until the relay reports it released. The model
    /// never counts on the press having ended on time: while this is set no other press is
    /// decided (a request that needs one is BUSY, auto-close waits), so the door model and the
    /// relay can never disagree about what was pressed.
    public private(set) var pressing = false

    public init(timing: DoorTiming) { self.timing = timing }

    /// `O=1` presses only from CLOSED and `O=0` only from OPEN; a request for the direction
    /// the door already has is a harmless OK, and one against a moving door, or while the
    /// relay is still pressing, is BUSY.
    public mutating func request(open: Bool, at now: Instant) -> Decision {
        _ = advance(to: now)
        switch (open, position) {
        case (true, .closed), (false, .open):
            guard !pressing else { return Decision(reply: .error(.busy), press: nil) }
            startMoving(open ? .opening : .closing, at: now)
            return Decision(reply: .ok, press: open ? .open : .close)
        case (true, .open):
            if let interval = timing.autoClose { autoCloseAt = now + interval }
            return Decision(reply: .ok, press: nil)
        case (true, .opening), (false, .closing), (false, .closed):
            return Decision(reply: .ok, press: nil)
        case (true, .closing), (false, .opening):
            return Decision(reply: .error(.busy), press: nil)
        }
    }

    /// Moves time forward: finishes travel and fires auto-close when due.
    public mutating func advance(to now: Instant) -> [Event] {
        var events: [Event] = []
        if let end = movingUntil, now >= end {
            let arrivedAt = end
            movingUntil = nil
            position = position == .opening ? .open : .closed
            events.append(.arrived(position))
            if position == .open, let interval = timing.autoClose {
                autoCloseAt = arrivedAt + interval
            }
        }
        if position == .open, !pressing, let due = autoCloseAt, now >= due {
            startMoving(.closing, at: now)
            events.append(.pressed(.autoClose))
        }
        return events
    }

    /// The relay finished the press this door decided; the next press may be decided now.
    public mutating func relayReleased() { pressing = false }

    /// The next instant at which `advance` has something to do, for the caller's timer (a
    /// due auto-close waiting for the relay is woken by `relayReleased`, not by the timer).
    public var nextDeadline: Instant? {
        if let end = movingUntil { return end }
        return pressing ? nil : autoCloseAt
    }

    /// Whole seconds until auto-close, for the status reply (nil when none is pending).
    public func autoCloseIn(at now: Instant) -> Int? {
        guard let interval = timing.autoClose else { return nil }
        switch position {
        case .open: return autoCloseAt.map { max(0, ($0 - now).secondsRoundedUp) }
        case .opening: return movingUntil.map { (($0 - now) + interval).secondsRoundedUp }
        case .closed, .closing: return nil
        }
    }

    private mutating func startMoving(_ to: DoorPosition, at now: Instant) {
        pressing = true
        position = to
        movingUntil = now + timing.moving
        autoCloseAt = nil
    }
}

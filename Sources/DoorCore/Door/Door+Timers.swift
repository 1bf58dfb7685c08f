/// Time passing: switch levels settling, travel ending, a press that failed, the warning
/// running out, auto-close, a hold ending, the door left open, the light going off.
extension Door {
    /// Moves time forward to `now` and returns what happened, in order. Nothing happens before
    /// `nextDeadline` (the daemon's loop sleeps until it, so a timer it did not name would
    /// never fire), and a request judged between deadlines, as nearly all are, stops here.
    public mutating func advance(to now: Instant) -> [Event] {
        guard let due = nextDeadline, now >= due else { return [] }
        var events = settleSwitches(at: now)
        if let end = travelEndsAt, now >= end {
            travelEndsAt = nil
            switch position {
            case .opening: events += sensing.openSwitch ? stalled(at: end) : arrive(.open, at: end)
            case .closing: events += sensing.closedSwitch ? stalled(at: end) : arrive(.closed, at: end)
            default: break
            }
        }
        if let e = expectation, now >= e.by {
            expectation = nil
            if position != e.target { events += failed(e) }
        }
        if let p = pendingPress, let due = p.due, now >= due, !pressing {
            pendingPress = nil
            // Late by more than a request may wait (garaged was held up): called off, like a
            // late request. The door may have moved meanwhile, unseen.
            switch gate(p.reason, automatic: p.automatic, age: now - due, at: now) {
            case .press(let permit): events += startPress(permit, at: now)
            case .warnFirst: events += [.pressCancelled(p.reason, "the warning was not shown for its whole time")] + warningOff()
            case .refuse(let refusal): events += [.pressCancelled(p.reason, refusal.why)] + warningOff()
            }
        }
        if warningOn, pendingPress == nil, let off = warningOffAt, now >= off { events += warningOff() }
        if autoCloseArmed, !pressing, let due = autoCloseAt, now >= due {
            autoCloseAt = nil
            switch gate(.autoClose, automatic: true, age: nil, at: now) {
            case .press(let permit): events += startPress(permit, at: now)
            case .warnFirst: events += warnThenPress(.autoClose, automatic: true, at: now)
            // Something stands in the doorway, or the opener does not answer: try again after
            // another closing interval.
            case .refuse(.obstructed), .refuse(.openerSilent): restartAutoClose(at: now)
            case .refuse: break
            }
        }
        if let until = holdUntil, now >= until {
            holdUntil = nil
            events.append(.holdEnded)
            if position == .open { restartAutoClose(at: now) }
        }
        if let next = nextLeftOpen, let since = openSince, let every = timing.leftOpen, now >= next {
            events.append(.leftOpen(now - since))
            var following = next + every
            while following <= now { following = following + every }
            nextLeftOpen = following
        }
        if let until = motionUntil, now >= until { motionUntil = nil }
        if lightOn, !lightManual, let off = lightOffAt, now >= off {
            lightOn = false
            lightOffAt = nil
            events.append(.light(on: false))
        }
        return events
    }

    /// The drive (relay or opener) finished the press this door decided; the next may be decided now (an
    /// auto-close that fell due meanwhile, say).
    public mutating func pressEnded(at now: Instant) -> [Event] {
        pressing = false
        return advance(to: now)
    }

    /// The drive could not put the permit's press on the wire (an opener's line busy past the
    /// request's deadline, its device gone): nothing moved because of it, so the door expects
    /// no movement, and the next press may be decided.
    public mutating func pressNotSent(_ permit: PressPermit, why: String, at now: Instant) -> [Event] {
        pressing = false
        let events: [Event] = [.pressCancelled(permit.reason, why)]
        if let e = expectation, e.reason == permit.reason {
            expectation = nil
            if travelEndsAt != nil, position == .opening || position == .closing {
                travelEndsAt = nil
                enter(.stopped, at: now)
            }
        }
        return events + advance(to: now)
    }
}

/// The limit switches: their debounced levels decide the position, and every change is
/// explained by a press of garaged's or reported as someone else's.
extension Door {
    /// A raw edge (or reading) of a switch, stamped when the kernel saw it. It counts once it
    /// has held for the debounce period (`advance` applies it then; the caller's timer
    /// includes that moment), but for the photo-eye's break, which counts at its stamp. Only the switches are brought up to the stamp: no press is ever
    /// decided at an edge's time, which may be in the past (a loop that stalled reads its
    /// edges late); presses wait for the caller's next `advance` to now, after every edge.
    public mutating func sensor(_ which: DoorSwitch, active: Bool, at stamp: Instant) -> [Event] {
        switches[which]?.feed(active, at: stamp)
        return settleSwitches(at: stamp)
    }

    /// Applies the switch levels that have held long enough by `now`.
    mutating func settleSwitches(at now: Instant) -> [Event] {
        var events: [Event] = []
        for which in DoorSwitch.allCases {
            guard var d = switches[which], d.settle(at: now) != nil else { continue }
            switches[which] = d
            events += which == .obstruction ? obstructionChanged() : switchChanged(which, at: now)
        }
        return events
    }

    /// The photo-eye's beam broke or cleared. A press waiting for its warning that may close
    /// the door (gate rule 6: a close, an open of a STOPPED door, a STOP of an opening one) is
    /// called off the moment the beam breaks (the gate would refuse it when due anyway; this
    /// ends the warning at once). The position is not the photo-eye's to say.
    mutating func obstructionChanged() -> [Event] {
        guard switches[.obstruction]?.stable == true, let p = pendingPress, mayClose(p.reason) else { return [] }
        return cancelPending(PressRefusal.obstructed.why)
    }

    /// A switch's level settled: the door arrived at an end or left one. Any movement calls
    /// off a press whose warning is running (someone else is moving the door).
    mutating func switchChanged(_ which: DoorSwitch, at now: Instant) -> [Event] {
        var events = cancelPending("the door moved")
        let closed = switches[.closed]?.stable == true, open = switches[.open]?.stable == true
        if closed && open {
            if fault != .sensors {
                fault = .sensors
                events.append(.fault(.sensors))
            }
            return events
        }
        if fault == .sensors { fault = nil }
        if closed {
            events += arrive(.closed, at: now)
        } else if open {
            events += arrive(.open, at: now)
        } else {
            events += leave(which == .closed ? .opening : .closing, at: now)
        }
        return events
    }

    /// The door left an end: moving, until it reaches an end, or for the travel time.
    mutating func leave(_ moving: DoorPosition, at now: Instant) -> [Event] {
        let toward: DoorPosition = moving == .opening ? .open : .closed
        let ours = expectation?.target == toward
        if ours, var e = expectation {
            // Counted from when it started to move: openers take a moment to start.
            e.left = true
            e.by = max(e.by, now + timing.moving)
            expectation = e
        }
        if moving == .opening { openedByGaraged = ours }
        autoCloseAt = nil
        travelEndsAt = now + timing.moving
        enter(moving, at: now)
        movedBy = ours ? nil : mover(at: now)
        return [.moved(moving, bySomeoneElse: !ours, who: movedBy)] + lightForMovement(at: now)
    }

    /// The door reached an end (sensed, or inferred when the travel time was up). A press
    /// waiting for its warning is called off, and the warning ends: the door is not closing.
    mutating func arrive(_ end: DoorPosition, at now: Instant) -> [Event] {
        travelEndsAt = nil
        var events: [Event] = []
        let ours = expectation?.target == end
        if ours {
            expectation = nil
        } else if let e = expectation, e.target != end {
            // Pressed toward one end and arrived at the other: the opener reversed.
            expectation = nil
            events += failed(e)
        }
        enter(end, at: now)
        events.insert(.moved(end, bySomeoneElse: !ours, who: ours ? nil : movedBy ?? mover(at: now)), at: 0)
        movedBy = nil
        events += cancelPending("the door reached \(end.rawValue)")
        switch end {
        case .open:
            if ours, fault == .didNotOpen || fault == .didNotMove { fault = nil }
            restartAutoClose(at: now)
        case .closed:
            autoCloseAt = nil
            closeFailed = false
            openedByGaraged = false
            if fault != .sensors { fault = nil }
        default:
            break
        }
        events += warningOff()
        return events
    }

    /// At an end a switch watches, the door did not arrive within the travel time.
    mutating func stalled(at now: Instant) -> [Event] {
        enter(.stopped, at: now)
        autoCloseAt = nil
        // Stopped between the ends: by the wall button if it was just pressed, else by whoever moved it.
        let who = expectation == nil ? (wallButtonAt.map { now - $0 <= Door.wallButtonCounts } ?? false ? mover(at: now) : movedBy ?? mover(at: now)) : nil
        movedBy = nil
        return [.moved(.stopped, bySomeoneElse: expectation == nil, who: who)]
    }

    /// How long after a wall button's press on the opener's wire a move no press explains
    /// counts as that button's.
    static let wallButtonCounts: Duration = .seconds(3)

    /// Who moved the door when garaged did not, where the opener's wire tells: the wall button
    /// if its press was seen just before, otherwise a remote or keypad (nothing on the wire).
    /// Nil without an opener: switches cannot tell a button from a hand.
    /// A wall button's press counts once: for the move it started.
    mutating func mover(at now: Instant) -> String? {
        guard sensing.opener != nil else { return nil }
        defer { wallButtonAt = nil }
        if let at = wallButtonAt, now - at <= Door.wallButtonCounts { return "the wall button" }
        return "a remote or keypad"
    }

    /// A press that did not bring the door where it should: reported, and an automatic close
    /// is not tried again until the door is seen closed.
    mutating func failed(_ e: Expectation) -> [Event] {
        let f: DoorFault = !e.left ? .didNotMove : e.target == .open ? .didNotOpen : .didNotClose
        fault = f
        if e.target == .closed {
            closeFailed = true
            autoCloseAt = nil
        }
        return [.fault(f)] + warningOff()
    }

    /// A fault seen outside the door's own reckoning (the relay overran).
    public mutating func reportFault(_ f: DoorFault) -> [Event] {
        fault = f
        return [.fault(f)]
    }

    /// Sets the position; leaving CLOSED starts the "open for" count, reaching it ends it.
    mutating func enter(_ p: DoorPosition, at now: Instant) {
        if p == .closed {
            openSince = nil
            nextLeftOpen = nil
        } else if openSince == nil {
            openSince = now
            nextLeftOpen = timing.leftOpen.map { now + $0 }
        }
        position = p
    }
}

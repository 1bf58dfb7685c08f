/// A door whose opener reports where it is on its own wire (Security+ 2.0's STATUS, 1.0's answers): the
/// reports drive the door's switches as if both ends and a photo-eye were wired, so the gate,
/// the faults, the timers and "moved by someone else" work exactly as they do with switches.
extension Door {
    /// The opener said its door is `state`, and whether its photo-eyes see an obstruction.
    /// The end that is no longer true is released before the one that now is, so an opener
    /// seen going straight from one end to the other never reads as both ends at once.
    public mutating func openerReported(_ state: OpenerDoorState, obstructed: Bool, at now: Instant) -> [Event] {
        guard capabilities.position == .opener else { return [] }
        var events = openerAnswered(true)
        if capabilities.obstruction == .opener { events += sensor(.obstruction, active: obstructed, at: now) }
        if state != .unknown { openerHeard = true }
        if !openerFound && state != .unknown {
            openerFound = true
            if state == .open || state == .closed || state == .stopped { return events + found(state, at: now) }
        }
        switch state {
        case .unknown:
            break
        case .closed:
            events += sensor(.open, active: false, at: now)
            events += sensor(.closed, active: true, at: now)
        case .open:
            events += sensor(.closed, active: false, at: now)
            events += sensor(.open, active: true, at: now)
        case .opening, .closing:
            let moving: DoorPosition = state == .opening ? .opening : .closing
            events += sensor(.closed, active: false, at: now)
            events += sensor(.open, active: false, at: now)
            // Left an end: the switches said so. From STOPPED, or turned round mid-way: say it.
            if position != moving { events += leave(moving, at: now) }
            openerSaysMoving(moving, at: now)
        case .stopped:
            events += sensor(.closed, active: false, at: now)
            events += sensor(.open, active: false, at: now)
            if position == .opening || position == .closing {
                let expected = expectation
                events += stalled(at: now)
                travelEndsAt = nil
                if let e = expected {
                    expectation = nil
                    events += failed(e)
                }
            }
        }
        return events
    }

    /// The opener says the door moves the way garaged's press took it: the press's travel counts
    /// from this first word of it, once (from STOPPED no switch said it left, and the press
    /// counted it moving at once).
    /// A one-button opener may need a few toggles, seconds apart, before its door goes the way
    /// asked (Security+ 1.0: an open from STOPPED goes down first), and its travel starts then.
    private mutating func openerSaysMoving(_ moving: DoorPosition, at now: Instant) {
        let toward: DoorPosition = moving == .opening ? .open : .closed
        guard var e = expectation, e.target == toward, !e.openerSaw else { return }
        // (`leave`, just before, re-timed it already when the door was at rest.)
        e.openerSaw = true
        e.by = max(e.by, now + timing.moving)
        expectation = e
        travelEndsAt = max(travelEndsAt ?? now, now + timing.moving)
    }

    /// The rest of the opener's STATUS: its light (the opener switches it itself as the door
    /// moves, and reports it) and the lock of its remotes and keypads, each where the door has it.
    public mutating func openerReported(light: Bool, remotesLocked locked: Bool) {
        guard capabilities.position == .opener else { return }
        if capabilities.light == .opener, lightOn != light {
            lightOn = light
            // The opener's own light: its own timer, not garaged's.
            lightOffAt = nil
            lightManual = light
        }
        guard capabilities.remotesLock else { return }
        remotesLocked = locked
        // Confirmed; a STATUS sent before the ask reached the opener confirms nothing.
        if remotesAsked?.locked == locked { remotesAsked = nil }
    }

    /// A wall button's press on the opener's wire (another panel's, not garaged's): a move that
    /// follows is that button's.
    public mutating func openerSawWallButton(at now: Instant) {
        guard sensing.opener != nil else { return }
        wallButtonAt = now
    }

    /// The opener's motion sensor saw motion: "motion" for `timing.motion` from now.
    public mutating func openerSawMotion(at now: Instant) {
        guard capabilities.motion else { return }
        motionUntil = now + timing.motion
    }

    /// The opener's count of openings.
    public mutating func openerCounted(openings: Int) {
        guard capabilities.openings else { return }
        self.openings = openings
    }

    /// The opener's backup battery (nil: it said it does not know), for a door whose opener has one.
    public mutating func openerReported(battery: OpenerBattery?) {
        guard capabilities.battery else { return }
        self.battery = battery
    }

    /// How long an ask of the opener's remotes counts as what they will be before its STATUS
    /// says so: a repeat meanwhile asks nothing; past it, the ask is taken as lost, and a repeat
    /// asks again. A real opener answers in well under a second.
    public static let openerConfirmsWithin: Duration = .seconds(5)

    /// Locks (true) or unlocks the opener's remotes and keypads: a command to the opener, which
    /// confirms it in its STATUS. ERR CMD for a door without that lock (`capabilities`), saying
    /// so; OK with nothing asked when the remotes are, or were just asked to be, so already
    /// (`remotesWillBe`); ERR RATE
    /// for a change the caller may not make now (`mayChange`: its channel's allowance). It
    /// needs only an opener that answers, not `openerReady`: it moves nothing, and the opener's
    /// STATUS confirms it.
    public mutating func lockRemotes(_ locked: Bool, at now: Instant, mayChange: Bool = true) -> Decision {
        let events = advance(to: now)
        guard capabilities.remotesLock else {
            return Decision(reply: .error(.command), events: events, because: capabilities.lacking(.remotesLock))
        }
        guard openerAnswering else { return Decision(reply: .error(.fault), events: events) }
        guard remotesWillBe(at: now) != locked else { return Decision(reply: .ok, events: events) }
        guard mayChange else { return Decision(reply: .error(.rate), events: events) }
        remotesAsked = RemotesAsk(locked: locked, at: now)
        return Decision(reply: .ok, events: events + [.remotesLock(locked)])
    }

    /// What the remotes' lock is or is about to be at `now`: an ask the opener has not yet
    /// confirmed, for `openerConfirmsWithin`; otherwise what it last said (nil before it did).
    public func remotesWillBe(at now: Instant) -> Bool? {
        if let ask = remotesAsked, now - ask.at < Door.openerConfirmsWithin { return ask.locked }
        return remotesLocked
    }

    /// Whether the opener's motion sensor reads motion at `now` (nil without one).
    public func motion(at now: Instant) -> Bool? {
        guard capabilities.motion else { return nil }
        return motionUntil.map { now < $0 } ?? false
    }

    /// Whether the opener takes presses: it answers, and has said where the door is since it
    /// last went silent. The gate's rule 6b and the status record's `connected` both read this,
    /// so the record never says connected while the gate refuses for the opener.
    var openerReady: Bool { openerAnswering && openerHeard }

    /// The opener's part of the door's status, nil without one.
    public func openerStatus(at now: Instant) -> OpenerStatus? {
        guard capabilities.position == .opener else { return nil }
        let searching = openerIdentity.map { $0.kind == nil } ?? false
        return OpenerStatus(protocolName: openerIdentity?.kind?.id ?? sensing.openerKind?.id ?? "", device: sensing.openerDevice ?? "",
                            state: openerReady ? "connected" : openerOff != nil ? "off" : searching ? "searching"
                                : fault == .openerSilent ? "silent" : "connecting",
                            remotesLocked: remotesLocked, motion: motion(at: now), openings: openings,
                            battery: capabilities.battery ? battery : nil, found: openerIdentity?.found)
    }

    /// An `auto` door's opener was found, or is searched for (again): the status says which,
    /// and while it is searched the gate refuses every press saying so.
    public mutating func openerIdentified(_ identity: OpenerIdentity) {
        guard capabilities.position == .opener else { return }
        openerIdentity = identity
    }

    /// The opener's first word on where the door rests, since the door was made: where it was
    /// found, as `init` takes the switches' levels. Not a move by someone else, and a door found
    /// open is never closed unasked (no auto-close until it moves); found closed ends a close
    /// failed before a restart.
    private mutating func found(_ state: OpenerDoorState, at now: Instant) -> [Event] {
        switches[.closed] = Debouncer(period: .zero, initial: state == .closed)
        switches[.open] = Debouncer(period: .zero, initial: state == .open)
        switch state {
        case .closed:
            enter(.closed, at: now)
            closeFailed = false
            if fault == .didNotClose { fault = nil }
        case .open:
            enter(.open, at: now)
        default:
            enter(.stopped, at: now)
        }
        heading = position.heading ?? .open
        return []
    }

    /// The opener cannot be spoken to safely until garaged restarts (its kept codes are
    /// damaged): every press is refused with `why`; the door reads as its opener silent.
    /// Nil: it can be spoken to again (its device is back); it must then answer as after silence.
    public mutating func openerOff(_ why: String?) -> [Event] {
        guard capabilities.position == .opener else { return [] }
        openerOff = why
        guard why != nil else {
            // Reachable again: silent until it answers and says where the door is.
            if fault == .openerOff { fault = .openerSilent }
            return []
        }
        var events = openerAnswered(false)
        if fault != .openerOff {
            fault = .openerOff
            events.append(.fault(.openerOff))
        }
        return events
    }

    /// Whether the opener answers: a door whose opener went silent has the fault
    /// `opener-silent` and takes no press until it answers again and says where the door is
    /// (`openerReady`, the gate's rule 6b).
    public mutating func openerAnswered(_ answering: Bool) -> [Event] {
        guard capabilities.position == .opener else { return [] }
        openerAnswering = answering
        if answering {
            if fault == .openerSilent { fault = nil }
            return []
        }
        // Off says more than silent: it stays the fault.
        guard fault != .openerOff else {
            openerHeard = false
            remotesAsked = nil
            return []
        }
        openerHeard = false
        // An ask it may not have heard is asked again once it answers.
        remotesAsked = nil
        guard fault != .openerSilent else { return [] }
        fault = .openerSilent
        return [.fault(.openerSilent)]
    }
}

/// What people ask of the door: open, close, stop, hold it open, the light, the closing
/// interval. Every press they ask for goes through the gate (`Door+Gate.swift`).
extension Door {
    /// `O=1` presses only from CLOSED (or STOPPED) and `O=0` only from OPEN (or STOPPED); a
    /// request for where the door already is or is going is a harmless OK, one against a
    /// moving door (or while the relay is still pressing) is BUSY. With a warning output, a
    /// press from anywhere but CLOSED warns first and presses after the warning; an open during
    /// a warned close calls the close off. `age` is how long the request waited to be judged;
    /// `mayWarn` false (the channel used up its warnings) refuses a request that would start
    /// the warning with ERR RATE.
    public mutating func request(open: Bool, at now: Instant, age: Duration? = nil, mayWarn: Bool = true) -> Decision {
        var events = advance(to: now)
        return open ? requestOpen(at: now, age: age, mayWarn: mayWarn, &events)
            : requestClose(at: now, age: age, mayWarn: mayWarn, &events)
    }

    private mutating func requestOpen(at now: Instant, age: Duration?, mayWarn: Bool, _ events: inout [Event]) -> Decision {
        if let p = pendingPress {
            if p.reason == .open { return refused(.alreadyWaiting(.open), events) }
            events += cancelPending("an open request")
            if position == .open { restartAutoClose(at: now) }
            return Decision(reply: .ok, events: events)
        }
        if expectation?.target == .closed {
            return refused(position == .closing ? .movingTheOtherWay(.closing) : .pressedTheOtherWay(.closed), events)
        }
        switch position {
        case .open:
            restartAutoClose(at: now)
            return refused(.alreadyThere(.open), events)
        case .opening:
            return refused(.alreadyGoing(.open), events)
        case .closing:
            return refused(.movingTheOtherWay(.closing), events)
        case .closed, .stopped:
            if expectation?.target == .open { return refused(.alreadyGoing(.open), events) }
            return decide(.open, age: age, mayWarn: mayWarn, at: now, events)
        }
    }

    private mutating func requestClose(at now: Instant, age: Duration?, mayWarn: Bool, _ events: inout [Event]) -> Decision {
        if let p = pendingPress {
            switch p.reason {
            case .close, .autoClose: return refused(.alreadyWaiting(.close), events)
            case .stop: return refused(.stopWaiting, events)
            case .open:
                // The same button press from STOPPED: it now means a close.
                pendingPress?.reason = .close
                return Decision(reply: .ok, events: events)
            }
        }
        if expectation?.target == .open {
            return refused(position == .opening ? .movingTheOtherWay(.opening) : .pressedTheOtherWay(.open), events)
        }
        switch position {
        case .closed:
            return refused(.alreadyThere(.closed), events)
        case .closing:
            return refused(.alreadyGoing(.closed), events)
        case .opening:
            return refused(.movingTheOtherWay(.opening), events)
        case .open, .stopped:
            if expectation?.target == .closed { return refused(.alreadyGoing(.closed), events) }
            return decide(.close, age: age, mayWarn: mayWarn, at: now, events)
        }
    }

    /// Stop (Home Assistant's STOP): one press while the door moves, after which the door is
    /// STOPPED whatever the switches said, so a second STOP presses nothing; a warned press is
    /// called off without one; a door at rest is left alone.
    public mutating func stop(at now: Instant, age: Duration? = nil, mayWarn: Bool = true) -> Decision {
        let events = advance(to: now)
        if let p = pendingPress {
            guard p.reason != .stop else { return refused(.alreadyWaiting(.stop), events) }
            return Decision(reply: .ok, events: events + cancelPending("a stop request"))
        }
        guard position == .opening || position == .closing else { return refused(.notMoving, events) }
        return decide(.stop, age: age, mayWarn: mayWarn, at: now, events)
    }

    /// A request that presses nothing, by its own rule: answered as `refusal` says (a harmless
    /// OK, or BUSY), with its reason.
    private func refused(_ refusal: PressRefusal, _ events: [Event]) -> Decision {
        Decision(reply: refusal.reply, events: events, refusal: refusal)
    }

    /// Puts a requested press to the gate and carries out its verdict.
    private mutating func decide(_ reason: Press, age: Duration?, mayWarn: Bool, at now: Instant,
                                 _ before: [Event]) -> Decision {
        switch gate(reason, automatic: false, age: age, at: now) {
        case .press(let permit):
            return Decision(reply: .ok, events: before.isEmpty ? startPress(permit, at: now) : before + startPress(permit, at: now))
        case .warnFirst:
            guard mayWarn else { return Decision(reply: .error(.rate), events: before) }
            return Decision(reply: .ok, events: before + warnThenPress(reason, automatic: false, at: now))
        case .refuse(let refusal):
            return Decision(reply: refusal.reply, events: before, refusal: refusal)
        }
    }

    /// The longest hold `H=` takes: a day.
    public static let maxHoldMinutes = 1440

    /// `H=<minutes>`: no automatic close for that long (0 ends the hold); a close being
    /// warned is called off.
    public mutating func hold(minutes: Int, at now: Instant) -> Decision {
        var events = advance(to: now)
        if minutes == 0 {
            let held = holdUntil != nil
            holdUntil = nil
            if held { restartAutoClose(at: now) }
            return Decision(reply: .ok, events: events)
        }
        if pendingPress?.reason == .autoClose { events += cancelPending("a hold") }
        holdUntil = now + .seconds(minutes * 60)
        return Decision(reply: .ok, events: events)
    }

    /// `L=1`/`L=0`: the light on until switched off, or off now. ERR CMD without a light, saying so;
    /// ERR FAULT while the opener whose light it is does not answer (nothing would switch it,
    /// and the status would claim a light nobody switched); ERR RATE for a change the caller may
    /// not make now (`mayChange`: its channel's allowance, on a door whose warning is this
    /// light). A light already so says it.
    public mutating func setLight(on: Bool, at now: Instant, mayChange: Bool = true) -> Decision {
        var events = advance(to: now)
        guard capabilities.light != nil else { return Decision(reply: .error(.command), events: events, because: capabilities.lacking(.light)) }
        if capabilities.light == .opener, let opener = sensing.opener, !openerAnswering {
            return Decision(reply: .error(.fault), events: events, because: "\(opener) does not answer, so garaged cannot switch its light; "
                                                                         + PressRefusal.openerChecks)
        }
        guard lightOn == on || mayChange else { return Decision(reply: .error(.rate), events: events) }
        lightManual = on
        if !on { lightOffAt = nil }
        guard lightOn != on else { return Decision(reply: .ok, events: events, because: "the light is already \(on ? "on" : "off")") }
        lightOn = on
        events.append(.light(on: on))
        return Decision(reply: .ok, events: events)
    }

    /// How long HomeKit's identify lights the light.
    public static let identifyFor: Duration = .seconds(3)

    /// HomeKit's identify (the owner asks "which accessory is this?"): the light comes on for
    /// `identifyFor`, unless it is on already; without a light, the warning sounds for as long
    /// (it ends then unless a close has come to wait for it, which the warning only ever makes
    /// safer); never a press. With neither there is nothing to show: ERR CMD, like `L=1`.
    public mutating func identify(at now: Instant) -> Decision {
        var events = advance(to: now)
        guard capabilities.light != nil else {
            guard capabilities.warning != nil else { return Decision(reply: .error(.command), events: events) }
            if !warningOn {
                warningOn = true
                warningSince = nil
                warningDecidedAt = now
                warningOffAt = now + Door.identifyFor
                events.append(.warning(on: true))
            }
            return Decision(reply: .ok, events: events)
        }
        if !lightOn {
            lightOn = true
            lightManual = false
            lightOffAt = now + Door.identifyFor
            events.append(.light(on: true))
        }
        return Decision(reply: .ok, events: events)
    }

    /// `C=<seconds>` (or the stored interval at start): the closing interval; nil turns
    /// auto-close off. An open door's countdown starts again with it.
    public mutating func setAutoClose(_ interval: Duration?, at now: Instant) {
        autoCloseInterval = interval
        if position == .open { restartAutoClose(at: now) }
    }

    /// The countdown starts again from `now` (an open door that was asked to open, a hold
    /// that ended), when this opening may be closed automatically at all.
    mutating func restartAutoClose(at now: Instant) {
        let eligible = openedByGaraged || autoCloseAnyOpening
        autoCloseAt = eligible ? autoCloseInterval.map { now + $0 } : nil
    }

    /// Carries out a press the gate allowed: the relay is busy until it reports the release.
    /// A STOP leaves the door STOPPED at once, whatever the switches said; any other press
    /// expects the door at the far end within the travel time.
    mutating func startPress(_ permit: PressPermit, at now: Instant) -> [Event] {
        pressing = true
        autoCloseAt = nil
        // The door may now move either way (a one-button opener): a running warning stays on
        // through the travel.
        if warningOn { warningOffAt = now + timing.moving }
        var events: [Event] = []
        events.reserveCapacity(3)  // one allocation for the press, its movement and the light
        events.append(.press(permit))
        if permit.reason == .stop {
            expectation = nil
            travelEndsAt = nil
            enter(.stopped, at: now)
            events.append(.moved(.stopped, bySomeoneElse: false))
            return events
        }
        let target: DoorPosition = permit.reason == .open ? .open : .closed
        expectation = Expectation(target: target, by: now + timing.moving, reason: permit.reason)
        if permit.reason == .open { openedByGaraged = true }
        // When no switch holds the end the door is at (no switches, an inferred end, or
        // STOPPED), nothing will say it started: it is taken to move at once, and to arrive
        // when the travel time is up (or, at an end a switch watches, to have STOPPED).
        let startSensed = position == .closed && sensing.closedSwitch || position == .open && sensing.openSwitch
        if !startSensed {
            position = target == .open ? .opening : .closing
            travelEndsAt = now + timing.moving
            expectation?.left = true
            events.append(.moved(position, bySomeoneElse: false))
            events += lightForMovement(at: now)
        }
        return events
    }

    /// The light, when one is wired, comes on as the door starts to move.
    mutating func lightForMovement(at now: Instant) -> [Event] {
        guard let d = timing.light else { return [] }
        lightOffAt = max(lightOffAt ?? now, now + d)
        guard !lightOn else { return [] }
        lightOn = true
        return [.light(on: true)]
    }
}

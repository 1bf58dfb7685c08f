/// What people ask of the door: open, close, hold it open, the light, the closing interval.
extension Door {
    /// `O=1` presses only from CLOSED (or STOPPED) and `O=0` only from OPEN (or STOPPED); a
    /// request for where the door already is or is going is a harmless OK, one against a
    /// moving door (or while the relay is still pressing) is BUSY. With a warning output, a
    /// close warns first and presses after the warning; an open during the warning calls the
    /// close off.
    public mutating func request(open: Bool, at now: Instant) -> Decision {
        var events = advance(to: now)
        return open ? requestOpen(at: now, &events) : requestClose(at: now, &events)
    }

    private mutating func requestOpen(at now: Instant, _ events: inout [Event]) -> Decision {
        if pendingClose != nil {
            events += cancelClose("an open request", at: now)
            restartAutoClose(at: now)
            return Decision(reply: .ok, events: events)
        }
        if expectation?.target == .closed { return Decision(reply: .error(.busy), events: events) }
        switch position {
        case .open:
            restartAutoClose(at: now)
            return Decision(reply: .ok, events: events)
        case .opening:
            return Decision(reply: .ok, events: events)
        case .closing:
            return Decision(reply: .error(.busy), events: events)
        case .closed, .stopped:
            if expectation?.target == .open { return Decision(reply: .ok, events: events) }
            guard !pressing else { return Decision(reply: .error(.busy), events: events) }
            events += startPress(.open, at: now)
            return Decision(reply: .ok, events: events)
        }
    }

    private mutating func requestClose(at now: Instant, _ events: inout [Event]) -> Decision {
        if pendingClose != nil { return Decision(reply: .ok, events: events) }
        if expectation?.target == .open { return Decision(reply: .error(.busy), events: events) }
        switch position {
        case .closed, .closing:
            return Decision(reply: .ok, events: events)
        case .opening:
            return Decision(reply: .error(.busy), events: events)
        case .open, .stopped:
            if expectation?.target == .closed { return Decision(reply: .ok, events: events) }
            guard !pressing else { return Decision(reply: .error(.busy), events: events) }
            events += beginClose(.close, at: now)
            return Decision(reply: .ok, events: events)
        }
    }

    /// Stop (Home Assistant's STOP): a press while the door moves, which stops a push-button
    /// opener; a warned close is called off without one; a door at rest is left alone.
    public mutating func stop(at now: Instant) -> Decision {
        var events = advance(to: now)
        if pendingClose != nil {
            events += cancelClose("a stop request", at: now)
            return Decision(reply: .ok, events: events)
        }
        guard position == .opening || position == .closing else { return Decision(reply: .ok, events: events) }
        guard !pressing else { return Decision(reply: .error(.busy), events: events) }
        pressing = true
        expectation = nil
        autoCloseAt = nil
        events.append(.press(.stop))
        if sensing.believed || travelEndsAt != nil && !(position == .opening ? sensing.openSwitch : sensing.closedSwitch) {
            // Nothing will say where it stopped: STOPPED now.
            travelEndsAt = nil
            enter(.stopped, at: now)
            events.append(.moved(.stopped, bySomeoneElse: false))
        }
        return Decision(reply: .ok, events: events)
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
        if pendingClose?.reason == .autoClose { events += cancelClose("a hold", at: now) }
        holdUntil = now + .seconds(minutes * 60)
        return Decision(reply: .ok, events: events)
    }

    /// `L=1`/`L=0`: the light on until switched off, or off now. ERR CMD without a light.
    public mutating func setLight(on: Bool, at now: Instant) -> Decision {
        var events = advance(to: now)
        guard timing.light != nil else { return Decision(reply: .error(.command), events: events) }
        lightManual = on
        if !on { lightOffAt = nil }
        if lightOn != on {
            lightOn = on
            events.append(.light(on: on))
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

    /// A close: after the warning when a warning output is wired, at once otherwise.
    mutating func beginClose(_ reason: Press, at now: Instant) -> [Event] {
        guard let warning = timing.warning else { return startPress(reason, at: now) }
        pendingClose = (reason, now + warning)
        autoCloseAt = nil
        warningOffAt = nil
        guard !warningOn else { return [] }
        warningOn = true
        return [.warning(on: true)]
    }

    /// The warning output really went on at `shownAt`, a moment after the close was decided
    /// (the daemon sets it after the decision): the close it announces comes no sooner than a
    /// whole warning after that, however long setting it took.
    public mutating func warningShown(at shownAt: Instant) {
        guard let warning = timing.warning, let p = pendingClose else { return }
        pendingClose = (p.reason, max(p.at, shownAt + warning))
    }

    /// Calls off a close whose warning is running.
    mutating func cancelClose(_ why: String, at now: Instant) -> [Event] {
        guard pendingClose != nil else { return [] }
        pendingClose = nil
        var events: [Event] = [.closeCancelled(why)]
        if warningOn {
            warningOn = false
            warningOffAt = nil
            events.append(.warning(on: false))
        }
        return events
    }

    /// Decides one press: the relay is busy until it reports the release, and the door is
    /// expected at the far end within the travel time.
    mutating func startPress(_ reason: Press, at now: Instant) -> [Event] {
        pressing = true
        let target: DoorPosition = reason == .open ? .open : .closed
        expectation = Expectation(target: target, by: now + timing.moving, reason: reason)
        autoCloseAt = nil
        if reason == .open { openedByGaraged = true }
        var events: [Event] = [.press(reason)]
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
        if reason != .open, warningOn { warningOffAt = now + timing.moving }
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

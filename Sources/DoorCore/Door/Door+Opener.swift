/// A door whose opener reports where it is on its own wire (Security+ 2.0's STATUS): the
/// reports drive the door's switches as if both ends and a photo-eye were wired, so the gate,
/// the faults, the timers and "moved by someone else" work exactly as they do with switches.
extension Door {
    /// The opener said its door is `state`, and whether its photo-eyes see an obstruction.
    /// The end that is no longer true is released before the one that now is, so an opener
    /// seen going straight from one end to the other never reads as both ends at once.
    public mutating func openerReported(_ state: OpenerDoorState, obstructed: Bool, at now: Instant) -> [Event] {
        guard sensing.opener != nil else { return [] }
        var events = openerAnswered(true)
        events += sensor(.obstruction, active: obstructed, at: now)
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

    /// Whether the opener answers: a door whose opener went silent has the fault
    /// `opener-silent` and takes no press until it answers again (the gate's rule 6b).
    public mutating func openerAnswered(_ answering: Bool) -> [Event] {
        guard sensing.opener != nil else { return [] }
        openerAnswering = answering
        if answering {
            if fault == .openerSilent { fault = nil }
            return []
        }
        guard fault != .openerSilent else { return [] }
        fault = .openerSilent
        return [.fault(.openerSilent)]
    }
}

/// The warning output before a press: it goes on, the daemon confirms when it really did, and
/// the press waits a whole warning from then; any request or movement meanwhile calls it off.
extension Door {
    /// Starts the warning for a press the gate said must be warned first: the press is due a
    /// whole warning after the output is confirmed on (at once when it already was, for what
    /// is left of its time).
    mutating func warnThenPress(_ reason: Press, automatic: Bool, at now: Instant) -> [Event] {
        autoCloseAt = nil
        warningOffAt = nil
        var events: [Event] = []
        if !warningOn {
            warningOn = true
            warningSince = nil
            warningDecidedAt = now
            events.append(.warning(on: true))
        }
        let due = warningSince.flatMap { since in timing.warning.map { since + $0 } }
        pendingPress = PendingPress(reason: reason, automatic: automatic, due: due)
        events.append(.pressWarned(reason))
        return events
    }

    /// The warning output really went on at `shownAt`, a moment after it was decided (the
    /// daemon sets it after the decision): a waiting press is due a whole warning after that,
    /// however long setting it took. The gate counts the warning only from here.
    public mutating func warningShown(at shownAt: Instant) {
        guard warningOn, warningSince == nil else { return }
        let since = max(shownAt, warningDecidedAt ?? shownAt)
        warningSince = since
        if var p = pendingPress, let warning = timing.warning {
            p.due = since + warning
            pendingPress = p
        }
    }

    /// The warning output could not be switched on: the press it was to announce is called off,
    /// since nobody was warned.
    public mutating func warningFailed(at now: Instant) -> [Event] {
        guard warningOn else { return [] }
        var events = cancelPending("the warning output could not be switched on")
        events += warningOff()
        return events
    }

    /// Calls off a press whose warning is running, and switches the warning off.
    mutating func cancelPending(_ why: String) -> [Event] {
        guard let p = pendingPress else { return [] }
        pendingPress = nil
        return [.pressCancelled(p.reason, why)] + warningOff()
    }

    /// The warning off, unless a press still waits for it.
    mutating func warningOff() -> [Event] {
        guard pendingPress == nil else { return [] }
        warningOffAt = nil
        guard warningOn else { return [] }
        warningOn = false
        warningSince = nil
        return [.warning(on: false)]
    }
}

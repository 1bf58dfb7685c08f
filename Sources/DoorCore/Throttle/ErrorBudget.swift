/// A bucket of units that come back one every `refill`: how much garbage one connection may
/// send before it is dropped (each malformed PDU spends one; a phone that reconnects and runs
/// discovery all day never runs out, a peer pouring garbage does, fast), and how often a
/// channel may start the warning, change a hold, the light or the remotes' lock (`RequestRates`).
public struct ErrorBudget: Sendable {
    public let capacity: Int
    public let refill: Duration
    public private(set) var spent = 0
    private var since: Instant?

    public init(capacity: Int = 16, refill: Duration = .seconds(5)) {
        self.capacity = capacity
        self.refill = refill
    }

    /// Spends one unit; true when the budget is now exhausted (drop the connection).
    public mutating func charge(at now: Instant) -> Bool {
        refillUntil(now)
        if spent == 0 { since = now }
        spent += 1
        return spent >= capacity
    }

    /// Spends one unit when one is left: true when it was (go ahead), false when the budget
    /// is used up for now (refuse).
    public mutating func spend(at now: Instant) -> Bool {
        refillUntil(now)
        guard spent < capacity else { return false }
        if spent == 0 { since = now }
        spent += 1
        return true
    }

    /// True when `spend` would go ahead now.
    public func hasUnit(at now: Instant) -> Bool {
        var copy = self
        copy.refillUntil(now)
        return copy.spent < copy.capacity
    }

    /// How long until `spend` would go ahead: zero when it would now.
    public func untilNextUnit(at now: Instant) -> Duration {
        var copy = self
        copy.refillUntil(now)
        guard copy.spent >= copy.capacity, let since = copy.since else { return .zero }
        return max(.zero, since + refill - now)
    }

    /// Gives back one unit for each whole `refill` since the last one came back.
    private mutating func refillUntil(_ now: Instant) {
        if let since, spent > 0, now > since, refill > .zero {
            let back = Int(min((now - since).nanoseconds / refill.nanoseconds, Int64(spent)))
            spent -= back
            self.since = since + .nanoseconds(Int64(back) * refill.nanoseconds)
        }
    }
}

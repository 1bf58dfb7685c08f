/// How much garbage one connection may send before it is dropped: each malformed PDU or
/// malformed command spends one unit, and one unit comes back every `refill`. A phone that
/// reconnects and runs discovery all day never runs out; a peer pouring garbage does, fast.
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
        if let since, spent > 0, now > since, refill > .zero {
            let back = Int(min((now - since).nanoseconds / refill.nanoseconds, Int64(spent)))
            spent -= back
            self.since = since + .nanoseconds(Int64(back) * refill.nanoseconds)
        }
        if spent == 0 { since = now }
        spent += 1
        return spent >= capacity
    }
}

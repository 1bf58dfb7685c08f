/// How often each channel may do what costs the household something when repeated at will
/// even with a right PIN: start the warning (it sounds in the garage, and every start is in
/// the history) and change a hold. A guest's PIN flooding `O=0`/`O=1` or `H=1`/`H=0` gets
/// `ERR RATE` past a few a minute; other channels keep their own allowance, so a flood over
/// Bluetooth never stops the owner at the shell.
public struct RequestRates: Sendable {
    /// What a request spends.
    public enum Kind: Sendable { case warning, hold }

    /// Warnings started by requests: 3 at once, then one every 20 s (3 a minute).
    public static let warnings = (capacity: 3, refill: Duration.seconds(20))
    /// Hold changes: 6 at once, then one every 10 s (6 a minute).
    public static let holds = (capacity: 6, refill: Duration.seconds(10))
    /// Channels tracked at most (the oldest is forgotten past it: a fresh allowance is safe).
    public static let maxChannels = 64

    private var budgets: [String: (warning: ErrorBudget, hold: ErrorBudget, used: Instant)] = [:]

    public init() {}

    /// True when `channel` may do `kind` now (nothing is spent).
    public func allows(_ kind: Kind, for channel: String, at now: Instant) -> Bool {
        guard let b = budgets[channel] else { return true }
        return (kind == .warning ? b.warning : b.hold).hasUnit(at: now)
    }

    /// Spends one of `channel`'s `kind`; false when none is left (refuse the request).
    public mutating func spend(_ kind: Kind, for channel: String, at now: Instant) -> Bool {
        var b = budgets[channel] ?? (ErrorBudget(capacity: RequestRates.warnings.capacity, refill: RequestRates.warnings.refill),
                                     ErrorBudget(capacity: RequestRates.holds.capacity, refill: RequestRates.holds.refill), now)
        let ok = kind == .warning ? b.warning.spend(at: now) : b.hold.spend(at: now)
        b.used = now
        if budgets[channel] == nil, budgets.count >= RequestRates.maxChannels,
           let oldest = budgets.min(by: { $0.value.used < $1.value.used })?.key {
            budgets[oldest] = nil
        }
        budgets[channel] = b
        return ok
    }
}

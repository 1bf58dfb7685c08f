/// How often each channel may do what costs the household something when repeated at will
/// even with a right PIN: start the warning (it sounds in the garage, and every start is in
/// the history), change a hold, switch the light of a door whose warning is that light (a
/// light flashed at will is a warning nobody can trust, and each change is a packet on the
/// opener's wire), and change the lock of an opener's remotes (each change is kept in the
/// history). A guest's PIN flooding `O=0`/`O=1` or `H=1`/`H=0` gets `ERR RATE` past a few a
/// minute; other channels keep their own allowance, so a flood over Bluetooth never stops the
/// owner at the shell.
public struct RequestRates: Sendable {
    /// What a request spends.
    public enum Kind: Int, Sendable, CaseIterable { case warning, hold, light, remotes }

    /// Warnings started by requests: 3 at once, then one every 20 s (3 a minute).
    public static let warnings = (capacity: 3, refill: Duration.seconds(20))
    /// Hold changes: 6 at once, then one every 10 s (6 a minute).
    public static let holds = (capacity: 6, refill: Duration.seconds(10))
    /// Light changes on a door whose warning is its opener's light: as many as warnings, 3 at
    /// once, then one every 20 s.
    public static let lights = (capacity: 3, refill: Duration.seconds(20))
    /// Changes of the lock of an opener's remotes: 4 at once, then one every 15 min. Each is
    /// kept in the history, so one channel adds at most about 100 kept records a day (the kept
    /// part holds 2,100 to 4,300: `EventHistory`).
    public static let remoteLocks = (capacity: 4, refill: Duration.seconds(900))
    /// Channels tracked at most (the oldest is forgotten past it: a fresh allowance is safe).
    public static let maxChannels = 64

    /// The allowance of `kind`: how many at once, and how often one comes back.
    public static func allowance(_ kind: Kind) -> (capacity: Int, refill: Duration) {
        switch kind {
        case .warning: return warnings
        case .hold: return holds
        case .light: return lights
        case .remotes: return remoteLocks
        }
    }

    /// One channel's allowances, by `Kind.rawValue`, and when it last spent one.
    private struct Channel: Sendable {
        var budgets = Kind.allCases.map { ErrorBudget(capacity: allowance($0).capacity, refill: allowance($0).refill) }
        var used: Instant
    }

    private var budgets: [String: Channel] = [:]

    public init() {}

    /// True when `channel` may do `kind` now (nothing is spent).
    public func allows(_ kind: Kind, for channel: String, at now: Instant) -> Bool {
        guard let b = budgets[channel] else { return true }
        return b.budgets[kind.rawValue].hasUnit(at: now)
    }

    /// How long until `channel` may do `kind` again: zero when it may now.
    public func wait(_ kind: Kind, for channel: String, at now: Instant) -> Duration {
        budgets[channel]?.budgets[kind.rawValue].untilNextUnit(at: now) ?? .zero
    }

    /// Spends one of `channel`'s `kind`; false when none is left (refuse the request).
    public mutating func spend(_ kind: Kind, for channel: String, at now: Instant) -> Bool {
        var b = budgets[channel] ?? Channel(used: now)
        let ok = b.budgets[kind.rawValue].spend(at: now)
        b.used = now
        if budgets[channel] == nil, budgets.count >= RequestRates.maxChannels,
           let oldest = budgets.min(by: { $0.value.used < $1.value.used })?.key {
            budgets[oldest] = nil
        }
        budgets[channel] = b
        return ok
    }
}

/// Slows PIN guessing down so that no channel can search the PIN space in a useful time.
///
/// Each channel has its own budget (`Channel`): a stranger guessing over Bluetooth never locks
/// out a family member at the Pi's shell, and the reverse. Within a budget:
/// - the first `freeAttempts` wrong PINs cost nothing; after that every wrong PIN locks the
///   channel for a delay that doubles from `firstDelay` up to `maxDelay`;
/// - attempts refused while locked are not judged at all, so they neither count nor teach
///   anything about the PIN;
/// - only time forgives: one wrong PIN is forgotten for every `forgiveEvery` without a wrong
///   PIN. A correct PIN resets nothing, so knowing one PIN gives no speed-up in guessing any
///   other (a success between guesses used to start the count over);
/// - the owner can clear a budget (`Lunlock`), and the owner at the shell is never throttled.
///
/// With the defaults a patient guesser settles at one guess per `maxDelay` (one an hour):
/// 8,760 guesses a year, so a given 5-digit PIN (100,000 candidates, 50,000 expected guesses)
/// takes about 5.7 years on average (docs/threat-model.md).
public struct Throttle: Sendable {
    /// The channels that keep separate counts.
    public enum Channel: String, Sendable, CaseIterable, Comparable {
        /// Bluetooth LE, and the ATT test socket that is handled exactly like it.
        case remote
        /// The local socket, for users other than the owner.
        case local

        public static func < (a: Channel, b: Channel) -> Bool { a.rawValue < b.rawValue }
    }

    /// One channel's count and lock.
    public struct Budget: Equatable, Sendable {
        /// Wrong PINs not yet forgiven.
        public fileprivate(set) var failures = 0
        public fileprivate(set) var lockedUntil: Instant?
        /// Forgiveness is counted from here: the last wrong PIN, or the last forgiveness.
        fileprivate var quietSince: Instant?
    }

    public let freeAttempts: Int
    public let firstDelay: Duration
    public let maxDelay: Duration
    public let forgiveEvery: Duration
    public private(set) var budgets: [Channel: Budget] = [:]

    public init(freeAttempts: Int = 5, firstDelay: Duration = .seconds(1),
                maxDelay: Duration = .seconds(3600), forgiveEvery: Duration = .seconds(3600)) {
        self.freeAttempts = freeAttempts
        self.firstDelay = firstDelay
        self.maxDelay = maxDelay
        self.forgiveEvery = forgiveEvery
    }

    /// The channel's count and lock as they stand at `now` (forgiveness applied).
    public func budget(_ channel: Channel, at now: Instant) -> Budget {
        var b = budgets[channel] ?? Budget()
        forgive(&b, at: now)
        return b
    }

    /// How long the channel's lockout still lasts, or nil when an attempt may be judged now.
    public func remainingLock(_ channel: Channel, at now: Instant) -> Duration? {
        guard let until = budgets[channel]?.lockedUntil, now < until else { return nil }
        return until - now
    }

    /// Counts a wrong PIN; returns the new lockout's length when this one starts or extends it.
    @discardableResult
    public mutating func recordFailure(_ channel: Channel, at now: Instant) -> Duration? {
        var b = budget(channel, at: now)
        b.failures += 1
        b.quietSince = now
        defer { budgets[channel] = b }
        guard b.failures >= freeAttempts else { return nil }
        var delay = firstDelay
        for _ in 0..<min(b.failures - freeAttempts, 62) where delay < maxDelay { delay = delay * 2 }
        delay = min(delay, maxDelay)
        b.lockedUntil = now + delay
        return delay
    }

    /// The owner's unlock: forgets the count and ends the lock of one channel, or of all.
    public mutating func clear(_ channel: Channel? = nil) {
        if let channel { budgets[channel] = nil } else { budgets.removeAll() }
    }

    /// When a channel's lock or count next changes with time alone (a lock ending, a wrong PIN forgiven), after `now`; nil when none will.
    public func nextChange(after now: Instant) -> Instant? {
        guard !budgets.isEmpty else { return nil }
        var earliest: Instant?
        func consider(_ t: Instant?) {
            if let t, t > now, earliest.map({ t < $0 }) ?? true { earliest = t }
        }
        for channel in Channel.allCases {
            let b = budget(channel, at: now)
            consider(b.lockedUntil)
            if b.failures > 0, forgiveEvery > .zero { consider(b.quietSince.map { $0 + forgiveEvery }) }
        }
        return earliest
    }

    private func forgive(_ b: inout Budget, at now: Instant) {
        guard b.failures > 0, let since = b.quietSince, now > since else { return }
        let quiet = (now - since).nanoseconds, step = forgiveEvery.nanoseconds
        guard step > 0 else { b.failures = 0; return }
        let forgiven = Int(min(quiet / step, Int64(b.failures)))
        b.failures -= forgiven
        b.quietSince = since + .nanoseconds(Int64(forgiven) * step)
    }
}

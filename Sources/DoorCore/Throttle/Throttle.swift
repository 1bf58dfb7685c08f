/// Slows down PIN guessing: a 5-character PIN falls to brute force in hours at radio speed.
/// After `freeAttempts` consecutive wrong PINs every attempt is refused until a delay has passed;
/// the delay doubles with each further wrong PIN, from 1 s up to 15 minutes. A correct PIN
/// after the delay starts over, with one exception: once a wrong PIN was tried for a
/// master-only command, only the master PIN starts over, so someone who knows an ordinary PIN
/// cannot reset the count between guesses at the master. Attempts refused while locked neither
/// count nor extend it.
public struct Throttle: Sendable {
    public let freeAttempts: Int
    public let firstDelay: Duration
    public let maxDelay: Duration
    public private(set) var failures = 0
    public private(set) var lockedUntil: Instant?
    /// True once a wrong PIN was tried for a master-only command since the count last started over.
    public private(set) var masterGuessed = false

    public init(freeAttempts: Int = 5, firstDelay: Duration = .seconds(1),
                maxDelay: Duration = .seconds(15 * 60)) {
        self.freeAttempts = freeAttempts
        self.firstDelay = firstDelay
        self.maxDelay = maxDelay
    }

    /// How long the lockout still lasts, or nil when an attempt may be judged now.
    public func remainingLock(at now: Instant) -> Duration? {
        guard let until = lockedUntil, now < until else { return nil }
        return until - now
    }

    /// Counts a wrong PIN; returns the new lockout's length when this one starts or extends it.
    @discardableResult
    public mutating func recordFailure(at now: Instant, master: Bool = false) -> Duration? {
        failures += 1
        if master { masterGuessed = true }
        guard failures >= freeAttempts else { return nil }
        let doublings = failures - freeAttempts
        var delay = firstDelay
        for _ in 0..<min(doublings, 32) where delay < maxDelay { delay = delay * 2 }
        delay = min(delay, maxDelay)
        lockedUntil = now + delay
        return delay
    }

    /// Starts over, unless the master PIN was being guessed and this success is not the master's.
    public mutating func recordSuccess(master: Bool = true) {
        guard master || !masterGuessed else { return }
        failures = 0
        lockedUntil = nil
        masterGuessed = false
    }
}

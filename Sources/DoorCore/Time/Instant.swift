/// A point on CLOCK_MONOTONIC, in nanoseconds: the clock libgpiod and the relay trace use,
/// so log lines, traces and the door's timers can be compared directly.
public struct Instant: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var nanoseconds: UInt64

    public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    public static func < (a: Instant, b: Instant) -> Bool { a.nanoseconds < b.nanoseconds }

    public static func + (a: Instant, d: Duration) -> Instant {
        let ns = d.nanoseconds
        return ns >= 0 ? Instant(nanoseconds: a.nanoseconds &+ UInt64(ns))
            : Instant(nanoseconds: a.nanoseconds &- UInt64(-ns))
    }

    /// `d` before `a`, never before the clock's zero: an age longer than the clock has run
    /// makes the oldest instant there is (so a request stamped so is stale, never fresh).
    public static func - (a: Instant, d: Duration) -> Instant {
        let ns = d.nanoseconds
        guard ns >= 0 else { return a + .nanoseconds(-ns) }
        return Instant(nanoseconds: a.nanoseconds >= UInt64(ns) ? a.nanoseconds - UInt64(ns) : 0)
    }

    /// The time from `b` to `a`, negative when `a` is earlier.
    public static func - (a: Instant, b: Instant) -> Duration {
        .nanoseconds(Int64(bitPattern: a.nanoseconds &- b.nanoseconds))
    }

    public var description: String { "\(nanoseconds)ns" }
}

extension Duration {
    /// Whole nanoseconds, rounded toward zero (Duration keeps attoseconds; nothing here needs
    /// finer than ns). One 128-bit division: `components` costs four times as much, on every
    /// press.
    public var nanoseconds: Int64 {
        #if compiler(>=6.2)
        Int64(truncatingIfNeeded: attoseconds / 1_000_000_000)
        #else
        // Debian's Swift 6.0 has no `attoseconds` (SE-0457): the two components.
        let c = components
        return c.seconds * 1_000_000_000 + c.attoseconds / 1_000_000_000
        #endif
    }

    /// Whole seconds, rounded up: "locked for 0.2 s" must read as 1, never 0.
    public var secondsRoundedUp: Int {
        let ns = nanoseconds
        return ns <= 0 ? 0 : Int((ns + 999_999_999) / 1_000_000_000)
    }

    /// Milliseconds with three decimals ("300.043"), exact to the microsecond (rounded toward
    /// zero): how the log gives a press's width, with no floating point and no Foundation.
    public var millisecondsText: String {
        let us = nanoseconds / 1_000
        let whole = us.magnitude / 1_000, frac = String(us.magnitude % 1_000)
        return "\(us < 0 ? "-" : "")\(whole).\(String(repeating: "0", count: 3 - frac.count))\(frac)"
    }
}

/// The door's notion of "now", injectable so the state machine and throttle run under test time.
public protocol MonotonicClock: Sendable {
    func now() -> Instant
}

import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// The kernel's CLOCK_MONOTONIC: never jumps with NTP or the user setting the date.
public struct SystemMonotonicClock: MonotonicClock {
    public init() {}

    public func now() -> Instant {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Instant(nanoseconds: UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec))
    }
}

extension EventRecord {
    /// Wall-clock now, in milliseconds since the epoch.
    public static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec / 1_000_000)
    }
}

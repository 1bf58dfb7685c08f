import CSystemd
import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
import Synchronization
#endif

/// Tells systemd what a `Type=notify` unit needs to know: READY=1 once garaged can open the
/// door, a STATUS= line a person reads in `systemctl status`, STOPPING=1, and WATCHDOG=1 from
/// the door loop itself, so a loop that hangs is restarted rather than left deaf. Outside
/// systemd (no NOTIFY_SOCKET) every call does nothing.
final class ServiceNotifier: DoorSubscriber, @unchecked Sendable {
    /// How often the door loop says it is alive: half of WATCHDOG_USEC, as sd_watchdog_enabled(3)
    /// advises; nil when the unit has no WatchdogSec=.
    let watchdogInterval: Duration?
    /// The snapshot the line last sent was written from, with when (the loop's clock and the
    /// wall's): READY=1 writes the same line again from it. Empty before the first.
    private let delivered = Mutex<(snapshot: StatusSnapshot, at: Instant, wall: Int64)?>(nil)
    private var nextPing: Instant?
    /// Whether systemd listens (NOTIFY_SOCKET is set): the status line is built only then.
    let active: Bool

    init() {
        active = getenv("NOTIFY_SOCKET") != nil
        var usec: UInt64 = 0
        // Checks WATCHDOG_PID too: a watchdog meant for another process is not ours.
        watchdogInterval = sd_watchdog_enabled(0, &usec) > 0 && usec > 0 ? .microseconds(Int64(usec / 2)) : nil
    }

    /// Sent once the relay line is held at rest and every listener accepts: from here on a
    /// request is served, so units ordered after garaged may start.
    func ready(at now: Instant) {
        let line = delivered.withLock { $0 }.map { $0.snapshot.serviceLine(at: $0.at, until: ServiceNotifier.until($0.wall)) } ?? ""
        send("READY=1\nSTATUS=\(line)")
        nextPing = watchdogInterval.map { now + $0 }
    }

    /// Sent when a stop signal arrives, so systemd shows "deactivating" and waits, rather than
    /// counting the slow exit as a hang.
    func stopping(_ why: String) {
        send("STOPPING=1\nSTATUS=stopping (\(why))")
    }

    /// Says why garaged will not start, so `systemctl status` shows it beside the failure.
    func failed(_ why: String) {
        send("STATUS=not started: \(why)")
    }

    /// The status line, sent when its view of the snapshot says it changed; lockouts until a time of day.
    func statusChanged(from old: StatusSnapshot?, to new: StatusSnapshot, at now: Instant) {
        guard active else { return }
        let wall = EventRecord.now()
        delivered.withLock { $0 = (new, now, wall) }
        guard let text = new.serviceLine(since: old, at: now, until: ServiceNotifier.until(wall)) else { return }
        send("STATUS=\(text)")
    }

    /// A lockout's end as a time of day, from the seconds left at wall-clock ms `wall`.
    private static func until(_ wall: Int64) -> (Int) -> String {
        { seconds in WallTime.format(wall + Int64(seconds) * 1000, .timeOfDay) }
    }

    /// When the door loop must next call `alive`, or nil without a watchdog.
    var nextDeadline: Instant? { nextPing }

    /// Called by the door loop on every turn; pings systemd when a ping is due.
    func alive(at now: Instant) {
        guard let interval = watchdogInterval, let due = nextPing, now >= due else { return }
        send("WATCHDOG=1")
        nextPing = now + interval
    }

    private func send(_ state: String) {
        _ = sd_notify(0, state)
    }
}

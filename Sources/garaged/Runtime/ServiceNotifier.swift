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
    /// The parts of the STATUS= line, in this order: door (doors, with several), lockout, bluetooth, mqtt.
    private let parts = Mutex((values: [String: String](), sent: ""))
    private static let order = ["door", "doors", "lockout", "bluetooth", "mqtt"]
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
        send("READY=1\nSTATUS=\(line())")
        nextPing = watchdogInterval.map { now + $0 }
    }

    /// The parts of the status line; sent only when the whole line changes.
    private func set(_ values: [String: String]) {
        let changed: String? = parts.withLock { p in
            p.values = values
            let line = ServiceNotifier.join(p.values)
            guard line != p.sent else { return nil }
            p.sent = line
            return line
        }
        if let changed { send("STATUS=\(changed)") }
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

    /// The doors' part of the line (each one's state, a fault, how it is known; named by its
    /// door when there are several), the lockouts (until a wall-clock time: a countdown would
    /// be stale the moment it is sent) and each channel's.
    func statusChanged(_ doors: [DoorStatus], at now: Instant) {
        guard active, let first = doors.first else { return }
        let door = doors.map { status in
            var text = (doors.count > 1 ? "\(status.id ?? "door \(status.index + 1)") " : "") + status.position.rawValue
            if let fault = status.fault { text += ", fault \(fault.rawValue)" }
            if status.sensing.believed { text += " (believed: no sensors)" }
            return text
        }.joined(separator: "; ")
        let locked = first.locked(at: now).map {
            "\($0.channel.rawValue) until \(WallTime.format(EventRecord.now() + Int64($0.seconds) * 1000, .timeOfDay))"
        }
        var values = [doors.count > 1 ? "doors" : "door": door, "lockout": locked.isEmpty ? "none" : locked.joined(separator: ", ")]
        for c in first.channels { values[c.name] = c.line }
        set(values)
    }

    /// When the door loop must next call `alive`, or nil without a watchdog.
    var nextDeadline: Instant? { nextPing }

    /// Called by the door loop on every turn; pings systemd when a ping is due.
    func alive(at now: Instant) {
        guard let interval = watchdogInterval, let due = nextPing, now >= due else { return }
        send("WATCHDOG=1")
        nextPing = now + interval
    }

    private func line() -> String {
        parts.withLock { p in
            p.sent = ServiceNotifier.join(p.values)
            return p.sent
        }
    }

    private static func join(_ values: [String: String]) -> String {
        order.compactMap { key in values[key].map { "\(key) \($0)" } }.joined(separator: "; ")
    }

    private func send(_ state: String) {
        _ = sd_notify(0, state)
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// When connections reached a Unix socket's file, from the kernel: connect() sets the file's
/// access time, and on a relatime mount only the first connect after the access time was set
/// back moves it. The loop sets it back (`need`) before it sleeps long, so what a connection
/// accepted after the sleep sent before it was accepted counts from its own connect, not from
/// the sleep's start (docs/decisions.md, "An idle loop sleeps").
final class ConnectTimes {
    /// The file as an arm left it: which file, and its change time (CLOCK_REALTIME ns).
    private struct Armed: Equatable {
        var device: UInt64
        var inode: UInt64
        var changed: Int64
    }

    /// Where it stands between two accepts.
    private enum State {
        /// Not set back since the last accept: the loop's looks date its connections.
        case unarmed
        /// Set back; valid once a look begun at `readyAt` or later found nobody waiting.
        case armed(Armed, readyAt: Int64)
        /// Set back and seen empty after it settled: the access time is the first connect since.
        case valid(Armed)
        /// Not usable here (said once by `took`): the loop's looks date its connections.
        case off
    }

    let path: String
    private var state = State.unarmed
    /// How long after the arm a connect's access time is sure to be later than the change time.
    private let settle: Int64
    /// Why it went off, until `took` has told it.
    private var problem: String?

    /// Set back this long ago, an arm is renewed: the kernel's relatime rule moves an access time a day old.
    static let renewAfter: Int64 = 3_600_000_000_000
    /// An access time this long after the arm is not trusted (it may be a second connect's, a day later).
    static let trustWithin: Int64 = 12 * 3_600_000_000_000

    /// Nil when the file's mount does not keep relatime access times (noatime, strictatime, read-only) or its times cannot be set.
    init?(path: String) {
        var fs = statvfs()
        guard statvfs(path, &fs) == 0 else { return nil }
        let readOnly: UInt = 1, noAccessTimes: UInt = 1024, relative: UInt = 4096  // ST_RDONLY, ST_NOATIME, ST_RELATIME
        guard fs.f_flag & relative != 0, fs.f_flag & (noAccessTimes | readOnly) == 0 else { return nil }
        // The file system's granularity: a time 1 ns short of an hour reads back truncated to it.
        guard ConnectTimes.setTimes(path, seconds: 3599, nanoseconds: 999_999_999), let probe = ConnectTimes.times(path),
              probe.accessed >= 0, probe.accessed <= 3_599_999_999_999 else { return nil }
        let granularity = 3_599_999_999_999 - probe.accessed + 1
        var res = timespec()
        clock_getres(CLOCK_REALTIME_COARSE, &res)
        let tick = Int64(res.tv_sec) * 1_000_000_000 + Int64(res.tv_nsec)
        self.path = path
        settle = granularity + 2 * max(tick, 1_000_000) + 10_000_000
    }

    /// What the loop's sleep must allow for at CLOCK_REALTIME `now`; `quiet`: the loop's last wait found nothing to do.
    func need(at now: Int64, quiet: Bool) -> ListenerNeed {
        switch state {
        case .armed(let armed, _), .valid(let armed):
            // Renewed after an hour, or when the clock was set back past the arm.
            if now < armed.changed || now - armed.changed > ConnectTimes.renewAfter { state = .unarmed }
        case .unarmed, .off:
            break
        }
        switch state {
        case .off:
            return .looks
        case .valid:
            return .nothing
        case .armed(_, let readyAt):
            return .lookAt(readyAt)
        case .unarmed:
            // Set back only when the loop is idle: a busy loop's looks date its connections anyway.
            guard quiet else { return .looks }
            guard let armed = arm() else { return .looks }
            state = .armed(armed, readyAt: armed.changed + settle)
            return .lookAt(armed.changed + settle)
        }
    }

    /// The loop's wait begun at `polled` found nobody waiting on the socket.
    func sawEmpty(at polled: Int64) {
        if case .armed(let armed, let readyAt) = state, polled >= readyAt { state = .valid(armed) }
    }

    /// The first connect since the socket was seen empty after its arm (CLOCK_REALTIME ns, the kernel's coarse clock), nil when it cannot tell.
    func connectedAfter() -> Int64? {
        guard case .valid(let armed) = state else { return nil }
        guard let now = ConnectTimes.times(path), now.armed == armed else {
            stop("its times were changed by someone else (or the file was replaced)")
            return nil
        }
        // 0: nobody connected since the arm (`took` checks that against what was accepted).
        guard now.accessed > armed.changed, now.accessed - armed.changed < ConnectTimes.trustWithin else { return nil }
        return now.accessed
    }

    /// Nobody waits any more, `count` accepted in this turn: set back at the next quiet turn; returns, once, why it went off.
    func took(_ count: Int) -> String? {
        if case .valid(let armed) = state, count > 0, let now = ConnectTimes.times(path), now.armed == armed, now.accessed == 0 {
            stop("connect() did not set its access time")
        }
        if case .off = state {
            defer { problem = nil }
            return problem
        }
        state = .unarmed
        return nil
    }

    /// Sets the access time back to 0 (and the modification time, which relatime also compares).
    private func arm() -> Armed? {
        guard ConnectTimes.setTimes(path, seconds: 0, nanoseconds: 0) else {
            stop("its access time cannot be set: \(String(cString: strerror(errno)))")
            return nil
        }
        guard let now = ConnectTimes.times(path), now.accessed == 0 else {
            stop("its access time did not stay set")
            return nil
        }
        return now.armed
    }

    private func stop(_ why: String) {
        state = .off
        problem = "\(path): \(why)"
    }

    private static func setTimes(_ path: String, seconds: Int, nanoseconds: Int) -> Bool {
        let t = timespec(tv_sec: seconds, tv_nsec: nanoseconds)
        return [t, t].withUnsafeBufferPointer { utimensat(AT_FDCWD, path, $0.baseAddress, 0) } == 0
    }

    /// The file's access time and what identifies an arm, or nil when it cannot be read.
    private static func times(_ path: String) -> (accessed: Int64, armed: Armed)? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        func ns(_ t: timespec) -> Int64 { Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec) }
        return (ns(st.st_atim), Armed(device: UInt64(st.st_dev), inode: UInt64(st.st_ino), changed: ns(st.st_ctim)))
    }
}

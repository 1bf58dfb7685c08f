import CLinux
import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
import Synchronization
#endif

/// Performs button presses on the relay from a thread of its own, so nothing else the daemon
/// does (a slow disk on a table save, a flood of requests) can stretch a press. It sleeps until
/// the absolute end of the press on CLOCK_MONOTONIC, and it never keeps the relay energised
/// longer than one pulse: a press asked for while one is under way is refused. It presses only
/// for a `PressPermit` from the door's gate, and never twice for the same one.
///
/// A guard thread watches every press: should the relay still be energised `guardMargin` after
/// the press was due to end (the relay thread held up), the guard releases it. Any press that
/// lasted longer than that is reported as an overrun (a fault the door records).
final class PulseDriver: DoorDrive, @unchecked Sendable {
    /// A press the caller started: the line set active (or the set's failure) and when.
    private struct Started {
        var permit: PressPermit
        var start: Instant
        var failure: RelayError?
    }

    private struct State {
        var pending: Started?
        var pressing = false
        /// The permits it takes: its door's only, one at a time, none twice.
        var latch: PermitLatch
        /// Set by `shutdown`: no press starts from then on.
        var stopping = false
        /// While the relay is energised: when the guard must release it.
        var guardDeadline: Instant?
        var overran = false
    }

    /// A press left with at most this much to go is completed on shutdown; a longer one is cut.
    static let shutdownGrace: Duration = .milliseconds(500)
    /// How far past its end a press may run before the guard releases the relay.
    static let guardMargin: Duration = .milliseconds(100)
    /// Real-time priority for the relay thread and its guard: they sleep almost always, and
    /// when they wake they must release the relay now, not after whatever else the CPU does.
    static let realtimePriority: Int32 = 50

    private let line: any RelayLine
    /// The relay thread and the guard both drive the line; one at a time.
    private let lineLock = Mutex(())
    private let pulse: Duration
    private let clock: any MonotonicClock
    private let log: Logger
    /// Runs on the relay thread after every press, once the relay is released, with whether the
    /// press overran: the door loop learns that the next press may be decided.
    private let released: @Sendable (_ overran: Bool) -> Void
    private let state: Mutex<State>
    /// The relay thread (it times every release) and the guard (it releases a press the relay
    /// thread overran).
    private let relay: Worker
    private let guardian: Worker
    /// The door whose relay this is (`Door.index`): it presses only that door's permits.
    let door: Int
    /// The door's name on each log line, with several doors.
    private let doorField: [(String, String)]
    /// How long `shutdown` waits for a press under way: one with at most `shutdownGrace` to go is
    /// completed, a longer one is cut.
    static let stopWithin: Duration = .seconds(2)

    init(line: any RelayLine, pulse: Duration, clock: any MonotonicClock, log: Logger, door: Int = 0, name: String? = nil,
         released: @escaping @Sendable (_ overran: Bool) -> Void) {
        self.door = door
        state = Mutex(State(latch: PermitLatch(door: door)))
        doorField = name.map { [("door", $0)] } ?? []
        // Thread names: `relay` for the first door, `relay-2`... for the others.
        let suffix = door == 0 ? "" : "-\(door + 1)"
        relay = Worker("relay" + suffix)
        guardian = Worker("relay-guard" + suffix)
        self.line = line
        self.pulse = pulse
        self.clock = clock
        self.log = log
        self.released = released
    }

    var name: String { relay.name }

    /// Starts the relay thread and its guard.
    func start() {
        relay.start { [self] in run() }
        guardian.start { [self] in guardRelay() }
    }

    /// The relay's drive: every action (open, close, stop) is the same press of the button.
    @inline(__always)
    func carryOut(_ permit: PressPermit) -> Bool { press(permit) }

    /// Starts one press on the caller's thread and returns at once: the line goes active here,
    /// with nothing between the decision and the relay, and the relay thread (real-time
    /// priority) times the release from the moment the set returned. False if a press is
    /// already under way, the driver is stopping, or the permit was used before.
    @discardableResult
    func press(_ permit: PressPermit) -> Bool {
        let refusal = state.withLock { s -> String? in
            if s.stopping { return "garaged is stopping" }
            // Busy from here until the relay thread released the line.
            if let why = s.latch.take(permit) { return why }
            s.pressing = true  // the relay thread leaves the line alone until `pending` is set
            return nil
        }
        if let refusal {
            refused(permit, refusal)
            return false
        }
        let failure = lineLock.withLock { _ -> RelayError? in
            do throws(RelayError) { try line.setActive(true) } catch { return error }
            return nil
        }
        // Timed from when the set returned, so the line is active at least `pulse` long even
        // when setting it is slow (a busy GPIO controller, an emulated CPU).
        let start = clock.now()
        state.withLock {
            $0.pending = Started(permit: permit, start: start, failure: failure)
            if failure == nil { $0.guardDeadline = start + pulse + PulseDriver.guardMargin }
        }
        relay.wake.signal()
        if failure == nil { guardian.wake.signal() }
        return true
    }

    /// Logs a refused permit: out of line, so the lines a press runs through lie together.
    @inline(never)
    private func refused(_ permit: PressPermit, _ why: String) {
        log.warning("press-refused", ["reason": permit.reason.rawValue, "why": why])
    }

    /// Finishes (or cuts short) a press under way, leaves the relay inactive, and returns
    /// once the relay thread has let go of the line.
    func stop() -> Bool {
        state.withLock { $0.stopping = true }
        // Overrunning is logged by the service group; the kernel releases the line at exit.
        let finished = relay.stop(within: PulseDriver.stopWithin)
        guardian.stop(within: .seconds(1))
        return finished
    }

    private func run() {
        let rc = clinux_make_thread_realtime(PulseDriver.realtimePriority)
        if rc != 0 {
            log.warning("relay-priority", ["scheduling": "normal",
                "why": String(cString: strerror(rc)),
                "effect": "presses may stretch by a few ms when the CPU is busy; run as root or grant CAP_SYS_NICE"])
        }
        var fds = [pollfd(fd: relay.wake.fd, events: Int16(POLLIN), revents: 0)]
        while true {
            let next = state.withLock { s -> Started?? in
                if let p = s.pending {
                    s.pending = nil
                    return .some(p)
                }
                // A press being started (pressing, nothing pending yet) is awaited, even when
                // stopping: its line must be released here.
                if s.stopping && !s.pressing { return .some(nil) }
                return nil
            }
            switch next {
            case .none:
                waitFor(&fds, timeout: nil)
                relay.wake.drain()
            case .some(.none):
                finish()
                return
            case .some(.some(let started)):
                let ended = pressOnce(started, fds: &fds)
                let overran = state.withLock { s -> Bool in
                    defer { s.pressing = false; s.latch.release(); s.overran = false }
                    return s.overran
                }
                // The loop hears of the release before the log lines are made: a request that
                // comes once the line is released finds the relay free.
                released(overran)
                if let ended { logRelease(started.permit.reason, ended) }
            }
        }
    }

    /// How a press ended, for its log lines.
    private struct Ended {
        var width: Duration
        var cut: Bool
        var overran: Bool
    }

    /// Holds a started press until its end and releases it; nil when the line never went active.
    private func pressOnce(_ started: Started, fds: inout [pollfd]) -> Ended? {
        let reason = started.permit.reason
        if let failure = started.failure {
            log.error("press-failed", ["reason": reason.rawValue, "error": failure.description])
            release()
            return nil
        }
        let start = started.start
        let end = start + pulse
        log.info("press", doorField + [("reason", reason.rawValue), ("pulse_ms", "\(pulse.nanoseconds / 1_000_000)")])
        var cut = false
        while true {
            let now = clock.now()
            if now >= end { break }
            if state.withLock({ $0.stopping }), end - now > PulseDriver.shutdownGrace {
                cut = true
                break
            }
            waitFor(&fds, timeout: end - now)
            relay.wake.drain()
        }
        release()
        let width = clock.now() - start
        let overran = width > pulse + PulseDriver.guardMargin
        state.withLock {
            $0.guardDeadline = nil
            if overran { $0.overran = true }
        }
        return Ended(width: width, cut: cut, overran: overran)
    }

    /// A released press's log lines: its width, and an overrun if it was held up.
    private func logRelease(_ reason: Door.Press, _ ended: Ended) {
        let width = ended.width.millisecondsText
        log.info("release", doorField + [("reason", reason.rawValue), ("width_ms", width),
                                         ("cut_short", ended.cut ? "yes" : "no")])
        if ended.overran {
            log.error("relay-overrun", ["width_ms": width,
                                        "limit_ms": String((pulse + PulseDriver.guardMargin).nanoseconds / 1_000_000),
                                        "why": "the relay thread was held up (a stopped process, an overloaded CPU)"])
        }
    }

    /// The guard: sleeps until the energised relay's deadline, and releases it then if the
    /// relay thread has not.
    private func guardRelay() {
        _ = clinux_make_thread_realtime(PulseDriver.realtimePriority)
        var fds = [pollfd(fd: guardian.wake.fd, events: Int16(POLLIN), revents: 0)]
        while true {
            // Stopped only after the relay thread has finished: a press is guarded to its end.
            if guardian.stopping { return }
            let deadline = state.withLock { $0.guardDeadline }
            if let deadline, clock.now() >= deadline {
                release()
                state.withLock {
                    if $0.guardDeadline == deadline { $0.guardDeadline = nil; $0.overran = true }
                }
                log.error("relay-guard", ["action": "released the relay", "why": "it was still energised \(PulseDriver.guardMargin.nanoseconds / 1_000_000) ms after the press should have ended"])
                continue
            }
            waitFor(&fds, timeout: deadline.map { $0 - clock.now() })
            guardian.wake.drain()
        }
    }

    /// Never leaves the relay energised: retries once, then says so loudly.
    private func release() {
        lineLock.withLock { _ in
            do throws(RelayError) {
                try line.setActive(false)
            } catch {
                log.error("release-failed", ["error": error.description, "action": "retrying"])
                do throws(RelayError) { try line.setActive(false) } catch {
                    log.error("release-failed", ["error": error.description, "action": "the relay may still be energised; closing the line"])
                }
            }
        }
    }

    private func finish() {
        lineLock.withLock { _ in line.close() }
    }
}

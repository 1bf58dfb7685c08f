import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
import Synchronization
#endif

/// One of garaged's own threads, with the contract every one of them keeps: `start` runs the
/// body on a new OS thread (the blocking loops, poll and precise sleeps, must not sit on Swift's
/// cooperative pool); `stop` sets `stopping`, fires `wake`, and waits until the body has
/// returned, at most `within`. A body waits on `wake.fd` (with its own descriptors) and returns
/// once `stopping` is true, after its own last duties (a press ended, a queue written).
final class Worker: @unchecked Sendable {
    let name: String
    /// Wakes the body's poll: new work for it, or the request to stop.
    let wake: WakeEvent
    private let finished = WakeEvent()
    private let state = Mutex((stopping: false, done: false))

    /// `wake`: one the body already polls (the door loop's inbox), so a stop and new work wake
    /// it through one descriptor.
    init(_ name: String, wake: WakeEvent = WakeEvent()) {
        self.name = name
        self.wake = wake
    }

    /// True once `stop` was called: the body finishes its duties and returns.
    var stopping: Bool { state.withLock { $0.stopping } }

    /// True once the body has returned.
    var done: Bool { state.withLock { $0.done } }

    func start(_ body: @escaping @Sendable () -> Void) {
        startThread(name: name) { [self] in
            body()
            state.withLock { $0.done = true }
            finished.signal()
        }
    }

    /// Asks the body to finish and waits for it; false when it had not finished `within`.
    @discardableResult
    func stop(within: Duration) -> Bool {
        state.withLock { $0.stopping = true }
        wake.signal()
        return join(within: within)
    }

    /// Waits for the body to return without asking it to; false when it had not `within`.
    @discardableResult
    func join(within: Duration) -> Bool {
        let clock = SystemMonotonicClock()
        let deadline = clock.now() + within
        var fds = [pollfd(fd: finished.fd, events: Int16(POLLIN), revents: 0)]
        while !done {
            let left = deadline - clock.now()
            if left <= .zero { return false }
            waitFor(&fds, timeout: left)
            finished.drain()
        }
        return true
    }
}

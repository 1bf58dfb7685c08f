import CLinux
import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// Runs `body` on a new OS thread: the daemon's blocking loops (poll, precise sleeps) must not
/// sit on Swift's cooperative pool, which has one thread per core. Only `Worker` calls it.
@discardableResult
func startThread(name: String, _ body: @escaping @Sendable () -> Void) -> pthread_t {
    final class Box: @unchecked Sendable {
        let body: @Sendable () -> Void
        let name: String
        init(_ name: String, _ body: @escaping @Sendable () -> Void) { self.name = name; self.body = body }
    }
    let box = Unmanaged.passRetained(Box(name, body)).toOpaque()
    var thread = pthread_t()
    let rc = pthread_create(&thread, nil, { raw in
        let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
        clinux_set_thread_name(String(box.name.prefix(15)))
        box.body()
        return nil
    }, box)
    precondition(rc == 0, "pthread_create failed: \(rc)")
    return thread
}

/// A wake-up a blocked `ppoll` can watch: another thread calls `signal`.
final class WakeEvent: @unchecked Sendable {
    let fd: Int32

    init() {
        fd = clinux_eventfd()
        precondition(fd >= 0, "eventfd failed: \(errno)")
    }

    func signal() {
        var one: UInt64 = 1
        _ = write(fd, &one, 8)
    }

    /// Clears pending signals so the next poll blocks again.
    func drain() {
        var value: UInt64 = 0
        _ = read(fd, &value, 8)
    }

    deinit { close(fd) }
}

/// Waits for `fds` until `timeout` (nil: forever); a negative timeout polls without waiting.
@discardableResult
func waitFor(_ fds: inout [pollfd], timeout: Duration?) -> Int32 {
    clinux_ppoll(&fds, UInt(fds.count), timeout.map { max(0, $0.nanoseconds) } ?? -1)
}

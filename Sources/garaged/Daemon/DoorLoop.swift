import CLinux
import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// The book's `loop`, on one thread: it waits in ppoll for requests on every connection (local
/// socket, Bluetooth, the ATT test seam) or for the door's next deadline (travel end,
/// auto-close), hands each request to the controller, sends the replies, and passes presses to
/// the pulse driver. The controller is touched only here, so it needs no locks.
final class DoorLoop: @unchecked Sendable {
    static let maxConnections = 128

    private var controller: Controller
    private let pulser: PulseDriver
    private let clock: any MonotonicClock
    private let log: Logger
    private var listeners: [Int32: Listener] = [:]
    private var connections: [Int32: Connection] = [:]
    private let wake = WakeEvent()
    /// Listeners handed over by other threads (the Bluetooth adapter comes and goes).
    private let pending = Locked((add: [Listener](), remove: [Int32](), stop: false))
    private let finished = WakeEvent()
    private let finishedFlag = Locked(false)

    init(controller: Controller, pulser: PulseDriver, listeners: [Listener],
         clock: any MonotonicClock, log: Logger) {
        self.controller = controller
        self.pulser = pulser
        self.clock = clock
        self.log = log
        for l in listeners { self.listeners[l.fd] = l }
    }

    func start() { startThread(name: "door-loop") { [self] in run() } }

    /// Adds a listener from any thread; the loop closes it when it stops.
    func add(_ listener: Listener) {
        pending.withLock { $0.add.append(listener) }
        wake.signal()
    }

    /// Closes a listener from any thread (its connections stay until their peers leave).
    func remove(listenerFD fd: Int32) {
        pending.withLock { $0.remove.append(fd) }
        wake.signal()
    }

    /// Stops taking requests, closes every connection and listener (removing socket files);
    /// returns when the loop has finished.
    func stop() {
        pending.withLock { $0.stop = true }
        wake.signal()
        var fds = [pollfd(fd: finished.fd, events: Int16(POLLIN), revents: 0)]
        while !finishedFlag.withLock({ $0 }) { waitFor(&fds, timeout: .seconds(1)) }
    }

    private func run() {
        while takePending() {
            var fds = [pollfd(fd: wake.fd, events: Int16(POLLIN), revents: 0)]
            for fd in listeners.keys { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
            for c in connections.values {
                fds.append(pollfd(fd: c.fd, events: Int16(POLLIN) | (c.wantsWrite ? Int16(POLLOUT) : 0), revents: 0))
            }
            if waitFor(&fds, timeout: controller.door.nextDeadline.map { $0 - clock.now() }) < 0 && errno != EINTR {
                log.error("poll-failed", ["error": String(cString: strerror(errno))])
            }
            wake.drain()
            runDoorEvents(controller.tick(at: clock.now()))
            for pfd in fds where pfd.revents != 0 && pfd.fd != wake.fd {
                if let listener = listeners[pfd.fd] {
                    acceptConnections(from: listener)
                    continue
                }
                guard let connection = connections[pfd.fd] else { continue }
                if pfd.revents & Int16(POLLOUT) != 0 { connection.flush() }
                if pfd.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { serve(connection) }
                if connection.closing { drop(connection) }
            }
        }
        for c in Array(connections.values) { drop(c) }
        for l in listeners.values { l.close() }
        finishedFlag.withLock { $0 = true }
        finished.signal()
    }

    /// Applies listener changes from other threads; false once the loop should stop.
    private func takePending() -> Bool {
        let (add, remove, stop) = pending.withLock { p -> ([Listener], [Int32], Bool) in
            defer { p.add.removeAll(); p.remove.removeAll() }
            return (p.add, p.remove, p.stop)
        }
        for l in add { listeners[l.fd] = l }
        for fd in remove { listeners.removeValue(forKey: fd)?.close() }
        return !stop
    }

    /// Accepts every waiting connection. When the loop is full, the connection that has been
    /// silent longest makes room (a throttled one before one of the owner's), so idle
    /// connections can never shut the owner out.
    private func acceptConnections(from listener: Listener) {
        while let connection = listener.accept(at: clock.now()) {
            if connections.count >= DoorLoop.maxConnections, let victim = connections.values.min(by: {
                ($0.source.throttled ? 0 : 1, $0.lastHeard) < ($1.source.throttled ? 0 : 1, $1.lastHeard)
            }) {
                log.warning("connection-evicted", ["source": victim.source.description,
                                                   "why": "\(DoorLoop.maxConnections) connections open; this one was the idlest"])
                drop(victim)
            }
            connections[connection.fd] = connection
        }
    }

    private func serve(_ connection: Connection) {
        guard let incoming = connection.receive() else {
            drop(connection)
            return
        }
        if !incoming.isEmpty { connection.lastHeard = clock.now() }
        for item in incoming where !connection.closing {
            switch item {
            case .refused(let reply, let why):
                log.info("request", ["source": connection.source.description, "result": reply.text, "why": why])
                connection.deliver([reply])
            case .request(let bytes):
                connection.deliver(handle(bytes, from: connection.source))
            }
        }
    }

    /// Judges one request and performs what it asks; returns its replies.
    private func handle(_ request: [UInt8], from source: RequestSource) -> [Reply] {
        let outcome = controller.handle(request, from: source, at: clock.now())
        runDoorEvents(outcome.doorEvents)
        log.info("request", ["source": source.description, "command": outcome.command ?? "?",
                             "slot": outcome.slot.map { String($0) } ?? "-", "result": outcome.result.text])
        if let lock = outcome.lockout {
            log.warning("lockout", ["source": source.description, "seconds": String(lock.secondsRoundedUp),
                                    "failures": String(controller.throttle.failures)])
        }
        if let press = outcome.press { pulser.press(press) }
        return outcome.replies
    }

    private func runDoorEvents(_ events: [Door.Event]) {
        for event in events {
            switch event {
            case .arrived(let position):
                log.info("door", ["state": position.rawValue])
            case .pressed(let press):
                log.info("auto-close", ["after_s": controller.door.timing.autoClose.map { String($0.secondsRoundedUp) } ?? "-"])
                pulser.press(press)
            }
        }
    }

    private func drop(_ connection: Connection) {
        if let why = connection.closeReason {
            log.warning("connection-dropped", ["source": connection.source.description, "why": why])
        }
        connection.close()
        connections[connection.fd] = nil
    }
}

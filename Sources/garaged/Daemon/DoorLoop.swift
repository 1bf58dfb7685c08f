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
    /// Followers (`status --follow`, `log --follow`) have their own limit and never take a
    /// place an owner's request needs.
    static let maxFollowers = 16

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
    /// The history as `log` answers it; the writer makes each record durable.
    private var history: EventHistory
    private let events: EventWriter?
    /// The last status pushed to followers, so only changes are pushed.
    private var lastStatusKey = ""
    private var stopReason = "stopped"

    init(controller: Controller, pulser: PulseDriver, listeners: [Listener],
         clock: any MonotonicClock, log: Logger, history: EventHistory = EventHistory(),
         events: EventWriter? = nil) {
        self.controller = controller
        self.pulser = pulser
        self.clock = clock
        self.log = log
        self.history = history
        self.events = events
        for l in listeners { self.listeners[l.fd] = l }
    }

    /// Adds a record to the history and the event file, and pushes it to log followers.
    /// Only the loop's thread calls it once the loop runs (before, the thread that starts it).
    func record(_ kind: EventRecord.Kind, source: String, slot: Int? = nil, label: String? = nil,
                detail: String? = nil) {
        record(EventRecord(time: EventRecord.now(), kind: kind, source: source, slot: slot, label: label, detail: detail))
    }

    private func record(_ r: EventRecord) {
        history.append(r)
        events?.enqueue(r)
        for c in followers(of: .log) { c.deliver([.record(r.json)]) }
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
    func stop(reason: String) {
        stopReason = reason
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
            pushStatusIfChanged()
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
            pushStatusIfChanged()
            for c in Array(connections.values) where c.closing { drop(c) }
        }
        record(.stop, source: "garaged", detail: stopReason)
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
            let requesters = connections.values.filter { !isFollower($0) }
            if requesters.count >= DoorLoop.maxConnections, let victim = requesters.min(by: {
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
                connection.deliver(handle(bytes, from: connection))
            }
        }
    }

    /// Judges one request and performs what it asks; returns its replies.
    private func handle(_ request: [UInt8], from connection: Connection) -> [Reply] {
        let source = connection.source
        let labelsBefore = controller.labels
        let outcome = controller.handle(request, from: source, at: clock.now())
        runDoorEvents(outcome.doorEvents)
        log.info("request", ["source": source.description, "command": outcome.command ?? "?",
                             "slot": outcome.slot.map { String($0) } ?? "-", "result": outcome.result.text])
        if let press = outcome.press { pulser.press(press) }
        if let lock = outcome.lockout {
            log.warning("lockout", ["source": source.description, "seconds": String(lock.secondsRoundedUp),
                                    "failures": String(controller.throttle.failures)])
        }
        for event in outcome.events(source: source.description, at: EventRecord.now(), labelsBefore: labelsBefore,
                                    labelsAfter: controller.labels, failures: controller.throttle.failures) {
            record(event)
        }
        switch outcome.query {
        case .log(let since):
            let records = history.since(since)
            return records.map { .record($0.json) } + [.listed(count: records.count)]
        case .follow(let topic, let since):
            guard let client = connection as? LocalClient else { return [.error(.command)] }
            guard connections.values.filter(isFollower).count < DoorLoop.maxFollowers else {
                log.warning("follow-refused", ["source": source.description, "why": "\(DoorLoop.maxFollowers) followers already"])
                return [.error(.full)]
            }
            client.follow(topic)
            if topic == .status { return [.ok, .record(controller.statusRecord(at: clock.now()))] }
            return [.ok] + (since.map { history.since($0).map { Reply.record($0.json) } } ?? [])
        case nil:
            return outcome.replies
        }
    }

    private func isFollower(_ c: Connection) -> Bool { (c as? LocalClient)?.following != nil }

    private func followers(of topic: LocalCommand.FollowTopic) -> [LocalClient] {
        connections.values.compactMap { $0 as? LocalClient }.filter { $0.following == topic }
    }

    /// Pushes the status to status followers when the door, the lockout or the count of wrong
    /// PINs changed (not on every second of a countdown).
    private func pushStatusIfChanged() {
        let now = clock.now()
        let key = "\(controller.door.position) \(controller.throttle.remainingLock(at: now) != nil) \(controller.throttle.failures)"
        guard key != lastStatusKey else { return }
        lastStatusKey = key
        let followers = followers(of: .status)
        guard !followers.isEmpty else { return }
        let status = controller.statusRecord(at: now)
        for c in followers { c.deliver([.record(status)]) }
    }

    private func runDoorEvents(_ events: [Door.Event]) {
        for event in events {
            switch event {
            case .arrived(let position):
                log.info("door", ["state": position.rawValue])
            case .pressed(let press):
                let after = controller.door.timing.autoClose.map { String($0.secondsRoundedUp) } ?? "-"
                log.info("auto-close", ["after_s": after])
                pulser.press(press)
                record(.autoClose, source: "garaged", detail: "pressed after \(after) s open")
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

import CLinux
import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// The book's `loop`, on one thread: it waits in ppoll for requests on every connection (local
/// socket, Bluetooth, the ATT test seam) or for the next deadline (travel end, auto-close, a
/// burst to summarise), hands each request to the controller, passes presses to the pulse
/// driver first and then sends the replies, logs and records. The controller is touched only
/// here, so it needs no locks.
final class DoorLoop: @unchecked Sendable {
    /// Connections that send requests, at most (followers are counted apart); fewer when the
    /// process may open fewer descriptors (`connectionLimit`).
    static let maxConnections = 128
    /// Followers (`status --follow`, `log --follow`) of users other than the owner: they never
    /// take a place an owner's request or follower needs.
    static let maxFollowers = 16
    /// The owner's own followers, at most.
    static let maxOwnerFollowers = 64
    /// Descriptors left free below the process's limit for what the daemon opens itself (table
    /// saves, event files, Bluetooth sockets).
    static let reservedDescriptors = 12
    /// How long a listener is left alone after accept failed for want of descriptors (the
    /// connection waits in the kernel; polling again at once would spin).
    static let acceptPause: Duration = .milliseconds(250)

    private var controller: Controller
    private let pulser: PulseDriver
    private let clock: any MonotonicClock
    private let log: Logger
    private var listeners: [Int32: Listener] = [:]
    private var connections: [Int32: Connection] = [:]
    /// Requesting connections allowed at once, from the descriptor limit at start.
    let connectionLimit: Int
    /// A descriptor on /dev/null, given up for a moment to accept a connection when the process
    /// is out of descriptors, so the owner can always get in (the idlest connection makes room).
    private var spareFD: Int32 = -1
    private var pausedListeners: [Int32: Instant] = [:]
    private let wake = WakeEvent()
    /// Listeners handed over by other threads (the Bluetooth adapter comes and goes), and the
    /// relay thread's reports of presses released.
    private let pending = Locked((add: [Listener](), remove: [Int32](), released: 0, stop: false))
    private let finished = WakeEvent()
    private let finishedFlag = Locked(false)
    /// The history as `log` answers it; the writer makes each record durable.
    private var history: EventLog
    private let events: EventWriter?
    /// Attempts (wrong PINs, refusals) are recorded once per burst, with a count.
    private var eventBursts = BurstCounter<String, EventRecord>()
    /// Log lines anyone can cause at will (requests that changed nothing, evictions) are
    /// logged once per burst, with a count.
    private var logBursts = BurstCounter<String, LogLine>()
    /// The last status pushed to followers, so only changes are pushed.
    private var lastStatusKey = ""
    private var stopReason = "stopped"

    /// What a burst of the same log line is summarised as: its event and the fields that say
    /// which line it was.
    struct LogLine: Sendable {
        var event: String
        var fields: [(String, String)]
    }

    init(controller: Controller, pulser: PulseDriver, listeners: [Listener],
         clock: any MonotonicClock, log: Logger, history: EventLog = EventLog(),
         events: EventWriter? = nil) {
        self.controller = controller
        self.pulser = pulser
        self.clock = clock
        self.log = log
        self.history = history
        self.events = events
        for l in listeners { self.listeners[l.fd] = l }
        spareFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let limit = clinux_fd_limit(), open = Int(clinux_open_fd_count())
        connectionLimit = limit < 0 || open < 0 ? DoorLoop.maxConnections
            : max(2, min(DoorLoop.maxConnections, Int(limit) - open - DoorLoop.reservedDescriptors))
        pulser.onRelease { [weak self] in self?.relayReleased() }
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

    /// Called by the relay thread when a press has ended: the door may decide the next one.
    private func relayReleased() {
        pending.withLock { $0.released += 1 }
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
            let now = clock.now()
            pausedListeners = pausedListeners.filter { $0.value > now }
            for fd in listeners.keys where pausedListeners[fd] == nil {
                fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0))
            }
            for c in connections.values {
                fds.append(pollfd(fd: c.fd, events: Int16(POLLIN) | (c.wantsWrite ? Int16(POLLOUT) : 0), revents: 0))
            }
            if waitFor(&fds, timeout: nextDeadline().map { $0 - now }) < 0 && errno != EINTR {
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
            summariseBursts(logBursts.due(at: clock.now()), eventBursts.due(at: clock.now()))
            pushStatusIfChanged()
            for c in Array(connections.values) where c.closing { drop(c) }
        }
        summariseBursts(logBursts.flush(), eventBursts.flush())
        record(.stop, source: "garaged", detail: stopReason)
        for c in Array(connections.values) { drop(c) }
        for l in listeners.values { l.close() }
        if spareFD >= 0 { close(spareFD) }
        finishedFlag.withLock { $0 = true }
        finished.signal()
    }

    /// The earliest of the door's next event, a burst to summarise and a paused listener.
    private func nextDeadline() -> Instant? {
        [controller.door.nextDeadline, eventBursts.nextDeadline, logBursts.nextDeadline,
         pausedListeners.values.min()].compactMap { $0 }.min()
    }

    /// Applies what other threads handed over; false once the loop should stop.
    private func takePending() -> Bool {
        let (add, remove, released, stop) = pending.withLock { p -> ([Listener], [Int32], Int, Bool) in
            defer { p.add.removeAll(); p.remove.removeAll(); p.released = 0 }
            return (p.add, p.remove, p.released, p.stop)
        }
        for l in add { listeners[l.fd] = l }
        for fd in remove {
            listeners.removeValue(forKey: fd)?.close()
            pausedListeners[fd] = nil
        }
        if released > 0 { runDoorEvents(controller.relayReleased(at: clock.now())) }
        return !stop
    }

    // MARK: - Connections

    /// Accepts every waiting connection. When the loop is full, the connection that has been
    /// silent longest makes room (a throttled one before one of the owner's), so idle
    /// connections can never shut the owner out; out of descriptors, the spare one is used.
    private func acceptConnections(from listener: Listener) {
        while true {
            let connection: Connection?
            do {
                connection = try listener.accept(at: clock.now())
            } catch let failure where failure.outOfDescriptors {
                guard acceptWithSpare(listener) else { return }
                continue
            } catch {
                log.error("accept-failed", ["listener": listener.description, "error": String(cString: strerror(error.errno)),
                                            "action": "trying again in \(DoorLoop.acceptPause.nanoseconds / 1_000_000) ms"])
                pausedListeners[listener.fd] = clock.now() + DoorLoop.acceptPause
                return
            }
            guard let connection else { return }
            makeRoom()
            connections[connection.fd] = connection
        }
    }

    /// Out of descriptors: gives up the spare to take the waiting connection, makes room by
    /// dropping the idlest, and takes the spare back. False (the listener pauses) when even
    /// that fails.
    private func acceptWithSpare(_ listener: Listener) -> Bool {
        if spareFD >= 0 { close(spareFD); spareFD = -1 }
        let connection = try? listener.accept(at: clock.now())
        if let connection {
            makeRoom(evictingAtLeastOne: true)
            connections[connection.fd] = connection
        }
        spareFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
        if connection == nil || spareFD < 0 {
            log.warning("out-of-descriptors", ["listener": listener.description, "connections": String(connections.count),
                                               "action": "new connections wait \(DoorLoop.acceptPause.nanoseconds / 1_000_000) ms; raise LimitNOFILE"])
            pausedListeners[listener.fd] = clock.now() + DoorLoop.acceptPause
            return false
        }
        return true
    }

    /// Drops the idlest requesting connection (a throttled one before one of the owner's)
    /// while the loop is full, or at least one when asked to.
    private func makeRoom(evictingAtLeastOne: Bool = false) {
        let requesters = connections.values.filter { !isFollower($0) }
        guard requesters.count >= connectionLimit || evictingAtLeastOne, let victim = requesters.min(by: {
            ($0.source.isOwner ? 1 : 0, $0.lastHeard) < ($1.source.isOwner ? 1 : 0, $1.lastHeard)
        }) else { return }
        if logBursts.note("evicted", LogLine(event: "connection-evicted", fields: []), at: clock.now()) {
            log.warning("connection-evicted", ["source": victim.source.description,
                                               "why": "\(requesters.count) connections open (at most \(connectionLimit)); this one was the idlest"])
        }
        drop(victim)
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
                logRequest(connection.source, command: "?", result: reply, changed: false, extra: [("why", why)])
                connection.deliver([reply])
            case .request(let bytes, let receivedAt):
                connection.deliver(handle(bytes, receivedAt: receivedAt, from: connection))
            }
        }
    }

    private func drop(_ connection: Connection) {
        if let why = connection.closeReason {
            log.warning("connection-dropped", ["source": connection.source.description, "why": why])
        }
        connection.close()
        connections[connection.fd] = nil
        pausedListeners.removeAll()  // a descriptor is free again
    }

    // MARK: - Requests

    /// Judges one request and performs what it asks (the press first); returns its replies.
    private func handle(_ request: [UInt8], receivedAt: Int64, from connection: Connection) -> [Reply] {
        let source = connection.source
        let labelsBefore = controller.labels
        let outcome = controller.handle(request, from: source, at: clock.now(), age: PacketSocket.age(of: receivedAt))
        runDoorEvents(outcome.doorEvents)
        if let p = outcome.press { press(p) }
        var extra: [(String, String)] = []
        if let why = outcome.refusal { extra.append(("why", why)) }
        if let error = outcome.storeError { extra.append(("error", error)) }
        logRequest(source, command: outcome.command ?? "?", slot: outcome.slot, result: outcome.result,
                   changed: outcome.changedSomething, extra: extra)
        if let lock = outcome.lockout {
            log.warning("lockout", ["source": source.description, "seconds": String(lock.duration.secondsRoundedUp),
                                    "failures": String(lock.failures)])
        }
        for event in outcome.events(source: source.description, at: EventRecord.now(), labelsBefore: labelsBefore,
                                    labelsAfter: controller.labels) {
            if event.importance == .kept || eventBursts.note("\(event.kind) \(source.summaryKey) \(event.slot ?? -1)", event, at: clock.now()) {
                record(event)
            }
        }
        switch outcome.query {
        case .log(let since):
            let records = history.since(since)
            return records.map { .record($0.json) } + [.listed(count: records.count)]
        case .follow(let topic, let since):
            guard let client = connection as? LocalClient else { return [.error(.command)] }
            let limit = source.isOwner ? DoorLoop.maxOwnerFollowers : DoorLoop.maxFollowers
            let same = connections.values.filter { isFollower($0) && $0.source.isOwner == source.isOwner }.count
            guard same < limit else {
                log.warning("follow-refused", ["source": source.description,
                                               "why": "\(same) \(source.isOwner ? "owner's" : "other users'") followers already (at most \(limit))"])
                return [.error(.limit)]
            }
            client.follow(topic)
            if topic == .status { return [.ok, .record(controller.statusRecord(at: clock.now()))] }
            return [.ok] + (since.map { history.since($0).map { Reply.record($0.json) } } ?? [])
        case nil:
            return outcome.replies
        }
    }

    /// Logs a request: in full when it changed something, otherwise once per burst of the same
    /// (source, command, result), whose count is logged when it ends.
    private func logRequest(_ source: RequestSource, command: String, slot: Int? = nil, result: Reply, changed: Bool,
                            extra: [(String, String)] = []) {
        let resultText: String
        if case .locked = result { resultText = "ERR LOCKED" } else { resultText = result.text }
        if !changed {
            let line = LogLine(event: "request", fields: [("source", source.summaryKey), ("command", command), ("result", resultText)])
            guard logBursts.note("request \(source.summaryKey) \(command) \(resultText)", line, at: clock.now()) else { return }
        }
        var fields: [(String, String)] = [("source", source.description), ("command", command),
                                          ("slot", slot.map { String($0) } ?? "-"), ("result", result.text)]
        fields += extra
        log.info("request", fields)
    }

    /// Logs and records the counts of bursts that ended (or ran a whole span).
    private func summariseBursts(_ lines: [BurstCounter<String, LogLine>.Summary],
                                 _ attempts: [BurstCounter<String, EventRecord>.Summary]) {
        for s in lines {
            log.info(s.first.event + "-repeats", s.first.fields + [("more", String(s.folded)),
                                                                  ("over_s", String((s.to - s.from).secondsRoundedUp))])
        }
        for s in attempts {
            var r = s.first
            r.time = EventRecord.now()
            r.count = s.folded
            r.spanSeconds = (s.to - s.from).secondsRoundedUp
            record(r)
        }
    }

    private func isFollower(_ c: Connection) -> Bool { (c as? LocalClient)?.following != nil }

    private func followers(of topic: LocalCommand.FollowTopic) -> [LocalClient] {
        connections.values.compactMap { $0 as? LocalClient }.filter { $0.following == topic }
    }

    /// Pushes the status to status followers when the door, a lockout or a count of wrong
    /// PINs changed (not on every second of a countdown).
    private func pushStatusIfChanged() {
        let now = clock.now()
        let lockouts = Throttle.Channel.allCases.map {
            "\(controller.throttle.remainingLock($0, at: now) != nil)/\(controller.throttle.budget($0, at: now).failures)"
        }
        let key = "\(controller.door.position) \(lockouts)"
        guard key != lastStatusKey else { return }
        lastStatusKey = key
        let followers = followers(of: .status)
        guard !followers.isEmpty else { return }
        let status = controller.statusRecord(at: now)
        for c in followers { c.deliver([.record(status)]) }
    }

    // MARK: - The door

    /// Hands a press the door decided to the relay thread. It cannot be refused, since the door
    /// decides no press before the last one was released; if it is (a bug), the door is told
    /// at once so it never waits for a release that will not come.
    private func press(_ press: Door.Press) {
        guard pulser.press(press) else {
            log.error("press-refused", ["reason": press.rawValue, "why": "the relay thread was still pressing or stopping"])
            runDoorEvents(controller.relayReleased(at: clock.now()))
            return
        }
    }

    private func runDoorEvents(_ events: [Door.Event]) {
        for event in events {
            switch event {
            case .arrived(let position):
                log.info("door", ["state": position.rawValue])
            case .pressed(let p):
                press(p)
                let after = controller.door.timing.autoClose.map { String($0.secondsRoundedUp) } ?? "-"
                log.info("auto-close", ["after_s": after])
                record(.autoClose, source: "garaged", detail: "pressed after \(after) s open")
            }
        }
    }
}

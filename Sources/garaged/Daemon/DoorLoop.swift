import CLinux
import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
import Synchronization
#endif

/// The book's `loop`, on one thread: it waits in ppoll for requests on every connection (local
/// socket, Bluetooth, the ATT test seam), for the door's switches, or for the next deadline,
/// hands each to the controller, and carries out what it decided (presses first, then the
/// outputs, replies, log, history and what phones are told). The controller is touched only
/// here, so it needs no locks. Connections are in `DoorLoop+Connections.swift`, requests in
/// `DoorLoop+Requests.swift`, the door's side in `DoorLoop+Door.swift`.
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

    var controller: Controller
    let pulser: PulseDriver
    let outputs: DoorOutputs
    let switches: [any SwitchInput]
    let clock: any MonotonicClock
    let log: Logger
    var listeners: [Int32: Listener] = [:]
    var connections: [Int32: Connection] = [:]
    /// Requesting connections allowed at once, from the descriptor limit at start.
    let connectionLimit: Int
    /// A descriptor on /dev/null, given up for a moment to accept a connection when the process
    /// is out of descriptors, so the owner can always get in (the idlest connection makes room).
    var spareFD: Int32 = -1
    var pausedListeners: [Int32: Instant] = [:]
    /// The loop's thread; other threads hand work over through `worker.wake`.
    let worker = Worker("door-loop")
    var wake: WakeEvent { worker.wake }
    /// How long `stop` waits for the loop to answer what it took and close its connections.
    static let stopWithin: Duration = .seconds(5)
    /// Listeners handed over by other threads (the Bluetooth adapter comes and goes), and the
    /// relay thread's reports of presses released or overrun.
    let pending = Mutex(Handover())
    /// What other threads hand the loop, taken at the top of each turn.
    struct Handover {
        var add: [Listener] = []
        var remove: [Int32] = []
        var released = 0
        var overruns = 0
        var commands: [(Controller.ChannelCommand, Instant)] = []
        var pairingReports: [PairingWindow.Report] = []
    }
    /// The history as `log` answers it; the writer makes each record durable.
    var history: EventLog
    let events: EventWriter?
    /// Attempts (wrong PINs, refusals) are recorded once per burst, with a count.
    var eventBursts = BurstCounter<String, EventRecord>()
    /// Log lines anyone can cause at will (requests that changed nothing, evictions) are
    /// logged once per burst, with a count.
    var logBursts = BurstCounter<String, LogLine>()
    /// The last status pushed to followers, so only changes are pushed.
    var lastStatusKey: StatusKey?
    /// What phones are to be told once the current request is answered.
    var pendingPushes: [Reply] = []
    /// Home Assistant over MQTT, when configured (set before `start`).
    var mqtt: MQTTChannel?
    /// systemd's view of garaged (readiness, status, watchdog); set before `start`.
    var notifier: ServiceNotifier?
    /// The Bluetooth pairing agent, with `--ble-security paired` (set before `start`).
    var pairing: PairingAgent?
    /// Who last opened the door (a label, never a PIN), for Home Assistant.
    var lastOpenedBy = "nobody yet"
    private var stopReason = "stopped"

    /// What a burst of the same log line is summarised as: its event and the fields that say
    /// which line it was.
    struct LogLine: Sendable {
        var event: String
        var fields: [(String, String)]
    }

    init(controller: Controller, pulser: PulseDriver, outputs: DoorOutputs = DoorOutputs(), switches: [any SwitchInput] = [],
         listeners: [Listener], clock: any MonotonicClock, log: Logger, history: EventLog = EventLog(),
         events: EventWriter? = nil) {
        self.controller = controller
        self.pulser = pulser
        self.outputs = outputs
        self.switches = switches
        self.clock = clock
        self.log = log
        self.history = history
        self.events = events
        for l in listeners { self.listeners[l.fd] = l }
        spareFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let limit = clinux_fd_limit(), open = Int(clinux_open_fd_count())
        connectionLimit = limit < 0 || open < 0 ? DoorLoop.maxConnections
            : max(2, min(DoorLoop.maxConnections, Int(limit) - open - DoorLoop.reservedDescriptors))
        pulser.onRelease { [weak self] overran in self?.relayReleased(overran: overran) }
    }

    func start() { worker.start { [self] in run() } }

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

    /// A command from Home Assistant, from the MQTT thread, stamped with when it arrived.
    func mqttCommand(_ command: Controller.ChannelCommand, receivedAt: Instant) {
        pending.withLock { $0.commands.append((command, receivedAt)) }
        wake.signal()
    }

    /// Called by the relay thread when a press has ended: the door may decide the next one.
    private func relayReleased(overran: Bool) {
        pending.withLock {
            $0.released += 1
            if overran { $0.overruns += 1 }
        }
        wake.signal()
    }

    /// Stops taking requests, closes every connection and listener (removing socket files);
    /// returns when the loop has finished.
    func stop(reason: String) {
        stopReason = reason
        if !worker.stop(within: DoorLoop.stopWithin) {
            log.error("stop-slow", ["worker": worker.name, "within_s": String(DoorLoop.stopWithin.secondsRoundedUp)])
        }
    }

    private func run() {
        // Listeners already accept (their sockets listen) and the relay is held at rest.
        updateServiceStatus()
        notifier?.ready(at: clock.now())
        while takePending() {
            var fds = [pollfd(fd: wake.fd, events: Int16(POLLIN), revents: 0)]
            let now = clock.now()
            pausedListeners = pausedListeners.filter { $0.value > now }
            for s in switches { fds.append(pollfd(fd: s.fd, events: Int16(POLLIN), revents: 0)) }
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
            for pfd in fds where pfd.revents != 0 {
                if let s = switches.first(where: { $0.fd == pfd.fd }) { readSwitch(s) }
            }
            carryOut(controller.tick(at: clock.now(), wall: EventRecord.now()))
            // Requests before anything that can wait: a press goes out first.
            for pfd in fds where pfd.revents != 0 && pfd.fd != wake.fd {
                if let listener = listeners[pfd.fd] {
                    acceptConnections(from: listener)
                    continue
                }
                guard let connection = connections[pfd.fd] else { continue }
                if pfd.revents & Int16(POLLOUT) != 0 { connection.flush() }
                if pfd.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                    serve(connection, hungUp: pfd.revents & Int16(POLLHUP) != 0)
                }
                if connection.closing { drop(connection) }
            }
            summariseBursts(logBursts.due(at: clock.now()), eventBursts.due(at: clock.now()))
            flushPushes()
            pushStatusIfChanged()
            publishToHomeAssistant()
            for c in Array(connections.values) where c.closing { drop(c) }
            // Only a loop that has come round again says it is alive.
            notifier?.alive(at: clock.now())
        }
        summariseBursts(logBursts.flush(), eventBursts.flush())
        record(EventRecord(time: EventRecord.now(), kind: .stop, source: "garaged", detail: stopReason))
        for c in Array(connections.values) { drop(c) }
        for l in listeners.values { l.close() }
        if spareFD >= 0 { close(spareFD) }
    }

    /// The earliest of the door's next event, a burst to summarise, a paused listener and the
    /// watchdog's next ping.
    private func nextDeadline() -> Instant? {
        [controller.door.nextDeadline, eventBursts.nextDeadline, logBursts.nextDeadline,
         pausedListeners.values.min(), notifier?.nextDeadline].compactMap { $0 }.min()
    }

    /// Applies what other threads handed over; false once the loop should stop.
    private func takePending() -> Bool {
        let p = pending.withLock { p -> Handover in
            defer { p = Handover() }
            return p
        }
        for l in p.add { listeners[l.fd] = l }
        for fd in p.remove {
            listeners.removeValue(forKey: fd)?.close()
            pausedListeners[fd] = nil
        }
        if p.overruns > 0 { carryOut(controller.relayFault(at: clock.now(), wall: EventRecord.now())) }
        if p.released > 0 { carryOut(controller.relayReleased(at: clock.now(), wall: EventRecord.now())) }
        for (command, receivedAt) in p.commands { handle(command, receivedAt: receivedAt) }
        for report in p.pairingReports { tell(report) }
        return !worker.stopping
    }
}

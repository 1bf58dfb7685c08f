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
final class DoorLoop: Service, @unchecked Sendable {
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
    /// Each door's relay, outputs and switches, by `Door.index`.
    let doors: [DoorParts]
    let clock: any MonotonicClock
    let log: Logger
    var listeners: [Int32: any Listener] = [:]
    var connections: [Int32: Connection] = [:]
    /// Requesting connections allowed at once, from the descriptor limit at start.
    let connectionLimit: Int
    /// A descriptor on /dev/null, given up for a moment to accept a connection when the process
    /// is out of descriptors, so the owner can always get in (the idlest connection makes room).
    var spareFD: Int32 = -1
    var pausedListeners: [Int32: Instant] = [:]
    /// When each listener was last seen with nobody waiting (CLOCK_REALTIME ns): a connection
    /// accepted from it arrived after that, and so did what it sent before it was accepted.
    var listenerMarks: [Int32: Int64] = [:]
    /// When the daemon began to start, before any listener existed (CLOCK_REALTIME ns): the
    /// mark of a listener not yet polled.
    let startedAt: Int64
    /// The longest wait while a socket's requests count from its empty mark (`sleepLimit`): it is
    /// looked at this often, so the mark is never older unless the loop itself was held up (and
    /// then what waited is stale).
    static let longestWait: Duration = .milliseconds(500)
    /// The longest wait when nothing needs the loop's looks (the doors' deadlines and the
    /// watchdog aside): an hour, so the socket files' arms are renewed (`ConnectTimes`).
    static let longestSleep: Duration = .seconds(3600)
    /// True when the last wait ended with no descriptor ready: a listener may prepare to sleep.
    var quiet = false
    /// The loop's thread; `stop` and the other threads' hand-overs wake it through the
    /// inbox's one wake-up.
    let worker: Worker
    /// How long `stop` waits for the loop to answer what it took and close its connections.
    static let stopWithin: Duration = .seconds(5)
    /// What the other threads hand over: listeners, the relay's releases, commands, reports,
    /// the channels' states.
    let inbox: LoopInbox
    /// The audiences besides the connections: systemd's status line, Home Assistant, HomeKit.
    let subscribers: [any DoorSubscriber]
    /// The snapshot as last told to every audience, and how each channel last said it stands.
    var lastSnapshot: StatusSnapshot?
    var channels: [String: ChannelStatus] = [:]
    /// The history as `log` answers it; the writer makes each record durable.
    var history: EventLog
    let events: EventWriter?
    /// Attempts (wrong PINs, refusals) are recorded once per burst, with a count.
    var eventBursts = BurstCounter<String, EventRecord>()
    /// Log lines anyone can cause at will (requests that changed nothing, evictions) are
    /// logged once per burst, with a count.
    var logBursts = BurstCounter<String, LogLine>()
    /// systemd's view of garaged: readiness and the watchdog (it also subscribes to the status).
    let notifier: ServiceNotifier?
    /// The parts that answer the owner's commands about themselves: the Bluetooth pairing
    /// agent (`--ble-security paired`), the HomeKit accessory (`--homekit`).
    let owners: [any OwnerCommands]
    /// Connections dropped so far: a turn that dropped none needs no check that the one it
    /// polled is still there.
    var dropped = 0
    /// The descriptor of the stranger served last: the next turn's strangers are served from
    /// the one after it (`serveStrangers`).
    var lastStranger: Int32 = -1
    /// What the history's stop record says (the signal); set before `stop`.
    var stopReason = "stopped"

    /// What a burst of the same log line is summarised as: its event and the fields that say
    /// which line it was.
    struct LogLine: Sendable {
        var event: String
        var fields: [(String, String)]
    }

    init(controller: Controller, doors: [DoorParts], listeners: [any Listener], inbox: LoopInbox, subscribers: [any DoorSubscriber] = [], notifier: ServiceNotifier? = nil,
         owners: [any OwnerCommands] = [], clock: any MonotonicClock, log: Logger, history: EventLog = EventLog(),
         events: EventWriter? = nil, startedAt: Int64 = PacketSocket.realtimeNow()) {
        self.startedAt = startedAt
        self.controller = controller
        self.doors = doors
        self.inbox = inbox
        worker = Worker("door-loop", wake: inbox.wake)
        self.subscribers = subscribers
        self.notifier = notifier
        self.owners = owners
        self.clock = clock
        self.log = log
        self.history = history
        self.events = events
        for l in listeners { self.listeners[l.fd] = l }
        spareFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let limit = clinux_fd_limit(), open = Int(clinux_open_fd_count())
        connectionLimit = limit < 0 || open < 0 ? DoorLoop.maxConnections
            : max(2, min(DoorLoop.maxConnections, Int(limit) - open - DoorLoop.reservedDescriptors))
    }

    func start() { worker.start { [self] in run() } }

    /// Stops taking requests, closes every connection and listener (removing socket files);
    /// returns when the loop has finished.
    func stop() -> Bool { worker.stop(within: DoorLoop.stopWithin) }

    var name: String { worker.name }

    private func run() {
        // Listeners already accept (their sockets listen) and the relay is held at rest. Every
        // audience hears the status before the first request: Home Assistant's retained state
        // included, whatever the door does next.
        _ = takeInbox()
        publishStatus()
        notifier?.ready(at: clock.now())
        // What each polled descriptor is, in `fds`'s order: a turn finds what fired without a
        // lookup (a request's path from the wake-up to its press is the one to keep short).
        var targets: [PollTarget] = []
        while takeInbox() {
            var fds = [pollfd(fd: inbox.wake.fd, events: Int16(POLLIN), revents: 0)]
            targets.removeAll(keepingCapacity: true)
            targets.append(.wake)
            let now = clock.now()
            if !pausedListeners.isEmpty { pausedListeners = pausedListeners.filter { $0.value > now } }
            for d in doors {
                for s in d.switches {
                    fds.append(pollfd(fd: s.fd, events: Int16(POLLIN), revents: 0))
                    targets.append(.switchInput(s, door: d.index))
                }
                if let fd = d.drive.pollFD {
                    fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0))
                    targets.append(.drive(d.index))
                }
            }
            for (fd, listener) in listeners where pausedListeners[fd] == nil {
                fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0))
                targets.append(.listener(listener))
            }
            // The local socket's clients first: a turn serves in this order, so the owner's
            // requests are answered before any remote peer's.
            func watch(_ c: Connection) {
                fds.append(pollfd(fd: c.fd, events: Int16(POLLIN) | (c.wantsWrite ? Int16(POLLOUT) : 0), revents: 0))
                targets.append(.connection(c))
            }
            for c in connections.values where c.pool == .local { watch(c) }
            for c in connections.values where c.pool != .local { watch(c) }
            // A connection with requests still in its buffer gets its turn without waiting.
            let buffered = connections.values.filter(\.mayHaveMore)
            // The doors' deadlines as they stand before the wait: only a switch's edge changes
            // them before the turn looks (`readSwitch` then looks again).
            let due = nextDeadline()
            let polled = PacketSocket.realtimeNow()
            let wait = buffered.isEmpty ? min(due.map { $0 - now } ?? DoorLoop.longestSleep, sleepLimit(at: polled)) : .zero
            let ready = waitFor(&fds, timeout: wait)
            if ready < 0 && errno != EINTR {
                log.error("poll-failed", ["error": String(cString: strerror(errno))])
            }
            quiet = ready == 0
            // Drained only when it fired: a request's turn makes no system call it does not need.
            // A relay's release is taken at once, before this turn's requests: it came first,
            // so a request sent once the line was released finds the door's relay free. The
            // rest of the inbox waits for the next turn's top, which comes straight after.
            if fds[0].revents != 0 {
                inbox.wake.drain()
                let relays = inbox.takeRelays()
                hearRelays(released: relays.released, overruns: relays.overruns)
            }
            var switchMoved = false
            for (k, pfd) in fds.enumerated() where pfd.revents != 0 {
                switch targets[k] {
                case .switchInput(let s, let door):
                    readSwitch(s, of: door)
                    switchMoved = true
                case .drive(let door):
                    serveDrive(of: door)
                    switchMoved = true
                default:
                    continue
                }
            }
            // An opener's wire has its own times (a release, a flash, an ask).
            for d in doors where d.drive.nextWake.map({ $0 <= clock.now() }) ?? false {
                serveDrive(of: d.index)
                switchMoved = true
            }
            // Time's work first when some is due, or may be after a switch's edge (a request
            // judges its door at its own time anyway, so a turn that only brings a request goes
            // straight to it).
            if switchMoved || due.map({ $0 <= clock.now() }) ?? false {
                for i in controller.doors.indices {
                    if controller.isDue(i, at: clock.now()) {
                        perform(DoorRequest(.time(door: i), from: DoorLoop.timers, arrived: nil))
                    }
                }
            }
            // Requests before anything that can wait: a press goes out first. Strangers' requests
            // (HomeKit before pair-verify: each may be a key exchange) come after everyone
            // else's, a few a turn (`serveStrangers`).
            let drops = dropped
            var strangers: [(Connection, hungUp: Bool)] = []
            for (k, pfd) in fds.enumerated() where pfd.revents != 0 {
                switch targets[k] {
                case .wake, .switchInput, .drive:
                    continue
                case .listener(let listener):
                    acceptConnections(from: listener)
                case .connection(let connection):
                    // Dropped earlier in this turn (to make room) or replaced by a new one on
                    // the same descriptor: not this turn's to serve.
                    if dropped != drops, connections[pfd.fd] !== connection { continue }
                    if pfd.revents & Int16(POLLOUT) != 0 { connection.flush() }
                    if pfd.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                        let hungUp = pfd.revents & Int16(POLLHUP) != 0
                        guard connection.standing != .stranger else {
                            strangers.append((connection, hungUp))
                            continue
                        }
                        serve(connection, hungUp: hungUp, polled: polled)
                    }
                    if connection.closing { drop(connection) }
                }
            }
            // After the requests that woke the loop, before anything else is read: a press does
            // not wait for the marks, and they concern only what this wait found unreadable.
            markEmpty(fds, targets, at: polled)
            for c in buffered where connections[c.fd] === c && !fds.contains(where: { $0.fd == c.fd && $0.revents != 0 }) {
                guard c.standing != .stranger else {
                    strangers.append((c, false))
                    continue
                }
                serve(c, hungUp: false, polled: polled)
                if c.closing { drop(c) }
            }
            if !strangers.isEmpty { serveStrangers(strangers, polled: polled) }
            summariseBursts(logBursts.dueIfAny(at: clock.now()), eventBursts.dueIfAny(at: clock.now()))
            publishStatus()
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

    /// The earliest of the door's next event, a burst to summarise, a paused listener, the
    /// watchdog's next ping and the PIN lockouts' next change.
    private func nextDeadline() -> Instant? {
        // Asked every turn: the earliest of a few optionals, with nothing allocated.
        var earliest: Instant?
        func consider(_ t: Instant?) {
            if let t, earliest.map({ t < $0 }) ?? true { earliest = t }
        }
        consider(eventBursts.nextDeadline)
        consider(logBursts.nextDeadline)
        if !pausedListeners.isEmpty { consider(pausedListeners.values.min()) }
        consider(notifier?.nextDeadline)
        consider(controller.nextDeadline)
        // A PIN lockout ending or a wrong PIN forgiven changes the status with time alone.
        consider(controller.throttle.nextChange(after: clock.now()))
        for d in doors { consider(d.drive.nextWake) }
        return earliest
    }

    /// What the wait found unreadable held nothing unread when it began: a request read later
    /// arrived after `polled`.
    private func markEmpty(_ fds: [pollfd], _ targets: [PollTarget], at polled: Int64) {
        for (k, pfd) in fds.enumerated() where pfd.revents == 0 {
            switch targets[k] {
            case .connection(let c): c.arrivals.sawEmpty(at: polled)
            case .listener(let l):
                listenerMarks[l.fd] = polled
                l.sawEmpty(at: polled)
            case .wake, .switchInput, .drive: continue
            }
        }
    }

    /// What a polled descriptor belongs to.
    private enum PollTarget {
        case wake
        case switchInput(any SwitchInput, door: Int)
        /// A door's drive with a wire of its own (an opener's).
        case drive(Int)
        case listener(any Listener)
        case connection(Connection)
    }

    /// What the relays reported, each door in turn: overruns (faults), then releases.
    private func hearRelays(released: [Int: Int], overruns: [Int: Int]) {
        for door in overruns.keys.sorted() { enact(controller.relayFault(door, at: clock.now(), wall: EventRecord.now())) }
        for door in released.keys.sorted() { enact(controller.pressEnded(door, at: clock.now(), wall: EventRecord.now())) }
    }

    /// Applies what other threads handed over; false once the loop should stop.
    private func takeInbox() -> Bool {
        let p = inbox.take()
        for l in p.add { listeners[l.fd] = l }
        for fd in p.remove {
            listeners.removeValue(forKey: fd)?.close()
            pausedListeners[fd] = nil
        }
        for (name, status) in p.channels { channels[name] = status }
        hearRelays(released: p.released, overruns: p.overruns)
        for request in p.requests { perform(request) }
        for (r, key) in p.records { record([r], summaryKey: key) }
        for news in p.followerNews {
            for c in followers(of: news.topic) { c.deliver([.record(news.record)]) }
        }
        // Told now, not at the end of the coming wait: an opener's report, MQTT's command and a
        // channel's news reach every audience as a switch's edge does.
        if p.changesStatus {
            publishStatus()
        }
        return !worker.stopping
    }
}

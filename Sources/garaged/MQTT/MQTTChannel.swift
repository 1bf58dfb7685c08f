import CLinux
import CMQTT
import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
import Synchronization
#endif

/// Home Assistant over MQTT, on a thread of its own: the door's loop never waits on the
/// network. The loop hands over the latest status snapshot and the events to publish through a
/// bounded queue (the thread sends what `HomeAssistant.retained(from:to:at:)` says changed since
/// the snapshot it last published, so only the latest of each value is sent; events beyond the
/// bound are dropped and counted); commands from the command topic come back to the loop stamped with when they
/// arrived. A broker that is down, restarting, refusing the login or failing TLS is retried
/// with backoff (1 s doubling to 60 s), the cause logged once per change; after each connect
/// the availability, the discovery documents and every retained value are published again.
///
/// An `mqtts://` broker is TLS or nothing: TLS that cannot be set up stops garaged at start, and
/// a handshake that fails is retried, never replaced by plain text. A command's arrival is
/// bounded from below by the kernel's receive stamp and by the last moment the socket was seen
/// empty (checked at least every second while commands are on), so one read after the process
/// stalled is judged as old as it may be, and refused when that is too old.
final class MQTTChannel: Service, DoorSubscriber, @unchecked Sendable {
    /// How the connection stands, for `garage-pins status` and systemd's status line.
    struct Status: Sendable {
        var state = "connecting"
        /// Wall-clock ms since the state began.
        var since: Int64 = EventRecord.now()
        var lastError: String?
    }

    static let maxQueuedEvents = 256
    /// Who Home Assistant's commands come from: the broker vouches for them (no PIN).
    static let source = RequestSource("mqtt", channel: nil)
    static let keepalive: Int32 = 30
    /// While commands are on, the socket is looked at least this often, so that the moment it
    /// was last empty (the earliest a queued command can have arrived) is never older.
    static let heartbeat: Duration = .seconds(1)
    /// Home Assistant's birth message republishes discovery at most this often.
    static let rediscoveryEvery: Duration = .seconds(5)

    let settings: MQTTSettings
    let ha: HomeAssistant
    private let log: Logger
    /// Where commands and the connection's state go: the door loop's inbox.
    private let inbox: LoopInbox
    private let clock = SystemMonotonicClock()
    private let worker = Worker("mqtt")
    private var wake: WakeEvent { worker.wake }
    /// What the door loop hands the MQTT thread: the latest snapshot (with the loop's `now`, for
    /// the lockout's seconds), the events not yet published and how many were dropped.
    private let shared = Mutex((latest: (snapshot: StatusSnapshot, at: Instant)?.none, events: [String](), dropped: 0))
    /// The connection's state, on the MQTT thread.
    private var status = Status()

    /// Sets the client up (login, TLS) before any thread starts; throws what stops garaged from
    /// starting, naming the CA, when TLS cannot be set up.
    init(settings: MQTTSettings, ha: HomeAssistant, log: Logger, inbox: LoopInbox) throws(StartupError) {
        self.settings = settings
        self.ha = ha
        self.log = log
        self.inbox = inbox
        var err = [CChar](repeating: 0, count: 256)
        guard let c = cmqtt_new(settings.clientID, ha.availabilityTopic, HomeAssistant.offline, &err, err.count) else {
            throw StartupError(description: "MQTT: \(text(err))")
        }
        if settings.user != nil || settings.password != nil { _ = cmqtt_set_login(c, settings.user, settings.password) }
        if settings.tls {
            let rc = cmqtt_set_tls(c, settings.caFile)
            if rc != 0 {
                cmqtt_destroy(c)
                let ca = settings.caFile.map { "--mqtt-ca \($0)" } ?? "the system's CAs (\(MQTTSettings.systemCAFolder))"
                throw StartupError(description: "\(settings.url): TLS cannot be set up with \(ca): \(String(cString: cmqtt_strerror(rc))). garaged never talks to an mqtts:// broker in plain text; give a readable PEM CA file")
            }
        }
        client = c
    }

    /// The snapshot Home Assistant's retained values are a view of (the door loop's thread); the
    /// MQTT thread sends those that changed, and all of them again after each connect.
    func statusChanged(from old: StatusSnapshot?, to new: StatusSnapshot, at now: Instant) {
        shared.withLock { $0.latest = (new, now) }
        wake.signal()
    }

    /// One history event, as JSON on the event topic (not retained), queued for the MQTT thread.
    func eventRecorded(_ record: EventRecord) {
        let json = record.json.serialized
        shared.withLock { s in
            if s.events.count < MQTTChannel.maxQueuedEvents { s.events.append(json) } else { s.dropped += 1 }
        }
        wake.signal()
    }

    func start() { worker.start { [self] in run() } }

    /// Publishes `offline`, disconnects and stops the thread; waits at most 2 s.
    func stop() -> Bool { worker.stop(within: .seconds(2)) }

    var name: String { worker.name }

    // MARK: - The thread

    private let client: OpaquePointer
    private var connected = false
    /// The snapshot whose retained values this connection last published; nil after each
    /// connect and rediscovery, when every value is published again.
    private var published: StatusSnapshot?
    private var backoff: Duration = .seconds(1)
    private var retryAt: Instant?
    private var lastProblem: String?
    /// The last moment the socket held nothing unread: whatever is read later arrived after it.
    private var lastEmpty: Instant?
    /// Repeated ignored commands (garbage, a retained command) are logged once per burst.
    private var ignoredBursts = BurstCounter<String, [(String, String)]>(quiet: .seconds(60), span: .seconds(600), maxBursts: 16)
    private var lastDiscovery: Instant?
    /// A discovery republish asked for too soon after the last, due then.
    private var discoveryDue: Instant?

    private func run() {
        let c = client
        connect()
        while !worker.stopping {
            let sock = cmqtt_socket(c)
            var fds = [pollfd(fd: wake.fd, events: Int16(POLLIN), revents: 0)]
            if sock >= 0 { fds.append(pollfd(fd: sock, events: Int16(POLLIN) | (cmqtt_want_write(c) != 0 ? Int16(POLLOUT) : 0), revents: 0)) }
            let now = clock.now()
            var timeout: Duration = settings.commands && connected ? MQTTChannel.heartbeat : .seconds(Int64(MQTTChannel.keepalive / 2))
            for due in [retryAt, ignoredBursts.nextDeadline, discoveryDue].compactMap({ $0 }) { timeout = min(timeout, max(.zero, due - now)) }
            waitFor(&fds, timeout: timeout)
            wake.drain()
            let emptyBefore = lastEmpty
            if sock >= 0, fds.count > 1 {
                let r = fds[1].revents
                if r & Int16(POLLIN | POLLHUP | POLLERR) != 0 { lost(cmqtt_read(c)) }
                if r & Int16(POLLOUT) != 0 { lost(cmqtt_write(c)) }
            }
            lost(cmqtt_misc(c))
            takeEvents(c, emptyBefore: emptyBefore)
            if connected, cmqtt_unread(c) == 0 { lastEmpty = clock.now() }
            if connected { publishPending(c) }
            if connected, let due = discoveryDue, clock.now() >= due { rediscover(c) }
            for s in ignoredBursts.due(at: clock.now()) {
                log.info("mqtt-command-ignored-repeats", s.first + [("more", String(s.folded)), ("over_s", String((s.to - s.from).secondsRoundedUp))])
            }
            if !connected, let at = retryAt, clock.now() >= at {
                retryAt = nil
                reconnect()
            }
        }
        if connected {
            _ = HomeAssistant.offline.withCString { cmqtt_publish(c, ha.availabilityTopic, $0, Int32(strlen($0)), 1, 1) }
            _ = cmqtt_write(c)
            _ = cmqtt_disconnect(c)
            _ = cmqtt_write(c)
        }
        cmqtt_destroy(c)
    }

    private func connect() {
        setStatus("connecting")
        let rc = cmqtt_connect(client, settings.host, Int32(settings.port), MQTTChannel.keepalive)
        if rc != 0 { failed("cannot reach the broker \(settings.url): \(String(cString: cmqtt_strerror(rc)))") }
    }

    private func reconnect() {
        setStatus("connecting")
        let rc = cmqtt_reconnect(client)
        if rc != 0 { failed("cannot reach the broker \(settings.url): \(String(cString: cmqtt_strerror(rc)))") }
    }

    /// A read or write that failed means the connection is gone (the disconnect event follows
    /// when the library noticed; a refused connect attempt has none).
    private func lost(_ rc: Int32) {
        // MOSQ_ERR_CONN_PENDING (-1): still connecting; MOSQ_ERR_NO_CONN (4): not connected.
        guard rc != 0, rc != -1, rc != 4 else { return }
        if connected {
            connected = false
            failed("the connection to \(settings.url) was lost: \(String(cString: cmqtt_strerror(rc)))")
        } else if retryAt == nil {
            failed("cannot reach the broker \(settings.url): \(String(cString: cmqtt_strerror(rc)))")
        }
    }

    private func takeEvents(_ c: OpaquePointer, emptyBefore: Instant?) {
        var e = cmqtt_event()
        while cmqtt_next_event(c, &e) == 1 {
            defer { cmqtt_event_free(&e) }
            switch e.kind {
            case Int32(CMQTT_CONNECTED):
                guard e.code == 0 else {
                    failed("the broker \(settings.url) refused the connection: \(String(cString: cmqtt_connack_string(e.code)))")
                    continue
                }
                connected = true
                lastEmpty = clock.now()
                backoff = .seconds(1)
                lastProblem = nil
                setStatus("connected")
                log.info("mqtt-connected", ["broker": settings.url, "client_id": settings.clientID,
                                            "commands": settings.commands ? "on" : "off"])
                announce(c)
            case Int32(CMQTT_DISCONNECTED):
                if connected || retryAt == nil {
                    connected = false
                    failed(e.code == 0 ? "disconnected from \(settings.url)" : "the connection to \(settings.url) was lost (\(String(cString: cmqtt_strerror(e.code))))")
                }
            case Int32(CMQTT_MESSAGE):
                let topic = String(cString: e.topic)
                let payload = Array(UnsafeBufferPointer(start: e.payload, count: Int(e.length)))
                message(topic, payload, retained: e.retain != 0, arrived: earliestArrival(emptyBefore: emptyBefore, stamp: e.stamp))
            default:
                break
            }
        }
    }

    /// Availability, discovery, every retained value, the subscriptions: after each connect,
    /// and again when Home Assistant says it came back online.
    private func announce(_ c: OpaquePointer) {
        publish(c, ha.availabilityTopic, HomeAssistant.online, retain: true)
        lastDiscovery = clock.now()
        // Named doors replace the one door's cover, a door without a photo-eye has no
        // obstruction sensor, one without a light or an opener none of theirs: Home Assistant
        // drops what is cleared.
        for topic in ha.formerSingleDoor + ha.withoutPhotoEye + ha.withoutEntities { publish(c, topic, "", retain: true) }
        for (topic, doc) in ha.discovery() { publish(c, topic, doc.serialized, retain: true) }
        published = nil
        publishPending(c)
        _ = cmqtt_subscribe(c, ha.birthTopic, 1)
        if settings.commands { for topic in ha.commandTopics { _ = cmqtt_subscribe(c, topic, 1) } }
    }

    /// The earliest a message read now can have arrived: after the socket was last seen empty,
    /// and no later than the kernel's stamp of the newest data queued (TCP merges segments that
    /// wait, so the stamp alone can be younger than the oldest of them).
    private func earliestArrival(emptyBefore: Instant?, stamp: Int64) -> Instant {
        let now = clock.now()
        var earliest = emptyBefore ?? now
        if stamp > 0 {
            let stamped = now + .nanoseconds(-max(0, PacketSocket.realtimeNow() - stamp))
            earliest = min(earliest, stamped)
        }
        return earliest
    }

    private func message(_ topic: String, _ payload: [UInt8], retained: Bool, arrived: Instant) {
        if topic == ha.birthTopic {
            if String(decoding: payload, as: UTF8.self) == HomeAssistant.online { rediscover(client) }
            return
        }
        let parsed = ha.parse(topic: topic, payload: payload)
        guard parsed != .notACommandTopic, settings.commands else { return }
        // An empty message clears a retained command (what the warning below tells the owner
        // to do): nothing to act on, nothing to warn about.
        guard !payload.isEmpty else { return }
        // A retained command would act again on every restart (the known failure of home-made
        // MQTT openers); with a clean session nothing from before the connect is delivered.
        guard !retained else {
            ignored("a retained message (it would act again after every restart); publish commands without the retain flag, and clear it: mosquitto_pub -r -n -t \(topic)")
            return
        }
        guard case .ask(let ask) = parsed else {
            if case .unknown(let expected) = parsed { ignored("not \(expected) on \(topic)") }
            return
        }
        inbox.request(DoorRequest(ask, from: MQTTChannel.source, arrived: arrived))
    }

    /// Logs an ignored command once per burst of the same reason.
    private func ignored(_ why: String) {
        let fields = [("why", why)]
        guard ignoredBursts.note(why, fields, at: clock.now()) else { return }
        log.warning("mqtt-command-ignored", ["why": why])
    }

    /// Discovery again (Home Assistant came back online): at once, or when `rediscoveryEvery`
    /// has passed since the last, so a flood of birth messages costs one republish per 5 s.
    private func rediscover(_ c: OpaquePointer) {
        let now = clock.now()
        if let last = lastDiscovery, now - last < MQTTChannel.rediscoveryEvery {
            discoveryDue = last + MQTTChannel.rediscoveryEvery
            return
        }
        discoveryDue = nil
        lastDiscovery = now
        log.info("mqtt-discovery", ["why": "Home Assistant came online"])
        for (t, doc) in ha.discovery() { publish(c, t, doc.serialized, retain: true) }
        published = nil
        publishPending(c)
    }

    private func publishPending(_ c: OpaquePointer) {
        let (latest, events, dropped) = shared.withLock { s in
            defer { s.events.removeAll(); s.dropped = 0 }
            return (s.latest, s.events, s.dropped)
        }
        if let latest, latest.snapshot != published {
            for (topic, value) in ha.retained(from: published, to: latest.snapshot, at: latest.at) { publish(c, topic, value, retain: true) }
            published = latest.snapshot
        }
        for json in events { publish(c, ha.eventTopic, json, retain: false) }
        if dropped > 0 { log.warning("mqtt-events-dropped", ["count": String(dropped), "why": "the broker was not keeping up"]) }
    }

    private func publish(_ c: OpaquePointer, _ topic: String, _ payload: String, retain: Bool) {
        let bytes = Array(payload.utf8)
        _ = bytes.withUnsafeBytes { cmqtt_publish(c, topic, $0.baseAddress, Int32(bytes.count), 1, retain ? 1 : 0) }
    }

    /// Says why the connection is down (once per distinct cause) and schedules a retry.
    private func failed(_ why: String) {
        problem(why)
        setStatus("disconnected", error: why)
        retryAt = clock.now() + backoff
        backoff = min(backoff * 2, .seconds(60))
    }

    private func problem(_ why: String) {
        guard why != lastProblem else { return }
        lastProblem = why
        log.warning("mqtt-unavailable", ["why": why, "effect": "the door still opens from every other channel; retrying with backoff"])
    }

    /// A new state of the connection, told to the door loop (the status record's `mqtt`
    /// object, and systemd's status line).
    private func setStatus(_ state: String, error: String? = nil) {
        if status.state != state { status.since = EventRecord.now() }
        status.state = state
        if let error { status.lastError = error }
        let record: JSONValue = .object([
            ("state", .string(status.state)), ("broker", .string(settings.url)), ("since", .number(status.since)),
            ("last_error", status.lastError.map { .string($0) } ?? .null), ("commands", .bool(settings.commands)),
        ])
        inbox.channel(ChannelStatus(name: "mqtt", record: record, line: error.map { "\(state): \($0)" } ?? "\(state) to \(settings.url)"))
    }
}

import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
import Synchronization
#endif

/// Moves a door by speaking Security+ 2.0 to its opener on the wall-button wire, from a thread of
/// its own (`opener`, `opener-N` for door N of several) that alone reads and writes the serial
/// device: a permit becomes DOOR_ACTION open, close or stop (a press, the release 150 ms later
/// with the same rolling code), the opener is asked its status and count of openings until it
/// answers, and what it reports goes to the loop's inbox. It decides nothing: the gate did.
final class SecPlus2Drive: DoorDrive, @unchecked Sendable {
    /// Send only after the line has been quiet this long (a wall panel's collision avoidance).
    static let quietBeforeSending: Duration = .microseconds(1300)
    /// A line busy this long means no opener is there (or the wiring is wrong).
    static let busyLimit: Duration = .seconds(5)
    /// The start signal before each packet.
    static let breakLength: Duration = .microseconds(1300)
    /// Between a DOOR_ACTION's press and its release, as a wall panel sends them.
    static let releaseAfter: Duration = .milliseconds(150)
    /// How often the status and the openings are asked until answered: every 5 s for the first
    /// minute, then every 30 s.
    static let askEarly: Duration = .seconds(5)
    static let askLater: Duration = .seconds(30)
    static let earlyPeriod: Duration = .seconds(60)
    /// Asked and not answered this long: the opener is silent (`opener-silent`).
    static let silentAfter: Duration = .seconds(5)
    /// Heard nothing this long: ask again (an opener reports changes by itself, so a quiet
    /// line is normal; this long a quiet one may be a cut wire).
    static let askAgainAfter: Duration = .seconds(360)
    /// How long the light stays on, then off, while it flashes as the warning (once a second).
    static let flashEvery: Duration = .milliseconds(500)
    /// Bad packets on the wire are said at most once in this long (with their count).
    static let garbageSummaryEvery: Duration = .seconds(60)

    /// What the caller's thread hands the opener thread.
    private struct State {
        var pending: PressPermit?
        /// Settings asked of the opener (its light, the lock of its remotes), in order.
        var settings: [OpenerSetting] = []
        /// A permit taken and not yet released.
        var busy = false
        var stopping = false
        /// The number of the last permit taken: a permit not above it is a replay.
        var lastPermit: UInt64 = 0
    }

    let door: Int
    private let port: SerialPort
    /// The opener thread's alone once started.
    private let codes: SecPlus2Codes
    private let clock: any MonotonicClock
    private let log: Logger
    private let inbox: LoopInbox
    private let worker: Worker
    private let doorField: [(String, String)]
    private let state = Mutex(State())

    // The opener thread's own.
    private var receiver = SecPlus2Receiver()
    private var lastReceived: Instant?
    private var statusAnswered = false
    private var openingsAnswered = false
    private var portGone = false
    /// Bad packets on the wire: since when they are counted, and how many beyond the first.
    private var garbageSince: Instant?
    private var garbageCount = 0
    /// The door's state the opener last reported.
    private var lastState: OpenerDoorState?
    /// Its light as it last reported it.
    private var lastLight: Bool?
    /// While the light flashes as the warning: when it switches next, which way it is now, and
    /// how it was before (what the loop is told meanwhile, and what it is left at).
    private var nextFlash: Instant?
    private var flashPhase = false
    private var lightBeforeFlash = false
    /// When the opener last sent a packet of its own (not our echo).
    private var lastHeard: Instant?
    /// Since when an ask has gone unanswered; nil when the opener answered the last.
    private var askedSince: Instant?
    /// What the loop was last told: the opener answers (nil: nothing told yet).
    private var toldAnswering: Bool?

    init(port: SerialPort, codes: SecPlus2Codes, clock: any MonotonicClock, log: Logger, inbox: LoopInbox, door: Int = 0, name: String? = nil) {
        self.door = door
        self.port = port
        self.codes = codes
        self.clock = clock
        self.log = log
        self.inbox = inbox
        doorField = name.map { [("door", $0)] } ?? []
        worker = Worker("opener" + (door == 0 ? "" : "-\(door + 1)"))
    }

    var name: String { worker.name }

    func start() {
        worker.start { [self] in run() }
    }

    var switchesLight: Bool { true }

    /// Queues a setting for the opener thread, which sends it between presses.
    func ask(_ setting: OpenerSetting) -> Bool {
        let taken = state.withLock { s -> Bool in
            guard !s.stopping, s.settings.count < 8 else { return false }
            s.settings.append(setting)
            return true
        }
        if taken { worker.wake.signal() }
        return taken
    }

    /// Lets a press under way send its release, then closes the device.
    func stop() -> Bool {
        state.withLock { $0.stopping = true }
        let finished = worker.stop(within: .seconds(2))
        if finished { port.close() }
        return finished
    }

    /// Hands the permit to the opener thread; false for another door's, a replay, one while the
    /// last is under way, or while stopping.
    func carryOut(_ permit: PressPermit) -> Bool {
        let why = state.withLock { s -> String? in
            if s.stopping { return "garaged is stopping" }
            if permit.door != door { return "the permit is door \(permit.door + 1)'s, not this opener's (door \(door + 1))" }
            if s.busy { return "a press is already under way" }
            if permit.number <= s.lastPermit { return "permit \(permit.number) was already carried out (a replay)" }
            s.busy = true
            s.lastPermit = permit.number
            s.pending = permit
            return nil
        }
        if let why {
            log.warning("press-refused", doorField + [("reason", permit.reason.rawValue), ("why", why)])
            return false
        }
        worker.wake.signal()
        return true
    }

    private func run() {
        let started = clock.now()
        var nextAsk = started
        var fds = [pollfd(fd: worker.wake.fd, events: Int16(POLLIN), revents: 0), pollfd(fd: port.fd, events: Int16(POLLIN), revents: 0)]
        while !worker.stopping {
            for setting in state.withLock({ s -> [OpenerSetting] in defer { s.settings.removeAll() }; return s.settings }) {
                apply(setting)
            }
            if let due = nextFlash, clock.now() >= due {
                flashPhase.toggle()
                _ = send(.light, nibble: flashPhase ? 1 : 0)
                nextFlash = clock.now() + SecPlus2Drive.flashEvery
            }
            if let permit = state.withLock({ s -> PressPermit? in defer { s.pending = nil }; return s.pending }) {
                perform(permit)
                continue
            }
            var now = clock.now()
            if statusAnswered, let heard = lastHeard, now - heard >= SecPlus2Drive.askAgainAfter {
                // Quiet for long: ask again, and count it silent if it does not answer.
                statusAnswered = false
                nextAsk = now
            }
            if !(statusAnswered && openingsAnswered), now >= nextAsk {
                if !statusAnswered { _ = send(.getStatus) }
                if !openingsAnswered { _ = send(.getOpenings) }
                now = clock.now()
                if askedSince == nil { askedSince = now }
                nextAsk = now + (now - started < SecPlus2Drive.earlyPeriod ? SecPlus2Drive.askEarly : SecPlus2Drive.askLater)
            }
            if let asked = askedSince, now - asked >= SecPlus2Drive.silentAfter, toldAnswering != false {
                toldAnswering = false
                log.warning("opener-silent", doorField + [("device", port.path), ("effect", "the door takes no press until the opener answers"),
                                                          ("why", "asked \(SecPlus2Drive.silentAfter.secondsRoundedUp) s ago and not answered: check the wiring, the level circuit and the opener's power")])
                inbox.openerAnswering(door: door, false)
            }
            var timeout: Duration? = statusAnswered && openingsAnswered ? nil : nextAsk - now
            if let due = nextFlash { timeout = min(timeout ?? .seconds(3600), max(.zero, due - now)) }
            summariseGarbage(at: now)
            if let since = garbageSince { timeout = min(timeout ?? .seconds(3600), max(.zero, since + SecPlus2Drive.garbageSummaryEvery - now)) }
            if let asked = askedSince, toldAnswering != false { timeout = min(timeout ?? .seconds(3600), max(.zero, asked + SecPlus2Drive.silentAfter - now)) }
            if statusAnswered, let heard = lastHeard { timeout = min(timeout ?? .seconds(3600), max(.zero, heard + SecPlus2Drive.askAgainAfter - now)) }
            if let deadline = receiver.deadline { timeout = min(timeout ?? .seconds(3600), max(.zero, deadline - now)) }
            fds[1].fd = portGone ? -1 : port.fd
            _ = waitFor(&fds, timeout: timeout)
            worker.wake.drain()
            receive()
        }
    }

    /// Carries out a setting the loop asked for. While the light flashes as the warning, a light
    /// switched meanwhile is what it is left at when the flashing ends.
    private func apply(_ setting: OpenerSetting) {
        switch setting {
        case .light(let on) where nextFlash != nil:
            lightBeforeFlash = on
        case .light(let on):
            if send(.light, nibble: on ? 1 : 0) { log.info("opener-asked", doorField + [("light", on ? "on" : "off")]) }
        case .remotesLocked(let locked):
            if send(.lock, nibble: locked ? 1 : 0) { log.info("opener-asked", doorField + [("remotes", locked ? "lock" : "unlock")]) }
        case .flashing(true):
            guard nextFlash == nil else { return }
            lightBeforeFlash = lastLight ?? false
            flashPhase = lightBeforeFlash
            nextFlash = clock.now()
        case .flashing(false):
            guard nextFlash != nil else { return }
            nextFlash = nil
            // Left as it was: said even when it is already so (the last flash may be in flight).
            _ = send(.light, nibble: lightBeforeFlash ? 1 : 0)
        }
    }

    /// Sends the permit's press and, 150 ms later, its release (same rolling code), then tells
    /// the loop the press is over: after the release was written, or at once if nothing could be.
    private func perform(_ permit: PressPermit) {
        defer {
            state.withLock { $0.busy = false }
            inbox.permitReleased(door: door)
        }
        let move: SecPlus2DoorMove = switch permit.action {
        case .open: .open
        case .close: .close
        case .stop: .stop
        }
        let packets: (press: SecPlus2Packet, release: SecPlus2Packet)
        do {
            let rolling = try codes.take()
            packets = try move.packets(client: codes.client, rolling: rolling)
        } catch {
            log.error("press-failed", doorField + [("reason", permit.reason.rawValue), ("error", "\(error)"),
                                                   ("effect", "nothing was sent to the opener")])
            return
        }
        guard write(packets.press) else {
            log.error("press-failed", doorField + [("reason", permit.reason.rawValue), ("error", "the press could not be sent"),
                                                   ("effect", "the door was not asked to move")])
            return
        }
        let pressedAt = clock.now()
        log.info("press", doorField + [("reason", permit.reason.rawValue), ("action", permit.action.rawValue),
                                       ("opener", port.path), ("rolling", String(packets.press.rolling))])
        var fds = [pollfd(fd: portGone ? -1 : port.fd, events: Int16(POLLIN), revents: 0)]
        while clock.now() < pressedAt + SecPlus2Drive.releaseAfter {
            _ = waitFor(&fds, timeout: pressedAt + SecPlus2Drive.releaseAfter - clock.now())
            receive()
        }
        if write(packets.release) {
            log.info("release", doorField + [("reason", permit.reason.rawValue), ("width_ms", (clock.now() - pressedAt).millisecondsText)])
        } else {
            log.error("release-failed", doorField + [("reason", permit.reason.rawValue),
                                                     ("effect", "the opener saw a press without its release; it acts on the press")])
        }
    }

    /// Sends one command with the next rolling code; false when it could not.
    private func send(_ command: SecPlus2Command, nibble: UInt8 = 0) -> Bool {
        do {
            let rolling = try codes.take()
            return write(try SecPlus2Fields(command: command, nibble: nibble, client: codes.client).packet(rolling: rolling))
        } catch {
            log.error("opener-send-failed", doorField + [("command", command.description), ("error", "\(error)")])
            return false
        }
    }

    /// Waits for a quiet line (reading what comes meanwhile), sends the start signal, then the
    /// packet's 19 bytes; false when the line stayed busy or the device failed.
    private func write(_ packet: SecPlus2Packet) -> Bool {
        guard !portGone else { return false }
        let giveUp = clock.now() + (worker.stopping ? .milliseconds(500) : SecPlus2Drive.busyLimit)
        var fds = [pollfd(fd: port.fd, events: Int16(POLLIN), revents: 0)]
        // What came meanwhile (the echo of the packet just sent, an answer) makes the line busy
        // now, not when the last read happened.
        receive()
        while let last = lastReceived {
            let now = clock.now()
            if now - last >= SecPlus2Drive.quietBeforeSending { break }
            if now >= giveUp {
                log.error("opener-absent", doorField + [("device", port.path),
                    ("why", "the line stayed busy for \(SecPlus2Drive.busyLimit.secondsRoundedUp) s; check the wiring (a non-inverting interface to the red terminal)")])
                return false
            }
            _ = waitFor(&fds, timeout: last + SecPlus2Drive.quietBeforeSending - now)
            receive()
        }
        let rc = port.sendBreak(SecPlus2Drive.breakLength)
        if rc != 0 { log.warning("opener-break-failed", doorField + [("device", port.path), ("error", String(cString: strerror(rc)))]) }
        guard port.writeAll(packet.encoded) else {
            log.error("opener-write-failed", doorField + [("device", port.path), ("error", String(cString: strerror(errno)))])
            return false
        }
        // Our own packet kept the line busy until now; its echo may still be on its way to us.
        lastReceived = clock.now()
        return true
    }

    /// Reads what is waiting and handles every packet it completes (a partial one too old is dropped).
    private func receive() {
        guard !portGone else { return }
        let now = clock.now()
        var items = receiver.expire(at: now)
        while true {
            guard let bytes = port.readAvailable() else {
                portGone = true
                log.error("opener-device-gone", doorField + [("device", port.path), ("effect", "the door cannot be moved until garaged restarts")])
                break
            }
            if bytes.isEmpty { break }
            lastReceived = clock.now()
            items += receiver.feed(bytes, at: lastReceived!)
        }
        for item in items { handle(item) }
    }

    /// Garbage on the wire (anyone on it can make it): the first of a minute is logged whole, the
    /// rest counted and said in one line when the minute is over.
    private func noteGarbage(_ event: String, _ fields: [(String, String)]) {
        let now = clock.now()
        if let since = garbageSince, now - since < SecPlus2Drive.garbageSummaryEvery {
            garbageCount += 1
            return
        }
        summariseGarbage(at: now)
        garbageSince = now
        log.warning(event, doorField + fields + [("then", "more are counted, said once a minute")])
    }

    /// Says how many bad packets followed the first of the minute, once the minute is over.
    private func summariseGarbage(at now: Instant) {
        guard let since = garbageSince, now - since >= SecPlus2Drive.garbageSummaryEvery else { return }
        if garbageCount > 0 {
            log.warning("opener-garbage-repeats", doorField + [("more", String(garbageCount)), ("over_s", String((now - since).secondsRoundedUp))])
        }
        garbageSince = nil
        garbageCount = 0
    }

    private func handle(_ item: SecPlus2Receiver.Item) {
        switch item {
        case .packet(let packet, _):
            // Our own packets come back on the shared wire.
            guard !codes.client.isEcho(packet) else { return }
            lastHeard = clock.now()
            askedSince = nil
            if toldAnswering != true {
                if toldAnswering == false { log.info("opener-answers", doorField + [("device", port.path)]) }
                toldAnswering = true
                inbox.openerAnswering(door: door, true)
            }
            switch SecPlus2Message(SecPlus2Fields(packet)) {
            case .status(let state, let light, let locked, let obstructed, _):
                statusAnswered = true
                // At an end after moving: the count of openings changed, ask it again.
                if (state == .open || state == .closed), let last = lastState, last != state { openingsAnswered = false }
                lastState = state
                lastLight = light
                // While it flashes, the light is what it was before: the flashing is the warning's.
                inbox.opener(OpenerReport(door: door, state: state, obstructed: obstructed, light: nextFlash == nil ? light : lightBeforeFlash,
                                          locked: locked))
            case .openings(let count):
                openingsAnswered = true
                inbox.openerNews(.openings(door: door, count))
            case .motion:
                inbox.openerNews(.motion(door: door))
            default:
                break
            }
        case .refused(let bytes, let error):
            noteGarbage("opener-packet-refused", [("bytes", Hex.string(bytes, separator: "", lowercase: true)), ("why", error.description)])
        case .dropped(let bytes):
            noteGarbage("opener-packet-cut", [("bytes", Hex.string(bytes, separator: "", lowercase: true)),
                                              ("why", "its rest did not come within 100 ms")])
        }
    }
}

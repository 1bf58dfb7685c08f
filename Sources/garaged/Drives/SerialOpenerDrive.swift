import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
#endif

/// Moves a door by speaking to its opener on the wall-button wire (Security+ 2.0 or 1.0). It only
/// carries bytes: it opens the serial device as the session's line wants (sets it again when
/// the session asks for another, and opens it again when it comes back), reads what is waiting, and writes what its `OpenerSession` says is due,
/// after a break where the wire wants one, telling the session what it wrote and when. The
/// conversation (asks, echoes, silence, the press's release, the warning's flashes) is the
/// session's, in DoorCore; the loop's thread runs both, polling the device among its
/// descriptors, so what the door is told comes from what was written.
final class SerialOpenerDrive: DoorDrive, @unchecked Sendable {
    /// How often a device that went away is tried again.
    static let reopenEvery: Duration = .seconds(1)
    /// The longest wait for a press's release when garaged stops.
    static let stopWithin: Duration = .milliseconds(500)

    let door: Int
    private var port: SerialPort
    private var session: any OpenerSession
    private let clock: any MonotonicClock
    private let log: Logger
    private let doorField: [(String, String)]
    /// While the device is gone: when it is tried again.
    private var reopenAt: Instant?
    /// A break the device refused is said once.
    private var breakFailed = false
    /// The line the device is set to: set again when the session asks for another (`auto`).
    private var portLine: OpenerLine
    /// Keeps what an `auto` search found (beside the PIN table); nil for a set protocol.
    private let keep: ((OpenerIdentity) -> Void)?
    let name: String

    /// A drive for `session`'s wire on `port` (opened with the session's line); `keep` is told
    /// what a search found.
    init(port: SerialPort, session: any OpenerSession, clock: any MonotonicClock, log: Logger, door: Int = 0, name: String? = nil,
         keep: ((OpenerIdentity) -> Void)? = nil) {
        self.door = door
        self.port = port
        self.clock = clock
        self.log = log
        self.session = session
        self.keep = keep
        portLine = session.line
        doorField = name.map { [("door", $0)] } ?? []
        self.name = "opener" + (door == 0 ? "" : "-\(door + 1)")
    }

    /// Nothing to start: the loop serves the device on its own thread.
    func start() {}

    /// Lets a press under way send its release, then closes the device.
    func stop() -> Bool {
        let end = clock.now() + SerialOpenerDrive.stopWithin
        while session.releasePending && clock.now() < end {
            _ = serve()
            let wait = max(.zero, min(end, session.nextWake ?? end) - clock.now())
            var fds = [pollfd(fd: port.fd, events: Int16(POLLIN), revents: 0)]
            _ = waitFor(&fds, timeout: wait)
        }
        port.close()
        return true
    }

    var pollFD: Int32? { port.fd >= 0 ? port.fd : nil }

    var nextWake: Instant? {
        guard let reopenAt else { return session.nextWake }
        return min(reopenAt, session.nextWake ?? reopenAt)
    }

    func ask(_ setting: OpenerSetting) -> Bool { session.ask(setting, at: clock.now()) }

    func carryOut(_ permit: PressPermit) -> Bool { carryOut(permit, deadline: clock.now() + Door.maxRequestAge) }

    /// Takes the permit if it can be written by `deadline`; the loop serves the drive at once.
    func carryOut(_ permit: PressPermit, deadline: Instant) -> Bool {
        if let why = session.carryOut(permit, deadline: deadline, at: clock.now()) {
            log.warning("press-refused", doorField + [("reason", permit.reason.rawValue), ("why", why)])
            return false
        }
        return true
    }

    /// Reads what is waiting, then writes what is due: what the door is to be told, in order.
    func serve() -> [OpenerEvent] {
        var events: [OpenerEvent] = []
        if reopenAt.map({ clock.now() >= $0 }) ?? false { reopen(&events) }
        setLine(&events)
        if port.fd >= 0 {
            while true {
                guard let bytes = port.readAvailable() else {
                    lost(errno == 0 ? "the device hung up" : String(cString: strerror(errno)), &events)
                    break
                }
                if bytes.isEmpty { break }
                events += session.received(bytes, at: clock.now())
            }
        }
        // One packet a call at most is ever due at once, and the line is busy after it.
        for _ in 0..<4 {
            let step = session.due(at: clock.now())
            events += step.events
            setLine(&events)
            guard let packet = step.write else { break }
            let rc = session.line.breakBefore.map { port.sendBreak($0) } ?? 0
            if rc != 0 && !breakFailed {
                breakFailed = true
                log.warning("opener-break-failed", doorField + [("device", port.path), ("error", String(cString: strerror(rc)))])
            }
            let ok = port.writeAll(packet, drain: false)
            let error = ok ? nil : String(cString: strerror(errno))
            events += session.wrote(ok: ok, unsent: ok ? port.unsent() : 0, error: error, at: clock.now())
            if let error, port.fd >= 0 { lost(error, &events) }
        }
        if let keep {
            for case .identified(let found) in events where found.kind != nil && !found.kept { keep(found) }
        }
        return events
    }

    /// Sets the device's line to the session's when it asks for another (`auto` trying the
    /// other wire); a device that refuses is lost and opened again with it.
    private func setLine(_ events: inout [OpenerEvent]) {
        guard port.fd >= 0, session.line != portLine else { return }
        if let error = port.set(session.line) {
            lost(error, &events)
            return
        }
        portLine = session.line
    }

    /// The device failed: closed, the session told, tried again every second.
    private func lost(_ why: String, _ events: inout [OpenerEvent]) {
        port.close()
        reopenAt = clock.now() + SerialOpenerDrive.reopenEvery
        events += session.deviceGone(why, at: clock.now())
    }

    private func reopen(_ events: inout [OpenerEvent]) {
        do {
            port = try SerialPort(path: port.path, line: session.line)
            portLine = session.line
            reopenAt = nil
            events += session.deviceBack(at: clock.now())
        } catch {
            reopenAt = clock.now() + SerialOpenerDrive.reopenEvery
        }
    }
}

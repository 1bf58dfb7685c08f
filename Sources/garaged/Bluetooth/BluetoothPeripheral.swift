import CBluetooth
import CLinux
import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
import Synchronization
#endif

/// Keeps the garage on the air: finds the adapter, serves the ATT channel through the door
/// loop, and advertises (iBeacon plus the book's service). It checks the adapter every second
/// and whenever a phone connects or leaves, so an adapter that is missing at start, goes down,
/// is reset or unplugged is taken back when it returns, while the local socket goes on serving.
final class BluetoothPeripheral: Service, @unchecked Sendable {
    private enum Phase: Equatable {
        case searching(String)   // why there is no usable adapter
        case serving(devID: Int32, listenerFD: Int32)
    }

    private let settings: BluetoothSettings
    /// Where listeners, the pairing agent's reports and the adapter's state go: the door
    /// loop's inbox (Bluetooth never holds the loop itself).
    private let inbox: LoopInbox
    private let log: Logger
    /// With `--ble-security paired`: the pairing agent, or why there can be none (then
    /// Bluetooth stays off rather than serve phones it cannot pair).
    let agent: PairingAgent?
    private let agentProblem: String?
    private let worker = Worker("bluetooth")
    private var wake: WakeEvent { worker.wake }
    private var phase: Phase = .searching("")
    /// Adapters seen since they appeared: one found powered off on first sight (start-up, a
    /// replug) is powered up; one the owner powers off later is left off until they power it on.
    private var seen: Set<String> = []
    /// Set by `poke` (a phone connected or left): advertising must be re-armed.
    private let rearm = Mutex(false)
    /// When advertising was last armed; it is refreshed this often in case the controller was
    /// reset underneath us (a reset keeps the adapter up but clears advertising).
    private var lastArmed: Instant?
    static let refresh: Duration = .seconds(30)
    /// How long to wait after a phone connects or leaves before re-arming advertising.
    static let settle: Duration = .milliseconds(250)

    init(settings: BluetoothSettings, inbox: LoopInbox, log: Logger, bonds: Result<BondStore, StoreError>?) {
        self.settings = settings
        self.inbox = inbox
        self.log = log
        var agent: PairingAgent?
        var problem: String?
        switch bonds {
        case nil:
            break
        case .failure(let error):
            problem = "the bonded phones cannot be read (\(error.description)); fix or remove that file, then restart garaged"
        case .success(let store):
            let wake = worker.wake
            do throws(BluetoothError) {
                agent = try PairingAgent(bonds: store, log: log, wake: { wake.signal() }, inbox: inbox)
            } catch {
                problem = "\(error.description); paired mode cannot work without it"
            }
        }
        self.agent = agent
        self.agentProblem = problem
    }

    func start() {
        if settings.security == .open, let holder = BluetoothPeripheral.bluetoothdPID() {
            log.warning("bluetoothd-running", ["pid": String(holder), "problem": BluetoothPeripheral.bluetoothdProblem,
                                               "fix": BluetoothPeripheral.bluetoothdFix])
        }
        worker.start { [self] in run() }
    }

    /// Something changed (a phone connected or left): re-check and re-advertise now.
    func poke() {
        rearm.withLock { $0 = true }
        wake.signal()
    }

    /// Stops advertising and takes the listener back; waits at most a second.
    func stop() -> Bool { worker.stop(within: .seconds(1)) }

    var name: String { worker.name }

    private func run() {
        var fds = [pollfd(fd: wake.fd, events: Int16(POLLIN), revents: 0)]
        if let agent { fds.append(pollfd(fd: agent.fd, events: Int16(POLLIN), revents: 0)) }
        while !worker.stopping {
            check()
            let now = SystemMonotonicClock().now()
            waitFor(&fds, timeout: min(.seconds(1), agent?.nextDeadline.map { max($0 - now, .zero) } ?? .seconds(1)))
            wake.drain()
            agent?.turn()
            if rearm.withLock({ $0 }) {
                // A phone came or went. Let a power-off that disconnected it finish first, so
                // advertising is not re-armed on an adapter that is about to close.
                waitFor(&fds, timeout: BluetoothPeripheral.settle)
                wake.drain()
            }
        }
        if case .serving(let dev, let fd) = phase {
            cbt_advertise_stop(dev)
            inbox.remove(listenerFD: fd)
        }
    }

    /// Tells the door loop how Bluetooth stands (the status record and systemd's line).
    private func state(_ state: String, _ line: String) {
        inbox.channel(ChannelStatus(name: "bluetooth", record: .object([("state", .string(state)), ("detail", .string(line))]), line: line))
    }

    private func check() {
        var adapter = cbt_adapter()
        let rc = cbt_adapter_find(settings.adapter, &adapter)
        let wanted = settings.adapter ?? "the first adapter"
        guard rc == 0 else {
            seen.removeAll()  // a replugged adapter arrives powered off: power it up on sight
            let why = rc == -EAFNOSUPPORT ? "this kernel has no Bluetooth support"
                : rc == -ENODEV ? "no Bluetooth adapter (\(wanted)) is present"
                : "cannot query \(wanted): \(String(cString: strerror(-rc)))"
            lose(why)
            return
        }
        let name = BluetoothPeripheral.name(of: adapter)
        let firstSight = seen.insert(name).inserted
        if adapter.up == 0 {
            if firstSight {
                let up = cbt_adapter_up(adapter.dev_id)
                log.info("bluetooth-adapter", ["adapter": name, "action": up == 0 ? "powered up" : "could not power up: \(String(cString: strerror(-up)))"])
                if up == 0 { return check() }
            }
            lose("\(name) is powered off (power it on with: sudo btmgmt -i \(name) power on)")
            return
        }
        if settings.security == .paired {
            if let agentProblem { return lose(agentProblem) }
            if let pid = BluetoothPeripheral.bluetoothdPID() {
                return lose("--ble-security paired cannot work alongside bluetoothd (pid \(pid)): it is the pairing agent and key store itself, and would answer phones' pairing and keep their keys; \(BluetoothPeripheral.bluetoothdFix)")
            }
        }
        var startedServing = false
        if case .searching = phase {
            do {
                let listener = try L2CAPListener(adapter: adapter, gatt: settings.gatt, bonds: agent?.bonds) { [weak self] in self?.poke() }
                inbox.add(listener)
                phase = .serving(devID: adapter.dev_id, listenerFD: listener.fd)
                startedServing = true
                agent?.prepare(index: UInt16(adapter.dev_id))
                log.info("bluetooth-serving", ["adapter": listener.adapter, "name": settings.gatt.name])
            } catch {
                lose("\(name): \(error.description)")
                return
            }
        }
        let poked = rearm.withLock { r -> Bool in defer { r = false }; return r }
        let now = SystemMonotonicClock().now()
        let stale = lastArmed.map { now - $0 >= BluetoothPeripheral.refresh } ?? true
        if startedServing || poked || stale {
            lastArmed = now
            advertise(devID: adapter.dev_id, name: name)
        }
    }

    /// Advertising is (re)armed when serving starts, whenever a phone connects or leaves (the
    /// controller stops connectable advertising on a connection, and the next phone must still
    /// find the garage), and every `refresh` in case the controller was reset.
    private func advertise(devID: Int32, name: String) {
        do {
            let adv = try settings.advertising.advertisingData()
            let scan = try settings.advertising.scanResponse()
            var err = [CChar](repeating: 0, count: 256)
            if cbt_advertise(devID, adv, adv.count, scan, scan.count, settings.intervalUnits, &err, err.count) != 0 {
                rearm.withLock { $0 = true }  // try again at the next check
                logOnce("advertising-failed", text(err))
            } else {
                logOnce("advertising", "\(name) every \(Int(settings.intervalUnits) * 625 / 1000) ms")
                state("advertising", "\(name) advertising as \(settings.gatt.name)")
            }
        } catch {
            logOnce("advertising-failed", "\(error)")
        }
    }

    private var lastNote = ""

    /// Logs a state only when it changes, so a once-a-second check never floods the journal.
    private func logOnce(_ event: String, _ detail: String) {
        let note = event + detail
        guard note != lastNote else { return }
        lastNote = note
        if event.hasSuffix("failed") { log.warning(event, ["detail": detail]) } else { log.info(event, ["detail": detail]) }
    }

    private func lose(_ why: String) {
        if case .serving(_, let fd) = phase {
            inbox.remove(listenerFD: fd)
            agent?.adapterLost(why)
        }
        lastArmed = nil
        if phase != .searching(why) {
            state("unavailable", "unavailable: \(why)")
            log.warning("bluetooth-unavailable", ["why": why, "meanwhile": "the local socket keeps serving; retrying every second"])
        }
        phase = .searching(why)
        lastNote = ""
    }

    /// Why a running bluetoothd is in the way, and what to do: said at start and by the doctor.
    static let bluetoothdProblem = "bluetoothd serves its own GATT database on the same ATT channel, so phones may not see the garage service"
    static let bluetoothdFix = "sudo systemctl disable --now bluetooth; sudo btmgmt le on; sudo btmgmt power on; then restart garaged"

    static func name(of adapter: cbt_adapter) -> String {
        cField(adapter.name)
    }

    /// The pid of a running bluetoothd, from the process names in `proc` (/proc; the doctor's
    /// tests give a folder of their own).
    static func bluetoothdPID(proc: String = "/proc") -> Int32? {
        guard let dir = opendir(proc) else { return nil }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = cField(entry.pointee.d_name)
            guard let pid = Int32(name), let f = fopen("\(proc)/\(name)/comm", "r") else { continue }
            var buf = [CChar](repeating: 0, count: 64)
            let comm = fgets(&buf, 64, f) != nil ? text(buf) : ""
            fclose(f)
            if comm.hasPrefix("bluetoothd") { return pid }
        }
        return nil
    }
}

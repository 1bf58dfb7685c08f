import CLinux
import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
#endif

/// Wires the parts together and runs them until SIGTERM or SIGINT: the table (locked, then
/// loaded), the relay line (claimed inactive), the pulse driver, the socket, the door loop.
struct Daemon {
    let settings: Settings
    let log: Logger
    let notifier: ServiceNotifier

    /// Every signal that would end the process at once by default; only the main thread's
    /// sigwait takes them. SIGTERM, SIGINT and SIGQUIT stop the daemon cleanly; the others
    /// (SIGHUP included: garaged reads its settings only at start) are logged and ignored.
    static var handledSignals: sigset_t {
        var set = sigset_t()
        clinux_daemon_signals(&set)
        return set
    }

    /// Must run before the first thread starts (the logger's included): threads inherit the
    /// mask, so no such signal can kill the process mid-press; it reaches only the main
    /// thread's sigwait. Writes to a closed pipe and past a file-size limit fail with an error
    /// (EPIPE, EFBIG) instead of a signal.
    static func blockSignals() {
        var set = handledSignals
        pthread_sigmask(SIG_BLOCK, &set, nil)
        signal(SIGPIPE, SIG_IGN)
        signal(SIGXFSZ, SIG_IGN)
    }

    /// Forbids core dumps before anything secret is read: garaged's memory holds the PIN table,
    /// the MQTT password and HomeKit's seed. Returns why it could not, nil when it did.
    static func forbidCoreDumps() -> String? {
        let rc = clinux_forbid_core_dumps()
        return rc == 0 ? nil : String(cString: strerror(rc))
    }

    static func name(of signal: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 32)
        clinux_signal_name(signal, &buffer, buffer.count)
        return text(buffer)
    }

    /// Descriptors garaged needs beyond those open at start: its own (lock, relay, listeners,
    /// wake-ups, event files, a spare), `DoorLoop.reservedDescriptors` for saves and Bluetooth,
    /// and room for a few connections.
    static let descriptorsNeeded = 20 + DoorLoop.reservedDescriptors + 4

    func run() throws {
        // Before any listener exists: what a client sends before the loop first looks came
        // after this (a start held up past 2 s makes it stale, as a stall would).
        let startedAt = PacketSocket.realtimeNow()
        let clock = SystemMonotonicClock()
        let limit = clinux_fd_limit(), open = Int64(clinux_open_fd_count())
        if limit >= 0, open >= 0, limit - open < Daemon.descriptorsNeeded {
            throw StartupError(description: "the limit on open files (\(limit), with \(open) already open) is too low for garaged, which needs \(open + Int64(Daemon.descriptorsNeeded)); raise it (ulimit -n, or LimitNOFILE= in the unit)")
        }
        do {
            try settings.checkFiles()
            try settings.checkOpenerUARTs(on: RaspberryPi.serial())
        } catch { throw StartupError(description: error.description) }
        for (what, path) in settings.secretFiles {
            if let problem = Settings.exposure(of: path) { log.warning("secret-readable", ["file": what, "problem": problem]) }
        }
        // MQTT is set up (TLS included) before any line is claimed: TLS that cannot be set up
        // stops garaged here, naming the CA; it never falls back to plain text.
        let inbox = LoopInbox()
        let mqtt = try settings.mqtt.map { m in
            try MQTTChannel(settings: m, ha: HomeAssistant(prefix: m.prefix, discoveryPrefix: m.discoveryPrefix, node: m.clientID,
                                                           name: settings.bleName, commandsEnabled: m.commands,
                                                           version: BuildInfo.version,
                                                           covers: settings.doors.map {
                                                               HomeAssistant.Cover(id: $0.id, name: $0.name, has: $0.capabilities)
                                                           }),
                            log: log, inbox: inbox)
        }
        let tableFile = PinTableFile(path: settings.pins)
        let lock: TableLock
        let table: PinTable
        let hardware: [DoorHardware]
        do {
            lock = try TableLock.acquire(tablePath: settings.pins)
            // The lock is ours, so no save is under way: what a killed save left is stale.
            let labelsPath = LabelsFile(tablePath: settings.pins).path
            let accessPath = DoorAccessFile(tablePath: settings.pins).path
            let bondsPath = BondsFile(tablePath: settings.pins).path
            let homekitPath = HomeKitFile(tablePath: settings.pins).path
            let others = settings.doors.indices.flatMap { DoorSetup.keptPaths(tablePath: settings.pins, $0, settings.doors[$0]) }
            for stale in ([settings.pins, labelsPath, accessPath, bondsPath, homekitPath] + others).flatMap(AtomicFile.removeStaleTemporaries(of:)) {
                log.warning("stale-temporary-removed", ["file": stale, "why": "left by a save that was interrupted (a copy of the table or a file beside it)"])
            }
            table = try tableFile.load()
            hardware = try DoorSetup.claimAll(settings.doors, clock: clock)
        } catch let e as StoreError {
            throw StartupError(description: e.description)
        } catch let e as RelayError {
            throw StartupError(description: e.description)
        }
        // Paired mode's phones and keys; unreadable, Bluetooth stays off (the socket serves).
        var bonds: Result<BondStore, StoreError>?
        if settings.ble && settings.bluetooth.security == .paired {
            do throws(StoreError) { bonds = .success(try BondStore(file: BondsFile(tablePath: settings.pins))) } catch {
                bonds = .failure(error)
                log.error("bonds-unreadable", ["error": error.description, "effect": "Bluetooth stays off until the file is fixed or removed"])
            }
        }
        var listeners: [Listener] = []
        let homekit: HomeKitAccessory?
        do {
            homekit = try settings.homekit ? startHomeKit(clock: clock, inbox: inbox, listeners: &listeners) : nil
            let local = try LocalListener(path: settings.socket,
                                          group: settings.socketGroup.map { ($0.name, $0.gid) },
                                          required: settings.socketGroup?.explicit ?? false)
            if let problem = local.groupProblem {
                log.warning("socket-group", ["problem": problem, "effect": "only the daemon's own user and root can use the socket"])
            }
            listeners.append(local)
            if let path = settings.attSocket {
                listeners.append(try ATTSocketListener(path: path, gatt: settings.bluetooth.gatt, bonds: try? bonds?.get()))
            }
        } catch {
            for l in listeners { l.close() }
            for h in hardware { h.releaseAll() }
            throw StartupError(description: error.description)
        }
        let setups = hardware.indices.map { i in
            DoorSetup(index: i, settings: settings.doors[i], hardware: hardware[i], tablePath: settings.pins, clock: clock, log: log)
        }
        var parts: [DoorParts] = []
        for d in setups {
            let index = d.index, name = setups.count > 1 ? d.settings.id : nil
            let drive: any DoorDrive
            if let port = d.hardware.opener, case .secPlus1 = d.settings.opener {
                // Security+ 1.0 has no identity and no codes: nothing kept beside the table.
                drive = SerialOpenerDrive(port: port, session: SecPlus1Session(device: port.path, door: index, timing: d.secPlus1Timing, at: clock.now()),
                                          clock: clock, log: log, door: index, name: name)
            } else if let port = d.hardware.opener {
                // The rolling codes and the client id, kept beside the table: unreadable, this
                // door's opener is off (no code risked twice), and every other door serves.
                do {
                    let codes = try SecPlus2Codes(file: SecPlus2CodesFile(tablePath: settings.pins, door: DoorSetup.fileName(index, d.settings)))
                    if case .auto = d.settings.opener {
                        drive = autoDrive(port: port, codes: codes, door: d, name: name, clock: clock)
                    } else {
                        drive = SerialOpenerDrive(port: port, session: SecPlus2Session(device: port.path, codes: codes, door: index, at: clock.now()),
                                                  clock: clock, log: log, door: index, name: name)
                    }
                } catch {
                    port.close()
                    drive = OpenerOffDrive(door: index, name: name, why: error.description, log: log)
                }
            } else {
                drive = PulseDriver(line: d.hardware.relay!, pulse: d.settings.timing.pulse, clock: clock, log: log, door: index, name: name) { overran in
                    inbox.relayReleased(door: index, overran: overran)
                }
            }
            parts.append(DoorParts(index: index, drive: drive, outputs: d.hardware.outputs, switches: d.hardware.switches))
        }
        let labelsFile = LabelsFile(tablePath: settings.pins)
        var labels = Labels()
        do {
            labels = try labelsFile.load()
        } catch {
            // The door must still open: run without names, and say how to fix the file.
            log.warning("labels-unreadable", ["error": error.description])
        }
        let accessFile = DoorAccessFile(tablePath: settings.pins)
        var access = DoorAccess()
        do {
            access = try accessFile.load()
        } catch {
            // The safe side: no guest gains a door; the master PIN still opens every one.
            access = .unreadableFile
            log.warning("door-access-unreadable", ["error": error.description,
                                                   "effect": "only the master PIN uses a named door until the file is fixed"])
        }
        let controller = Controller(table: table, doors: setups.map(\.unit), store: tableFile, labels: labels, labelStore: labelsFile,
                                    access: access, accessStore: accessFile)
        let keptFile = EventHistoryFile(path: settings.eventsPath)
        let attemptsFile = EventHistoryFile(path: EventHistoryFile.attemptsPath(forEvents: settings.eventsPath))
        let history = EventLog(kept: loadHistory(keptFile), attempts: loadHistory(attemptsFile))
        let events = EventWriter(kept: keptFile, attempts: attemptsFile, log: log)
        let peripheral = settings.ble ? BluetoothPeripheral(settings: settings.bluetooth, inbox: inbox, log: log, bonds: bonds) : nil
        // HomeKit's _hap._tcp record through avahi-daemon: published last, withdrawn first.
        let mdns = homekit.map { HomeKitAdvertiser(accessory: $0, listeners: listeners, log: log) }
        let subscribers: [any DoorSubscriber] = [notifier] + (mqtt.map { [$0] } ?? []) + (homekit.map { [$0] } ?? [])
        let owners: [any OwnerCommands] = (peripheral?.agent.map { [$0] } ?? []) + (homekit.map { [$0] } ?? [])
        let loop = DoorLoop(controller: controller, doors: parts,
                            listeners: listeners, inbox: inbox, subscribers: subscribers, notifier: notifier,
                            owners: owners, clock: clock, log: log, history: history, events: events,
                            startedAt: startedAt)
        loop.record(EventRecord(time: EventRecord.now(), kind: .start, source: "garaged", detail: "pid \(getpid())"))
        // The first door's fields where the one door's always were, so its start line reads as before.
        let first = setups[0].startFields
        var fields: [(String, String)] = [
            ("pid", String(getpid())), ("pins", settings.pins), ("slots", "\(table.entries.count + 1)/\(table.capacity)"),
            ("listening", listeners.map(\.description).joined(separator: ", ")),
        ]
        fields += first.prefix(4)
        fields += [("ble", settings.ble ? settings.bleAdapter ?? "first adapter" : "off"),
                   ("ble_security", settings.bluetooth.security.rawValue)]
        fields += first.dropFirst(4)
        fields += [("events", settings.eventsPath), ("max_connections", String(loop.connectionLimit))]
        if setups.count > 1 { fields.append(("doors", setups.map { $0.settings.id! }.joined(separator: ","))) }
        log.info("start", fields)
        for d in setups.dropFirst() { log.info("door-ready", [("door", d.settings.id!)] + d.startFields) }
        for d in setups { warnAboutAutoClose(d.unit.door.timing, sensing: d.settings.sensing, door: d.settings.id) }
        if let m = settings.mqtt {
            log.info("mqtt", ["broker": m.url, "client_id": m.clientID, "user": m.user ?? "-",
                              "commands": m.commands ? "on (lock the command topic down with the broker's ACL)" : "off (state only)"])
        }
        // Started in this order, stopped in the reverse: the history's writer, the door's lines,
        // each door's drive, the door loop, then what brings requests in (Bluetooth, Home
        // Assistant) and HomeKit's advertising (mdns). On stop, nothing new comes in, the loop
        // answers what it took and closes its connections, the relay ends its press and lets
        // go, the other lines are released, the history is written. Each stop waits at most its
        // own deadline.
        // (In steps: as one expression it is too much for the type checker of Debian's Swift 6.0.3.)
        var ordered: [any Service] = [events]
        ordered += hardware.map { DoorLines($0) as any Service }
        ordered += parts.map { $0.drive as any Service }
        ordered.append(loop)
        let requests: [(any Service)?] = [peripheral, mqtt, mdns]
        let services = ServiceGroup(services: ordered + requests.compactMap { $0 })
        services.start()

        let received = waitForStopSignal()
        notifier.stopping("SIG" + Daemon.name(of: received))
        log.info("stopping", ["signal": Daemon.name(of: received)])
        loop.stopReason = "SIG" + Daemon.name(of: received)
        for name in services.stop() {
            log.error("stop-slow", ["service": name, "effect": "its thread is left; the kernel releases every line when garaged exits"])
        }
        withExtendedLifetime(lock) {}
        log.info("stopped", ["relay": "inactive"])
        log.flush()
    }

    /// The HomeKit accessory and its listener: the kept keys and pairings (made on the first
    /// start), the database of the configured doors. The setup code is never logged. Nil, said
    /// as an error in the log, when the kept state cannot be loaded or saved: HomeKit stays off
    /// and the door serves its other channels.
    private func startHomeKit(clock: any MonotonicClock, inbox: LoopInbox, listeners: inout [Listener]) throws(ConfigError) -> HomeKitAccessory? {
        let crypto = LibCrypto()
        let database = HAPDatabase(name: settings.homekitName,
                                   doors: settings.doors.map(homeKitDoor),
                                   firmware: BuildInfo.version, serial: "garaged")
        let file = HomeKitFile(tablePath: settings.pins)
        let state: HAPAccessoryState
        do { state = try HomeKitAccessory.load(file: file, database: database, crypto: crypto) } catch {
            log.error("homekit-off", ["file": file.path, "error": error.description,
                                      "effect": "HomeKit stays off until the file is fixed or removed and garaged restarted; the door serves its other channels"])
            return nil
        }
        let accessory = HomeKitAccessory(state: state, file: file, database: database, crypto: crypto, clock: clock, inbox: inbox,
                                         log: log)
        let listener = try HomeKitListener(bind: settings.homekitBind, port: settings.homekitPort, accessory: accessory, clock: clock)
        listeners.append(listener)
        log.info("homekit", ["port": String(listener.port), "address": listener.address, "id": state.id,
                             "paired": String(state.pairings.count), "config_number": String(state.configNumber),
                             "category": String(database.category)])
        return accessory
    }

    /// A door as HomeKit shows it: a service for each part the door has (`DoorSettings.capabilities`).
    private func homeKitDoor(_ d: DoorSettings) -> HAPDatabase.Door {
        HAPDatabase.Door(name: d.name ?? d.id ?? settings.homekitName, has: d.capabilities)
    }

    /// Says at start what an automatic close will do without the safeguards a garage should
    /// have (see `autoCloseWarnings`).
    private func warnAboutAutoClose(_ timing: DoorTiming, sensing: DoorSensing, door: String?) {
        for (event, why) in Daemon.autoCloseWarnings(timing, sensing: sensing) {
            log.warning(event, (door.map { [("door", $0)] } ?? []) + [("after_s", String(timing.autoClose?.secondsRoundedUp ?? 0)), ("why", why)])
        }
    }

    /// What an automatic close lacks: a warning output (the U.S. rule for openers that close
    /// unattended, 16 CFR 1211.14, asks for 5 s of light and sound first), a long enough
    /// warning, a sensor. The log and `garaged doctor` both say it.
    static func autoCloseWarnings(_ timing: DoorTiming, sensing: DoorSensing) -> [(event: String, why: String)] {
        guard timing.autoClose != nil else { return [] }
        var found: [(String, String)] = []
        if let w = timing.warning, w < DoorTiming.warningMinimum {
            found.append(("warning-short", "the warning (\(w.secondsRoundedUp) s) is below the 5 s the U.S. rule for unattended closing asks (16 CFR 1211.14)"))
        }
        if timing.warning == nil {
            found.append(("auto-close-unwarned", "no warning output (--warn): nobody in the garage is warned before the door closes by itself; the U.S. rule (16 CFR 1211.14) asks for 5 s of light and sound first"))
        }
        if sensing.believed {
            found.append(("auto-close-blind", "no position sensor: garaged only believes the door is open. If someone closed it by hand, the auto-close press opens it again and leaves it open; wire a reed switch (--sensor-closed)"))
        }
        return found
    }

    /// What the U.S. rule for openers that close unattended (16 CFR 1211.14, from UL 325) asks of
    /// an installer, in `doctor` and the README: auto-close and remote closes are unattended.
    static let unattendedCloseRule = [
        "the rule (16 CFR 1211.14): an unattended close is allowed only for a sectional door, never a one-piece (tilt-up) or swinging door",
        "the rule: before the door moves, at least 5 s of warning both audible (700-3400 Hz, 45 dB at 10 ft) and visible (flashing at least once a second)",
        "the rule: auto-close belongs only on an opener whose own photo-eyes (obstruction sensors) are fitted and work",
    ]

    /// Takes signals until one that stops the daemon; the others are logged and ignored.
    private func waitForStopSignal() -> Int32 {
        var signals = Daemon.handledSignals
        while true {
            var received: Int32 = 0
            guard sigwait(&signals, &received) == 0 else { continue }
            switch received {
            case SIGTERM, SIGINT, SIGQUIT:
                return received
            case SIGHUP:
                log.info("signal-ignored", ["signal": "HUP",
                                            "why": "garaged reads its settings only at start; restart it to apply a changed config"])
            default:
                log.info("signal-ignored", ["signal": Daemon.name(of: received), "why": "it has no meaning for garaged"])
            }
        }
    }

    /// One part of the history as its files hold it; unreadable means empty, said in the log.
    private func loadHistory(_ file: EventHistoryFile) -> EventHistory {
        do {
            let (loaded, skipped) = try file.history()
            if skipped > 0 {
                log.warning("events-skipped", ["file": file.path, "records": String(skipped),
                                               "why": "torn or corrupt lines (a power cut mid-write); the rest is intact"])
            }
            return loaded
        } catch {
            log.warning("events-unreadable", ["error": error.description, "why": "starting with an empty history"])
            return EventHistory()
        }
    }
}

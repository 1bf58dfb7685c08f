import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// Why the daemon could not start; the message says what to do.
struct StartupError: Error, CustomStringConvertible {
    var description: String
}

/// Wires the parts together and runs them until SIGTERM or SIGINT: the table (locked, then
/// loaded), the relay line (claimed inactive), the pulse driver, the socket, the door loop.
struct Daemon {
    let settings: Settings
    let log: Logger

    /// SIGTERM and SIGINT, which only the main thread's sigwait may take.
    static var stopSignals: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        return set
    }

    /// Must run before the first thread starts (the logger's included): threads inherit the
    /// mask, so a stop signal can only reach the main thread's sigwait, never kill the process.
    static func blockStopSignals() {
        var set = stopSignals
        pthread_sigmask(SIG_BLOCK, &set, nil)
        signal(SIGPIPE, SIG_IGN)
    }

    func run() throws {
        let clock = SystemMonotonicClock()
        let tableFile = PinTableFile(path: settings.pinsPath)
        let lock: TableLock
        let table: PinTable
        let line: any RelayLine
        do {
            lock = try TableLock.acquire(tablePath: settings.pinsPath)
            table = try tableFile.load()
            line = try settings.relay.open(activeLow: settings.activeLow, clock: clock)
        } catch let e as TableFileError {
            throw StartupError(description: e.description)
        } catch let e as RelayError {
            throw StartupError(description: e.description)
        }
        var listeners: [Listener] = []
        do {
            listeners.append(try LocalListener(path: settings.socketPath))
            if let path = settings.attSocketPath {
                listeners.append(try ATTSocketListener(path: path, gatt: settings.bluetooth.gatt))
            }
        } catch {
            for l in listeners { l.close() }
            line.close()
            throw StartupError(description: error.description)
        }
        let pulser = PulseDriver(line: line, pulse: settings.timing.pulse, clock: clock, log: log)
        let labelsFile = LabelsFile(tablePath: settings.pinsPath)
        var labels = Labels()
        do {
            labels = try labelsFile.load()
        } catch {
            // The door must still open: run without names, and say how to fix the file.
            log.warning("labels-unreadable", ["error": error.description])
        }
        let controller = Controller(table: table, door: Door(timing: settings.timing), store: tableFile,
                                    labels: labels, labelStore: labelsFile)
        let eventFile = EventHistoryFile(path: settings.eventsPath)
        var history = EventHistory()
        do {
            let (loaded, skipped) = try eventFile.history()
            history = loaded
            if skipped > 0 {
                log.warning("events-skipped", ["file": settings.eventsPath, "records": String(skipped),
                                               "why": "torn or corrupt lines (a power cut mid-write); the rest is intact"])
            }
        } catch {
            log.warning("events-unreadable", ["error": error.description, "why": "starting with an empty history"])
        }
        let events = EventWriter(file: eventFile, log: log)
        events.start()
        let loop = DoorLoop(controller: controller, pulser: pulser, listeners: listeners, clock: clock, log: log,
                            history: history, events: events)
        loop.record(.start, source: "garaged", detail: "pid \(getpid())")
        let t = settings.timing
        log.info("start", [
            "pid": String(getpid()), "pins": settings.pinsPath,
            "slots": "\(table.entries.count + 1)/\(table.capacity)",
            "listening": listeners.map(\.description).joined(separator: ", "),
            "relay": line.description, "pulse_ms": String(t.pulse.nanoseconds / 1_000_000),
            "travel_s": String(t.travel.secondsRoundedUp),
            "auto_close_s": t.autoClose.map { String($0.secondsRoundedUp) } ?? "off",
            "ble": settings.bluetoothEnabled ? settings.bluetooth.adapter ?? "first adapter" : "off",
            "door": "CLOSED (assumed)", "events": settings.eventsPath,
        ])
        let ble = settings.bluetooth
        let peripheral = !settings.bluetoothEnabled ? nil :
            BluetoothPeripheral(settings: .init(adapter: ble.adapter, gatt: ble.gatt, advertising: ble.advertising,
                                                intervalUnits: ble.intervalUnits), loop: loop, log: log)
        loop.start()
        peripheral?.start()

        var received: Int32 = 0
        var stopSignals = Daemon.stopSignals
        sigwait(&stopSignals, &received)
        log.info("stopping", ["signal": received == SIGTERM ? "TERM" : "INT"])
        peripheral?.stop()
        loop.stop(reason: received == SIGTERM ? "SIGTERM" : "SIGINT")
        pulser.shutdown()
        events.stop()
        withExtendedLifetime(lock) {}
        log.info("stopped", ["relay": "inactive"])
        log.flush()
    }
}

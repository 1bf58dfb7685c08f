import CLinux
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
        let clock = SystemMonotonicClock()
        let limit = clinux_fd_limit(), open = Int64(clinux_open_fd_count())
        if limit >= 0, open >= 0, limit - open < Daemon.descriptorsNeeded {
            throw StartupError(description: "the limit on open files (\(limit), with \(open) already open) is too low for garaged, which needs \(open + Int64(Daemon.descriptorsNeeded)); raise it (ulimit -n, or LimitNOFILE= in the unit)")
        }
        let tableFile = PinTableFile(path: settings.pins)
        let lock: TableLock
        let table: PinTable
        let line: any RelayLine
        do {
            lock = try TableLock.acquire(tablePath: settings.pins)
            // The lock is ours, so no save is under way: what a killed save left is stale.
            let labelsPath = LabelsFile(tablePath: settings.pins).path
            for stale in AtomicFile.removeStaleTemporaries(of: settings.pins) + AtomicFile.removeStaleTemporaries(of: labelsPath) {
                log.warning("stale-temporary-removed", ["file": stale, "why": "left by a save that was interrupted (it held PINs)"])
            }
            table = try tableFile.load()
            line = try settings.relay.open(activeLow: settings.activeLow, clock: clock)
        } catch let e as TableFileError {
            throw StartupError(description: e.description)
        } catch let e as RelayError {
            throw StartupError(description: e.description)
        }
        var listeners: [Listener] = []
        do {
            let local = try LocalListener(path: settings.socket,
                                          group: settings.socketGroup.map { ($0.name, $0.gid) },
                                          required: settings.socketGroup?.explicit ?? false)
            if let problem = local.groupProblem {
                log.warning("socket-group", ["problem": problem, "effect": "only the daemon's own user and root can use the socket"])
            }
            listeners.append(local)
            if let path = settings.attSocket {
                listeners.append(try ATTSocketListener(path: path, gatt: settings.bluetooth.gatt))
            }
        } catch {
            for l in listeners { l.close() }
            line.close()
            throw StartupError(description: error.description)
        }
        let pulser = PulseDriver(line: line, pulse: settings.timing.pulse, clock: clock, log: log)
        let labelsFile = LabelsFile(tablePath: settings.pins)
        var labels = Labels()
        do {
            labels = try labelsFile.load()
        } catch {
            // The door must still open: run without names, and say how to fix the file.
            log.warning("labels-unreadable", ["error": error.description])
        }
        let controller = Controller(table: table, door: Door(timing: settings.timing), store: tableFile,
                                    labels: labels, labelStore: labelsFile)
        let keptFile = EventHistoryFile(path: settings.eventsPath)
        let attemptsFile = EventHistoryFile(path: EventHistoryFile.attemptsPath(forEvents: settings.eventsPath))
        let history = EventLog(kept: loadHistory(keptFile), attempts: loadHistory(attemptsFile))
        let events = EventWriter(kept: keptFile, attempts: attemptsFile, log: log)
        events.start()
        let loop = DoorLoop(controller: controller, pulser: pulser, listeners: listeners, clock: clock, log: log,
                            history: history, events: events)
        loop.record(.start, source: "garaged", detail: "pid \(getpid())")
        let t = settings.timing
        log.info("start", [
            "pid": String(getpid()), "pins": settings.pins,
            "slots": "\(table.entries.count + 1)/\(table.capacity)",
            "listening": listeners.map(\.description).joined(separator: ", "),
            "relay": line.description, "pulse_ms": String(t.pulse.nanoseconds / 1_000_000),
            "travel_s": String(t.travel.secondsRoundedUp),
            "auto_close_s": t.autoClose.map { String($0.secondsRoundedUp) } ?? "off",
            "ble": settings.ble ? settings.bleAdapter ?? "first adapter" : "off",
            "door": "CLOSED (assumed)", "events": settings.eventsPath,
            "max_connections": String(loop.connectionLimit),
        ])
        let peripheral = settings.ble ? BluetoothPeripheral(settings: settings.bluetooth, loop: loop, log: log) : nil
        loop.start()
        peripheral?.start()

        let received = waitForStopSignal()
        log.info("stopping", ["signal": Daemon.name(of: received)])
        peripheral?.stop()
        loop.stop(reason: "SIG" + Daemon.name(of: received))
        pulser.shutdown()
        events.stop()
        withExtendedLifetime(lock) {}
        log.info("stopped", ["relay": "inactive"])
        log.flush()
    }

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

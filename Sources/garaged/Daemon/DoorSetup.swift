import DoorCore
import DoorSystem

/// One door made ready at start, from its settings and the files kept beside the table: its
/// lines (claimed by `DoorHardware`), the app's closing interval, a close that failed before a
/// restart, and the state machine built from them.
struct DoorSetup {
    let index: Int
    let settings: DoorSettings
    let hardware: DoorHardware
    let intervalFile: ClosingIntervalFile
    let doorStateFile: DoorStateFile
    /// The interval the app set with `C=`, when it did (it wins over the config).
    let storedInterval: Int?
    let unit: DoorUnit

    /// The name in the files kept per door: none for the first, so a config that moves its one
    /// door into a section keeps that door's files.
    static func fileName(_ index: Int, _ settings: DoorSettings) -> String? { index == 0 ? nil : settings.id }

    /// Security+ 1.0's times, its listening for a wall panel as the door's settings say.
    var secPlus1Timing: SecPlus1Session.Timing {
        var timing = SecPlus1Session.Timing()
        timing.listenFor = .seconds(settings.openerListenS)
        return timing
    }

    /// The files kept beside the table for door `index` (for the stale-temporary sweep).
    static func keptPaths(tablePath: String, _ index: Int, _ settings: DoorSettings) -> [String] {
        let name = fileName(index, settings)
        return [ClosingIntervalFile(tablePath: tablePath, door: name).path, DoorStateFile(tablePath: tablePath, door: name).path,
                SecPlus2CodesFile(tablePath: tablePath, door: name).path, OpenerFoundFile(tablePath: tablePath, door: name).path]
    }

    /// Claims every door's lines, all or none: a door that cannot be claimed gives back the
    /// lines of the doors before it.
    static func claimAll(_ doors: [DoorSettings], clock: any MonotonicClock) throws(RelayError) -> [DoorHardware] {
        var claimed: [DoorHardware] = []
        for door in doors {
            do throws(RelayError) { claimed.append(try DoorHardware.claim(door, clock: clock)) } catch {
                for h in claimed { h.releaseAll() }
                throw RelayError("\(door.id.map { "door \($0): " } ?? "")\(error.description)")
            }
        }
        return claimed
    }

    /// Reads the door's kept files (an unreadable one is logged and the safe reading taken)
    /// and builds its state machine from them and the lines' first readings.
    init(index: Int, settings: DoorSettings, hardware: DoorHardware, tablePath: String, clock: any MonotonicClock, log: Logger) {
        self.index = index
        self.settings = settings
        self.hardware = hardware
        let name = DoorSetup.fileName(index, settings)
        let door: [(String, String)] = settings.id.map { [("door", $0)] } ?? []
        intervalFile = ClosingIntervalFile(tablePath: tablePath, door: name)
        var stored: Int?
        do {
            stored = try intervalFile.load()
        } catch {
            // The door must still open: the configured interval applies until `C=` saves anew.
            log.warning("autoclose-unreadable", door + [("error", error.description),
                        ("effect", "auto-close-s (\(settings.autoCloseS) s) applies; the app's C= writes the file anew")])
        }
        storedInterval = stored
        doorStateFile = DoorStateFile(tablePath: tablePath, door: name)
        var closeFailedKept = false
        do {
            closeFailedKept = try doorStateFile.load()
        } catch {
            closeFailedKept = true
            log.warning("door-state-unreadable", door + [("error", error.description),
                        ("effect", "held as after a failed close: no automatic close until the door is seen closed")])
        }
        var timing = settings.timing
        if let stored { timing.autoClose = stored == 0 ? nil : .seconds(stored) }
        let machine = Door(timing: timing, sensing: settings.sensing, debounce: .milliseconds(settings.sensorDebounceMs),
                           closed: hardware.closedActive, open: hardware.openActive, obstructed: hardware.obstructed,
                           autoCloseAnyOpening: settings.autoCloseAny, closeFailed: closeFailedKept, at: clock.now(),
                           index: index)
        if machine.closeFailed {
            log.warning("close-failed-kept", door + [("why", "a close did not reach CLOSED before garaged last stopped"),
                                                     ("effect", "no automatic close until the door is seen closed")])
        }
        unit = DoorUnit(door: machine, id: settings.id, name: settings.name, intervalStore: intervalFile, doorStateStore: doorStateFile,
                        keptCloseFailed: closeFailedKept)
    }

    /// The door's part of the start line: its relay and timing (the first four), then where it
    /// is, its switches and outputs.
    var startFields: [(String, String)] {
        let t = unit.door.timing
        let autoClose = (t.autoClose.map { String($0.secondsRoundedUp) } ?? "off") + (storedInterval != nil ? " (set from the app)" : "")
        let switchList = hardware.switches.map { "\($0.which.rawValue) \($0.description)" }.joined(separator: ", ")
        let warningLine = hardware.outputs.warning.map { "\($0.description), \(settings.warnS) s" } ?? "none"
        return [
            ("relay", hardware.relay?.description ?? "none (opener \(settings.opener.map(String.init(describing:)) ?? "-"))"), ("pulse_ms", String(t.pulse.nanoseconds / 1_000_000)),
            ("travel_s", String(t.travel.secondsRoundedUp)), ("auto_close_s", autoClose),
            ("door", unit.door.position.rawValue + (settings.capabilities.position == .believed ? " (assumed)" : "")),
            ("sensing", settings.sensing.description), ("switches", switchList.isEmpty ? "none" : switchList),
            ("warning", warningLine), ("light", hardware.outputs.light?.description ?? "none"),
        ]
    }
}

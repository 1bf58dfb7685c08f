import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
#endif

/// The checks `garaged doctor` runs, each on one part of what the daemon needs; the parts are
/// in `DoctorChecks+Files.swift` (table, events, socket), `DoctorChecks+Lines.swift` (GPIO), `DoctorChecks+Opener.swift` (a Security+ 2.0 or 1.0 opener's UART),
/// `DoctorChecks+Radio.swift` (Bluetooth, MQTT), `DoctorChecks+HomeKit.swift` (avahi),
/// `DoctorChecks+System.swift` (the OS release, first, even when the settings fail). Every
/// check only looks.
struct DoctorChecks {
    let settings: Settings
    /// Where the machine's own files are read: the Pi's model and config.txt, cmdline.txt,
    /// systemd's gettys, the processes (bluetoothd). "" for /; `GARAGED_DOCTOR_ROOT` when set,
    /// or a test's folder, so that the checks can be tried on files made for them.
    let root: String

    init(settings: Settings, root: String = DoctorChecks.environmentRoot) {
        self.settings = settings
        self.root = root
    }

    /// `GARAGED_DOCTOR_ROOT`, or "" (the machine's own /).
    static var environmentRoot: String { getenv("GARAGED_DOCTOR_ROOT").map { String(cString: $0) } ?? "" }

    /// The pid of a garaged already running with this table, whose lines and socket are
    /// rightly in use.
    var runningDaemon: Int32? { TableLock.holder(tablePath: settings.pins) }

    func run(into report: inout DoctorReport) {
        table(into: &report)
        events(into: &report)
        secrets(into: &report)
        socket(into: &report)
        lines(into: &report)
        openers(into: &report)
        parts(into: &report)
        safety(into: &report)
        bluetooth(into: &report)
        mqtt(into: &report)
        homekit(into: &report)
    }

    /// What each door has, from its table of parts (`DoorSettings.capabilities`): what its
    /// status, HomeKit and Home Assistant will show, and nothing else.
    func parts(into report: inout DoctorReport) {
        for door in settings.doors {
            report.add(.ok, door.id.map { "\($0) parts" } ?? "parts", door.capabilities.summary)
        }
    }

    /// What an automatic close would do without the safeguards a garage should have, and the
    /// rule an installer must meet.
    private func safety(into report: inout DoctorReport) {
        var autoClosing = false
        for door in settings.doors {
            let name = door.id.map { "\($0) auto-close" } ?? "auto-close"
            guard door.timing.autoClose != nil else {
                report.add(.ok, name, "off")
                continue
            }
            autoClosing = true
            let warnings = Daemon.autoCloseWarnings(door.timing, sensing: door.sensing)
            if warnings.isEmpty { report.add(.ok, name, "warned (\(door.warnS) s) and sensed") }
            for (_, why) in warnings { report.add(.warn, name, why) }
        }
        if autoClosing { for line in Daemon.unattendedCloseRule { report.add(.ok, "auto-close", line) } }
    }

    static func errnoText(_ e: Int32 = errno) -> String { String(cString: strerror(e)) }
}

import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// Everything the daemon runs with, after flags, the config file and defaults are merged
/// (a flag wins over the file, the file over the default) and every value is range-checked.
struct Settings {
    var pinsPath: String
    /// The event history (and FILE.1 once it rotates); default: next to the table.
    var eventsPath: String
    var socketPath: String
    /// The group that may use the local socket (mode 0660), when there is one; `explicit` when
    /// it was set, not the default.
    var socketGroup: (name: String, gid: gid_t, explicit: Bool)?
    var relay: RelaySpec
    var activeLow: Bool
    var timing: DoorTiming
    /// What the garage looks like over GATT and on the air; used by the ATT test socket too.
    var bluetooth: BluetoothSettings
    /// False with `--no-ble`: no adapter is touched.
    var bluetoothEnabled: Bool
    var attSocketPath: String?

    static let defaultPinsPath = "/var/lib/garaged/pins.eeprom"
    /// The socket's group when none is set and a group of this name exists.
    static let defaultSocketGroup = "garage"

    struct Overrides {
        var pins: String?
        var events: String?
        var socket: String?
        var socketGroup: String?
        var relay: String?
        var activeLow: Bool?
        var pulseMs: Int?
        var travelS: Int?
        var autoCloseS: Int?
        var bluetooth: Bool?
        var adapter: String?
        var attSocket: String?
        var bleName: String?
        var beaconUUID: String?
        var beaconMajor: Int?
        var beaconMinor: Int?
        var beaconPower: Int?
        var advertisingIntervalMs: Int?
    }

    init(flags: Overrides, file: ConfigFile?) throws(ConfigError) {
        for (name, value) in [("pins", flags.pins), ("events", flags.events), ("socket", flags.socket),
                              ("socket-group", flags.socketGroup), ("relay", flags.relay), ("att-socket", flags.attSocket),
                              ("ble", flags.adapter), ("ble-name", flags.bleName), ("beacon-uuid", flags.beaconUUID)] {
            if let value, value.isEmpty {
                throw ConfigError("--\(name) is empty; give a value, or leave the flag out to keep the default")
            }
        }
        pinsPath = flags.pins ?? file?["pins"] ?? Settings.defaultPinsPath
        eventsPath = flags.events ?? file?["events"] ?? EventHistoryFile.path(forTable: pinsPath)
        socketPath = flags.socket ?? file?["socket"] ?? LocalSocket.defaultPath
        if let name = flags.socketGroup ?? file?["socket-group"] {
            guard let group = getgrnam(name) else {
                throw ConfigError("--socket-group \(name): no such group; create it (sudo groupadd --system \(name)) or name another")
            }
            socketGroup = (name, group.pointee.gr_gid, true)
        } else if let group = getgrnam(Settings.defaultSocketGroup) {
            socketGroup = (Settings.defaultSocketGroup, group.pointee.gr_gid, false)
        }
        relay = try RelaySpec.parse(flags.relay ?? file?["relay"] ?? RelaySpec.defaultValue)
        let fileActiveLow = try file?.bool("active-low"), fileBluetooth = try file?.bool("ble")
        activeLow = flags.activeLow ?? fileActiveLow ?? false
        attSocketPath = flags.attSocket ?? file?["att-socket"]
        bluetoothEnabled = flags.bluetooth ?? fileBluetooth ?? true
        bluetooth = try BluetoothSettings(flags: flags, file: file)
        let pulse = try Settings.ranged("pulse-ms", flags.pulseMs, file, default: 300,
                                        DoorTiming.pulseRange, unit: "milliseconds")
        let travel = try Settings.ranged("travel-s", flags.travelS, file, default: 12,
                                         DoorTiming.travelRange, unit: "seconds")
        let autoClose = try Settings.ranged("auto-close-s", flags.autoCloseS, file, default: 30,
                                            DoorTiming.autoCloseRange, unit: "seconds; 0 turns auto-close off")
        timing = DoorTiming(pulse: .milliseconds(pulse), travel: .seconds(travel),
                            autoClose: autoClose == 0 ? nil : .seconds(autoClose))
    }

    static func ranged(_ name: String, _ flag: Int?, _ file: ConfigFile?, default fallback: Int,
                               _ range: ClosedRange<Int>, unit: String) throws(ConfigError) -> Int {
        var value = fallback
        if let flag { value = flag } else if let fromFile = try file?.int(name) { value = fromFile }
        guard range.contains(value) else {
            throw ConfigError("--\(name) must be from \(range.lowerBound) to \(range.upperBound) (\(unit)), not \(value)")
        }
        return value
    }
}

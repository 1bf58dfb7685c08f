import DoorCore

/// Everything the daemon runs with, after flags, the config file and defaults are merged
/// (a flag wins over the file, the file over the default) and every value is range-checked.
struct Settings {
    var pinsPath: String
    /// The event history (and FILE.1 once it rotates); default: next to the table.
    var eventsPath: String
    var socketPath: String
    var relay: RelaySpec
    var activeLow: Bool
    var timing: DoorTiming
    /// What the garage looks like over GATT and on the air; used by the ATT test socket too.
    var bluetooth: BluetoothSettings
    /// False with `--no-ble`: no adapter is touched.
    var bluetoothEnabled: Bool
    var attSocketPath: String?

    static let defaultPinsPath = "/var/lib/garaged/pins.eeprom"

    struct Overrides {
        var pins: String?
        var events: String?
        var socket: String?
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
        pinsPath = flags.pins ?? file?["pins"] ?? Settings.defaultPinsPath
        eventsPath = flags.events ?? file?["events"] ?? EventHistoryFile.path(forTable: pinsPath)
        socketPath = flags.socket ?? file?["socket"] ?? LocalSocket.defaultPath
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

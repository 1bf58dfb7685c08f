import DoorCore

/// The Bluetooth side of the settings: which adapter, what the phone sees (GATT name), and what
/// the garage advertises (the book's iBeacon, the service UUID, the interval).
struct BluetoothSettings {
    var adapter: String?
    var gatt: GarageGATT
    var advertising: GarageAdvertising
    var intervalUnits: UInt16

    init(flags: Settings.Overrides, file: ConfigFile?) throws(ConfigError) {
        adapter = flags.adapter ?? file?["ble-adapter"]
        let name = flags.bleName ?? file?["ble-name"] ?? GarageGATT.defaultName
        do {
            gatt = try GarageGATT(name: name)
        } catch {
            throw ConfigError("--ble-name '\(name)': \(error)")
        }
        let uuidText = flags.beaconUUID ?? file?["beacon-uuid"]
        var beacon = IBeacon()
        if let uuidText {
            guard uuidText.utf8.count == 36, let uuid = BluetoothUUID(uuidText) else {
                throw ConfigError("--beacon-uuid '\(uuidText)' is not a 128-bit UUID like 00000000-0000-0000-0000-0000000000FF")
            }
            beacon.proximityUUID = uuid
        }
        beacon.major = UInt16(try Settings.ranged("beacon-major", flags.beaconMajor, file, default: 0, 0...65535, unit: "iBeacon major"))
        beacon.minor = UInt16(try Settings.ranged("beacon-minor", flags.beaconMinor, file, default: 1, 0...65535, unit: "iBeacon minor"))
        beacon.measuredPower = Int8(try Settings.ranged("beacon-power", flags.beaconPower, file,
                                                        default: Int(IBeacon.defaultMeasuredPower), -127...20,
                                                        unit: "dBm measured at 1 m"))
        advertising = GarageAdvertising(beacon: beacon, name: name)
        let ms = try Settings.ranged("advertising-interval-ms", flags.advertisingIntervalMs, file,
                                     default: GarageAdvertising.intervalMilliseconds, 20...10240, unit: "milliseconds")
        intervalUnits = UInt16(ms * 1000 / 625)
        do {
            _ = try advertising.advertisingData()
            _ = try advertising.scanResponse()
        } catch {
            throw ConfigError("the advertising payload does not fit: \(error)")
        }
    }
}

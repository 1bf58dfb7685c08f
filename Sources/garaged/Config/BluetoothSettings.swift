import DoorCore

/// The Bluetooth side of the settings, built once: which adapter, what the phone sees (the
/// GATT database with its name), and what the garage advertises (the book's iBeacon, the
/// service UUID, the interval).
struct BluetoothSettings: Sendable {
    var adapter: String?
    /// `paired`: garaged is the pairing agent and key store, and writes need a bonded phone.
    var security: BluetoothSecurityMode { gatt.security }
    var gatt: GarageGATT
    var advertising: GarageAdvertising
    /// The advertising interval in the controller's units of 0.625 ms.
    var intervalUnits: UInt16

    init(_ values: SettingValues) throws(ConfigError) {
        adapter = values.bleAdapter
        do {
            gatt = try GarageGATT(name: values.bleName, security: values.bleSecurity)
        } catch {
            throw ConfigError("--ble-name '\(values.bleName)': \(error)")
        }
        let beacon = IBeacon(proximityUUID: values.beaconUUID, major: UInt16(values.beaconMajor),
                             minor: UInt16(values.beaconMinor), measuredPower: Int8(values.beaconPower))
        advertising = GarageAdvertising(beacon: beacon, name: values.bleName)
        intervalUnits = UInt16(values.advertisingIntervalMs * 1000 / 625)
        do {
            _ = try advertising.advertisingData()
            _ = try advertising.scanResponse()
        } catch {
            throw ConfigError("the advertising payload does not fit: \(error)")
        }
    }
}

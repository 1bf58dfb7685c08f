import DoorCore

/// Every setting garaged takes, declared once: one line each, in the order `--help` lists them.
/// A setting is read where it is used, by name (`values.pulseMs`), so a new one is one line
/// here and its use.
struct Catalog: Sendable {
    // Files and sockets.
    let pins = Setting.text("pins", "The PIN table (an EEPROM image; create it with `garage-pins init`).", value: "FILE", default: "/var/lib/garaged/pins.eeprom")
    let events = Setting.optional("events", "The event history for `garage-pins log` and `who`; it rotates to FILE.1, and attempts go to FILE.attempts.", value: "FILE", defaultText: "the table's path + .events")
    let socket = Setting.text("socket", "The local socket the owner's tools talk to (SOCK_SEQPACKET, mode 0660).", value: "PATH", default: LocalSocket.defaultPath)
    let socketGroup = Setting.optional("socket-group", "The group whose members may use the local socket.", value: "GROUP", defaultText: "\(Settings.defaultSocketGroup), when that group exists")
    let attSocket = Setting.optional("att-socket", "Also serve GATT on this Unix SOCK_SEQPACKET socket, one ATT bearer per connection, exactly as over Bluetooth (tests, tools without a radio).", value: "PATH")

    // The relay and the door.
    let relay = Setting.parsed("relay", "CHIP:LINE for a real line through libgpiod (gpiochip0:17, gpiochip0:GPIO17, pinctrl-bcm2711:17), or sim:FILE for the simulated line.", value: "SPEC", default: RelaySpec.simulated(path: "/run/garaged/relay.trace"), defaultText: RelaySpec.defaultValue, RelaySpec.parse)
    let activeLow = Setting.flag("active-low", "The relay board energises on a low level (the kernel inverts the line).", default: false)
    let pulseMs = Setting.number("pulse-ms", "How long a button press lasts, milliseconds,", value: "MS", DoorTiming.pulseRange, default: 300, unit: "milliseconds")
    let travelS = Setting.number("travel-s", "How long the door takes to open or close, seconds,", value: "S", DoorTiming.travelRange, default: 12, unit: "seconds")
    let autoCloseS = Setting.number("auto-close-s", "Close the door again this long after it opened (0 = never), seconds,", value: "S", DoorTiming.autoCloseRange, default: 30, unit: "seconds; 0 turns auto-close off")

    // Bluetooth.
    let ble = Setting.flag("ble", "Serve the book's GATT service and advertise over Bluetooth LE (--no-ble: the local socket only).", default: true)
    let bleAdapter = Setting.optional("ble-adapter", "The Bluetooth adapter to serve on (hci0).", value: "ADAPTER", defaultText: "the first one")
    let bleName = Setting.parsed("ble-name", "The name phones see (GAP device name and scan response).", value: "NAME", default: GarageGATT.defaultName, defaultText: GarageGATT.defaultName, Catalog.deviceName)
    let beaconUUID = Setting.parsed("beacon-uuid", "The iBeacon proximity UUID.", value: "UUID", default: IBeacon.bookProximityUUID, defaultText: "the book's 00000000-0000-0000-0000-0000000000FF", Catalog.uuid)
    let beaconMajor = Setting.number("beacon-major", "The iBeacon major,", value: "N", 0...65535, default: 0, unit: "iBeacon major")
    let beaconMinor = Setting.number("beacon-minor", "The iBeacon minor,", value: "N", 0...65535, default: 1, unit: "iBeacon minor")
    let beaconPower = Setting.number("beacon-power", "The iBeacon measured power: RSSI at 1 m, dBm,", value: "DBM", -127...20, default: Int(IBeacon.defaultMeasuredPower), unit: "dBm measured at 1 m")
    let advertisingIntervalMs = Setting.number("advertising-interval-ms", "How often to advertise, milliseconds,", value: "MS", 20...10240, default: GarageAdvertising.intervalMilliseconds, unit: "milliseconds")

    /// Every setting above, in declaration order.
    static let all: [AnySetting] = Mirror(reflecting: shared).children.compactMap { ($0.value as? any ErasableSetting)?.erased }

    private static func deviceName(_ text: String) throws(SettingError) -> String {
        do { _ = try GarageGATT(name: text) } catch { throw SettingError("'\(text)': \(error)") }
        return text
    }

    private static func uuid(_ text: String) throws(SettingError) -> BluetoothUUID {
        guard text.utf8.count == 36, let uuid = BluetoothUUID(text) else {
            throw SettingError("'\(text)' is not a 128-bit UUID like 00000000-0000-0000-0000-0000000000FF")
        }
        return uuid
    }
}

/// Lets `Catalog.all` find the settings among the catalog's properties, whatever their type.
protocol ErasableSetting {
    var erased: AnySetting { get }
}

extension Setting: ErasableSetting {
    var erased: AnySetting { AnySetting(self) }
}

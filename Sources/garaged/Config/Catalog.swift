import DoorCore
import DoorSystem

/// Every setting garaged takes, declared once: one line each, in the order `--help` lists them.
/// A setting is read where it is used, by name (`values.pulseMs`), so a new one is one line
/// here and its use.
struct Catalog: Sendable {
    // Files and sockets.
    let pins = Setting.text("pins", "The PIN table (an EEPROM image; create it with `garage-pins init`).", value: "FILE", default: "/var/lib/garaged/pins.eeprom")
    let events = Setting.optional("events", "The event history for `garage-pins log` and `who`; it rotates to FILE.1, and attempts go to FILE.attempts.", value: "FILE", defaultText: "the table's path + .events")
    let socket = Setting.text("socket", "The local socket the owner's tools talk to (SOCK_SEQPACKET, mode 0660, many clients at once).", value: "PATH", default: LocalSocketAddress.defaultPath)
    let socketGroup = Setting.optional("socket-group", "The group whose members may use the local socket.", value: "GROUP", defaultText: "\(Settings.defaultSocketGroup), when that group exists")
    let attSocket = Setting.optional("att-socket", "Also serve GATT on this Unix SOCK_SEQPACKET socket, one ATT bearer per connection, exactly as over Bluetooth (tests, tools without a radio).", value: "PATH")

    // The relay and the door (each of these is per door: see `DoorSections`).
    let name = Setting.parsed("name", "The door's name as people read it (the status, the history), at most 32 characters.", value: "TEXT", default: nil, defaultText: "the section's NAME; none for the one door of a file without sections", Catalog.displayName).eachDoor
    let relay = Setting.parsed("relay", "CHIP:LINE for a real line through libgpiod (gpiochip0:17, gpiochip0:GPIO17, /dev/gpiochip0:17, pinctrl-bcm2711:17), or sim:FILE for the simulated line.", value: "SPEC", default: RelaySpec.simulated(path: "/run/garaged/relay.trace"), defaultText: RelaySpec.defaultValue, RelaySpec.parse).eachDoor
    let opener = Setting.parsed("opener", "Move the door by speaking to its opener on the wall-button wire instead of a relay: \(OpenerSpec.accepted); opened exclusively. A door with an opener has no relay; setting relay beside it is refused.", value: "SPEC", default: nil as OpenerSpec?, defaultText: "none: the relay moves the door", OpenerSpec.parse).eachDoor
    let openerListenS = Setting.number("opener-listen-s", "With a Security+ 1.0 opener: how long garaged listens for a wall panel on the wire before standing in for one (asking the opener itself, as a panel would); with a panel heard it never asks, and sends its buttons in the panel's gaps (peers wait 2.5 to 35 s), seconds,", value: "S", 1...120, default: 15, unit: "seconds").eachDoor
    let activeLow = Setting.flag("active-low", "The relay board energises on a low level (the kernel inverts the line).", default: false).eachDoor
    let pulseMs = Setting.number("pulse-ms", "How long a button press lasts, milliseconds,", value: "MS", DoorTiming.pulseRange, default: 300, unit: "milliseconds").eachDoor
    let travelS = Setting.number("travel-s", "How long the door takes to open or close, seconds,", value: "S", DoorTiming.travelRange, default: 12, unit: "seconds").eachDoor
    let autoCloseS = Setting.number("auto-close-s", "Close the door again this long after it opened (0 = never; the app's C= wins once set), seconds,", value: "S", DoorTiming.autoCloseRange, default: 30, unit: "seconds; 0 turns auto-close off").eachDoor
    let autoCloseAny = Setting.flag("auto-close-any", "Auto-close also a door opened by its remote or by hand (seen by a sensor); --no-auto-close-any: only openings garaged made.", default: true).eachDoor
    let leftOpenS = Setting.number("left-open-s", "Report the door left open (log, history, phones) after this long open, and again each time as long passes (0 = never), seconds,", value: "S", 0...86_400, default: 900, unit: "seconds; 0 turns it off").eachDoor

    // The door's position switches.
    let sensorClosed = Setting.optional("sensor-closed", "A switch active when the door is fully closed: CHIP:LINE, or sim:FILE (FILE holds 1 when the switch is closed, 0 when open).", value: "SPEC").eachDoor
    let sensorClosedActiveLow = Setting.flag("sensor-closed-active-low", "The closed switch pulls its line low when the door is closed (a reed switch to ground with a pull-up).", default: false).eachDoor
    let sensorOpen = Setting.optional("sensor-open", "A switch active when the door is fully open: CHIP:LINE, or sim:FILE.", value: "SPEC").eachDoor
    let sensorOpenActiveLow = Setting.flag("sensor-open-active-low", "The open switch pulls its line low when the door is open.", default: false).eachDoor
    let sensorObstruction = Setting.optional("sensor-obstruction", "The opener's photo-eye output, active while its beam across the doorway is broken: no press that may close the door starts then (HomeKit shows it as an obstruction, Home Assistant as a problem sensor). CHIP:LINE, or sim:FILE.", value: "SPEC").eachDoor
    let sensorObstructionActiveLow = Setting.flag("sensor-obstruction-active-low", "The photo-eye's output pulls its line low while the beam is broken.", default: false).eachDoor
    let sensorDebounceMs = Setting.number("sensor-debounce-ms", "A switch's new level counts once it has held this long (the photo-eye's broken beam at once, only its clear waits), milliseconds,", value: "MS", 0...2000, default: 100, unit: "milliseconds").eachDoor

    // The warning output and the light.
    let warn = Setting.optional("warn", "A light or buzzer that runs before every close press and during the closing travel: CHIP:LINE or sim:FILE.", value: "SPEC").eachDoor
    let warnActiveLow = Setting.flag("warn-active-low", "The warning output's board energises on a low level.", default: false).eachDoor
    let warnS = Setting.number("warn-s", "How long the warning runs before a close press (the U.S. rule asks at least 5), seconds,", value: "S", 1...300, default: 5, unit: "seconds").eachDoor
    let light = Setting.optional("light", "The garage light: on while the door moves and for --light-s after, and by L=1 / L=0: CHIP:LINE or sim:FILE.", value: "SPEC").eachDoor
    let lightActiveLow = Setting.flag("light-active-low", "The light's board energises on a low level.", default: false).eachDoor
    let motionS = Setting.number("motion-s", "With an opener: how long its motion sensor reads motion after it last saw some (HomeKit's motion sensor, Home Assistant's, the status), seconds,", value: "S", 1...3600, default: 60, unit: "seconds").eachDoor
    let lightS = Setting.number("light-s", "How long the light stays on after the door starts to move, seconds,", value: "S", 1...3600, default: 180, unit: "seconds").eachDoor

    // Bluetooth.
    let ble = Setting.flag("ble", "Serve the book's GATT service and advertise over Bluetooth LE (--no-ble: the local socket only).", default: true)
    let bleAdapter = Setting.optional("ble-adapter", "The Bluetooth adapter to serve on (hci0).", value: "ADAPTER", defaultText: "the first one")
    let bleSecurity = Setting.parsed("ble-security", "open: any phone in range may write, the PIN in clear (the book). paired: commands need a phone the owner paired with `garage-pins pair` (LE Secure Connections, passkey), over an encrypted link.", value: "MODE", default: BluetoothSecurityMode.open, defaultText: "open", Catalog.securityMode)
    let bleName = Setting.parsed("ble-name", "The name phones see (GAP device name and scan response).", value: "NAME", default: GarageGATT.defaultName, defaultText: GarageGATT.defaultName, Catalog.deviceName)
    let beaconUUID = Setting.parsed("beacon-uuid", "The iBeacon proximity UUID.", value: "UUID", default: IBeacon.bookProximityUUID, defaultText: "the book's 00000000-0000-0000-0000-0000000000FF", Catalog.uuid)
    let beaconMajor = Setting.number("beacon-major", "The iBeacon major,", value: "N", 0...65535, default: 0, unit: "iBeacon major")
    let beaconMinor = Setting.number("beacon-minor", "The iBeacon minor,", value: "N", 0...65535, default: 1, unit: "iBeacon minor")
    let beaconPower = Setting.number("beacon-power", "The iBeacon measured power: RSSI at 1 m, dBm,", value: "DBM", -127...20, default: Int(IBeacon.defaultMeasuredPower), unit: "dBm measured at 1 m")
    let advertisingIntervalMs = Setting.number("advertising-interval-ms", "How often to advertise (the book's beacon interval), milliseconds,", value: "MS", 20...10240, default: GarageAdvertising.intervalMilliseconds, unit: "milliseconds")

    // Home Assistant over MQTT.
    let mqtt = Setting.optional("mqtt", "The MQTT broker: mqtt://HOST[:PORT] (port 1883) or mqtts://HOST[:PORT] (TLS, port 8883). Off when not set.", value: "URL")
    let mqttCA = Setting.optional("mqtt-ca", "The CA certificate (PEM) that signed the broker's TLS certificate.", value: "FILE", defaultText: "the system's CAs")
    let mqttUser = Setting.optional("mqtt-user", "The user name at the broker.", value: "NAME")
    let mqttPasswordFile = Setting.optional("mqtt-password-file", "A file whose first line is the broker password (never on the command line, never in the log).", value: "FILE")
    let mqttClientID = Setting.optional("mqtt-client-id", "The MQTT client id, also the door's id in topics.", value: "ID", defaultText: "garaged-<machine id>")
    let mqttPrefix = Setting.text("mqtt-prefix", "The door's topics are PREFIX/<id>/state, .../command, .../event...", value: "PREFIX", default: "garaged")
    let mqttDiscoveryPrefix = Setting.text("mqtt-discovery-prefix", "Home Assistant's discovery prefix.", value: "PREFIX", default: "homeassistant")
    let mqttCommands = Setting.flag("mqtt-commands", "Take OPEN, CLOSE and STOP from the command topic; whoever may publish there can open the house, so lock it down with the broker's ACL (--no-mqtt-commands: state only).", default: false)

    // Apple Home.
    let homekit = Setting.flag("homekit", "Be a HomeKit garage door (Apple Home, Siri, CarPlay): pair with `garage-pins homekit`'s code or QR code.", default: false)
    let homekitPort = Setting.number("homekit-port", "HomeKit's TCP port (0: any free port, said in the log).", value: "PORT", 0...65535, default: 51826, unit: "a TCP port")
    let homekitBind = Setting.optional("homekit-bind", "Listen for HomeKit on this one address only (IPv4 or IPv6).", value: "ADDR", defaultText: "every address")
    let homekitName = Setting.text("homekit-name", "The accessory's name in the Home app.", value: "NAME", default: "Garage Door")

    /// Every setting above, in declaration order.
    static let all: [AnySetting] = Mirror(reflecting: shared).children.compactMap { ($0.value as? any ErasableSetting)?.erased }

    private static func displayName(_ text: String) throws(SettingError) -> String? {
        guard text.count <= 32 else { throw SettingError("'\(text)' is \(text.count) characters; a door's name is at most 32") }
        return text
    }

    private static func deviceName(_ text: String) throws(SettingError) -> String {
        do { _ = try GarageGATT(name: text) } catch { throw SettingError("'\(text)': \(error)") }
        return text
    }

    private static func securityMode(_ text: String) throws(SettingError) -> BluetoothSecurityMode {
        guard let mode = BluetoothSecurityMode(rawValue: text) else { throw SettingError("'\(text)' is not open or paired") }
        return mode
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

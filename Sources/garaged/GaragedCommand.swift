import ArgumentParser
import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// `garaged`: the garage-door daemon. Flags read like its `--help`.
@main
struct GaragedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "garaged",
        abstract: "Opens a garage door from a phone or a shell: a relay on a GPIO line, a PIN table, the book's protocol.",
        discussion: """
        Every setting can also come from --config FILE (`key = value` lines, keys as the long \
        flags without dashes, e.g. `pulse-ms = 300`); a flag wins over the file. \
        The default relay is a simulated line that records each transition in a trace file.
        """
    )

    @Option(name: .long, help: ArgumentHelp("The PIN table (an EEPROM image; create it with `garage-pins init`).", valueName: "FILE"))
    var pins: String?

    @Option(name: .long, help: ArgumentHelp("The event history for `garage-pins log` and `who` (default: the table's path + .events; it rotates to FILE.1).", valueName: "FILE"))
    var events: String?

    @Option(name: .long, help: ArgumentHelp("The local socket the owner's tools talk to (default \(LocalSocket.defaultPath)).", valueName: "PATH"))
    var socket: String?

    @Option(name: .long, help: ArgumentHelp("The group whose members may use the local socket (default \(Settings.defaultSocketGroup), when that group exists).", valueName: "GROUP"))
    var socketGroup: String?

    @Option(name: .long, help: ArgumentHelp("CHIP:LINE for a real line through libgpiod (e.g. gpiochip0:17, gpiochip0:GPIO17), or sim:FILE for the simulated line (default \(RelaySpec.defaultValue)).", valueName: "SPEC"))
    var relay: String?

    @Flag(inversion: .prefixedNo, help: "The relay board energises on a low level (the kernel inverts the line).")
    var activeLow: Bool?

    @Option(name: .long, help: ArgumentHelp("How long a button press lasts, 50-5000 (default 300).", valueName: "MS"))
    var pulseMs: Int?

    @Option(name: .long, help: ArgumentHelp("How long the door takes to open or close, 0-300 (default 12).", valueName: "S"))
    var travelS: Int?

    @Option(name: .long, help: ArgumentHelp("Close the door again this long after it opened, 0 = never (default 30).", valueName: "S"))
    var autoCloseS: Int?

    @Flag(name: .long, help: "Run without Bluetooth (the local socket only).")
    var noBle = false

    @Option(name: .customLong("ble"), help: ArgumentHelp("The Bluetooth adapter to serve on (default: the first one).", valueName: "ADAPTER"))
    var bleAdapter: String?

    @Option(name: .long, help: ArgumentHelp("The name phones see (GAP device name and scan response; default Garage).", valueName: "NAME"))
    var bleName: String?

    @Option(name: .long, help: ArgumentHelp("The iBeacon proximity UUID (default the book's 00000000-0000-0000-0000-0000000000FF).", valueName: "UUID"))
    var beaconUUID: String?

    @Option(name: .long, help: ArgumentHelp("The iBeacon major, 0-65535 (default 0).", valueName: "N"))
    var beaconMajor: Int?

    @Option(name: .long, help: ArgumentHelp("The iBeacon minor, 0-65535 (default 1).", valueName: "N"))
    var beaconMinor: Int?

    @Option(name: .long, help: ArgumentHelp("The iBeacon measured power: RSSI at 1 m in dBm (default \(IBeacon.defaultMeasuredPower)).", valueName: "DBM"))
    var beaconPower: Int?

    @Option(name: .long, help: ArgumentHelp("How often to advertise, 20-10240 ms (default \(GarageAdvertising.intervalMilliseconds), as the book's beacon).", valueName: "MS"))
    var advertisingIntervalMs: Int?

    @Option(name: .long, help: ArgumentHelp("Also serve GATT on this Unix SOCK_SEQPACKET socket, one ATT bearer per connection, exactly as over Bluetooth (for tests and tools without a radio).", valueName: "PATH"))
    var attSocket: String?

    @Flag(name: .long, help: "Print the advertising and scan-response bytes in hex and exit.")
    var printAdvertising = false

    @Option(name: .long, help: ArgumentHelp("Read settings from this file; flags win.", valueName: "FILE"))
    var config: String?

    func run() throws {
        Daemon.blockSignals()
        let log = Logger()
        do {
            let file = try config.map { path throws(ConfigError) in try ConfigFile(path: path) }
            let flags = Settings.Overrides(
                pins: pins, events: events, socket: socket, socketGroup: socketGroup, relay: relay, activeLow: activeLow, pulseMs: pulseMs,
                travelS: travelS, autoCloseS: autoCloseS, bluetooth: noBle ? false : nil,
                adapter: bleAdapter, attSocket: attSocket, bleName: bleName, beaconUUID: beaconUUID,
                beaconMajor: beaconMajor, beaconMinor: beaconMinor, beaconPower: beaconPower,
                advertisingIntervalMs: advertisingIntervalMs)
            if printAdvertising {
                let ble = try Settings(flags: flags, file: file).bluetooth
                print((try? ble.advertising.report()) ?? "the advertising payload does not fit")
                return
            }
            try Daemon(settings: try Settings(flags: flags, file: file), log: log).run()
        } catch let error as StartupError {
            log.error("startup-failed", ["error": error.description])
            log.flush(timeout: .seconds(1))
            throw ExitCode(1)
        } catch let error as ConfigError {
            log.error("startup-failed", ["error": error.description])
            log.flush(timeout: .seconds(1))
            throw ExitCode(1)
        }
    }
}

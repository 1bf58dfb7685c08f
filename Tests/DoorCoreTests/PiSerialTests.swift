import DoorCore
import XCTest

/// Which UART an opener's device is on a Raspberry Pi, by model and config.txt: the start's
/// refusal of Bluetooth's UART and what `garaged doctor` says rest on this table.
final class PiSerialTests: XCTestCase {
    /// A model's name as /proc/device-tree/model holds it (NUL-terminated), and its board.
    static let models: [(name: String, board: PiSerial.Board)] = [
        ("Raspberry Pi 3 Model B Rev 1.2", .bluetoothOnPL011),
        ("Raspberry Pi 3 Model B Plus Rev 1.3", .bluetoothOnPL011),
        ("Raspberry Pi 3 Model A Plus Rev 1.0", .bluetoothOnPL011),
        ("Raspberry Pi 4 Model B Rev 1.4", .bluetoothOnPL011),
        ("Raspberry Pi 400 Rev 1.0", .bluetoothOnPL011),
        ("Raspberry Pi Zero 2 W Rev 1.0", .bluetoothOnPL011),
        ("Raspberry Pi Zero W Rev 1.1", .bluetoothOnPL011),
        ("Raspberry Pi 5 Model B Rev 1.0", .pi5),
        ("Raspberry Pi 500 Rev 1.0", .pi5),
        ("Raspberry Pi Compute Module 5 Rev 1.0", .pi5),
        ("Raspberry Pi 2 Model B Rev 1.1", .pl011OnPins),
        ("Raspberry Pi Zero Rev 1.3", .pl011OnPins),
        ("Raspberry Pi Model B Plus Rev 1.2", .pl011OnPins),
        ("Raspberry Pi Compute Module 4 Rev 1.0", .other),
    ]

    /// The config.txt set-ups, each after Raspberry Pi OS's own lines.
    enum Setup: String, CaseIterable {
        case plain = "enable_uart=1"
        case disableBT = "enable_uart=1\ndtoverlay=disable-bt"
        case miniUARTBT = "enable_uart=1\ndtoverlay=miniuart-bt\ncore_freq=250"
        case oldMiniUARTBT = "dtoverlay=pi3-miniuart-bt,krnbt=on\nforce_turbo=1"
        case uart0 = "dtparam=audio=on,uart0=on"
    }

    static let stock = "# For more options and information see\ndtparam=audio=on\ncamera_auto_detect=1\ndtoverlay=vc4-kms-v3d\n[cm4]\notg_mode=1\n[all]\n"

    private func pi(_ model: String, _ config: String?) -> PiSerial {
        PiSerial(model: model + "\0", configFile: "/boot/firmware/config.txt", config: config.map { PiSerialTests.stock + $0 + "\n" })!
    }

    /// Where the pins' UART and Bluetooth's are, for every model and set-up: what the Pi's own
    /// documentation gives, written out here rather than computed again.
    private func expected(_ board: PiSerial.Board, _ setup: Setup) -> (pins: String?, bluetooth: String?) {
        switch (board, setup) {
        case (.bluetoothOnPL011, .plain), (.bluetoothOnPL011, .uart0): return ("ttyS0", "ttyAMA0")
        case (.bluetoothOnPL011, .disableBT): return ("ttyAMA0", nil)
        case (.bluetoothOnPL011, .miniUARTBT), (.bluetoothOnPL011, .oldMiniUARTBT): return ("ttyAMA0", "ttyS0")
        case (.pi5, .uart0): return ("ttyAMA0", nil)
        case (.pi5, _): return (nil, nil)
        case (.pl011OnPins, _): return ("ttyAMA0", nil)
        case (.other, _): return (nil, nil)
        }
    }

    func testEachModelAndOverlayPutsItsUARTsWhereThePiDocumentationSays() {
        for (name, board) in PiSerialTests.models {
            for setup in Setup.allCases {
                let p = pi(name, setup.rawValue)
                let want = expected(board, setup)
                XCTAssertEqual(p.board, board, name)
                XCTAssertEqual(p.model, name, "the model is read without its NUL")
                XCTAssertEqual(p.onPins, want.pins, "\(name), \(setup): the pins' UART")
                XCTAssertEqual(p.bluetooth, want.bluetooth, "\(name), \(setup): Bluetooth's UART")
            }
        }
        XCTAssertNil(PiSerial(model: "QEMU Virtual Machine", configFile: nil, config: nil), "not a Pi: nothing to say")
        XCTAssertNil(PiSerial(model: nil, configFile: nil, config: nil))
    }

    /// Refused: exactly ttyAMA0 (and /dev/serial1, which leads to it) on a Pi 3, 4, 400, Zero W
    /// or Zero 2 W without an overlay, and ttyS0 with miniuart-bt; never on a Pi 5, 1, 2, Zero,
    /// a Compute Module, or a USB adapter; with ble on or off.
    func testOnlyBluetoothsUARTIsRefusedAtStart() {
        let devices = [("/dev/ttyAMA0", "ttyAMA0"), ("/dev/serial1", "ttyAMA0"), ("/dev/serial1", "serial1"), ("/dev/serial0", "serial0"),
                       ("/dev/serial0", "ttyS0"), ("/dev/ttyS0", "ttyS0"), ("/dev/ttyAMA10", "ttyAMA10"), ("/dev/ttyUSB0", "ttyUSB0")]
        for (name, board) in PiSerialTests.models {
            for setup in Setup.allCases {
                let p = pi(name, setup.rawValue)
                let bluetooth = expected(board, setup).bluetooth
                for (device, resolved) in devices {
                    // What the device is once its links are followed (serial1 unfollowed is the secondary UART).
                    let tty = resolved == "serial1" ? bluetooth : resolved == "serial0" ? expected(board, setup).pins : resolved
                    let refused = bluetooth != nil && tty == bluetooth
                    for ble in [true, false] {
                        let why = p.refusal(device: device, resolved: resolved, ble: ble)
                        XCTAssertEqual(why != nil, refused, "\(name), \(setup), \(device) -> \(resolved), ble \(ble): \(why ?? "accepted")")
                    }
                }
            }
        }
    }

    /// The refusal names the device, where it leads, the model and why, and the fix: with ble
    /// on, miniuart-bt and core_freq=250 (never disable-bt, which turns the app's Bluetooth off).
    func testTheRefusalSaysWhyAndHowToKeepBluetooth() throws {
        let p = pi("Raspberry Pi 4 Model B Rev 1.4", Setup.plain.rawValue)
        let on = try XCTUnwrap(p.refusal(device: "/dev/serial1", resolved: "ttyAMA0", ble: true))
        for fact in ["/dev/serial1 (ttyAMA0)", "Bluetooth controller's UART", "Raspberry Pi 4 Model B Rev 1.4", "pins 8 and 10",
                     "/boot/firmware/config.txt has no dtoverlay=miniuart-bt or dtoverlay=disable-bt",
                     "opener = secplus2:/dev/serial0", "dtoverlay=miniuart-bt and core_freq=250", "the book's app"] {
            XCTAssertTrue(on.contains(fact), "\(fact): \(on)")
        }
        XCTAssertFalse(on.contains("add dtoverlay=disable-bt"), "with ble on, disable-bt is not offered: \(on)")
        let off = try XCTUnwrap(p.refusal(device: "/dev/ttyAMA0", resolved: "ttyAMA0", ble: false))
        XCTAssertTrue(off.hasPrefix("/dev/ttyAMA0 is the Bluetooth"), off)
        XCTAssertTrue(off.contains("as ble is off, add dtoverlay=disable-bt to /boot/firmware/config.txt, sudo systemctl disable hciuart, and reboot"), off)

        let mini = pi("Raspberry Pi 3 Model B Rev 1.2", Setup.miniUARTBT.rawValue)
        let moved = try XCTUnwrap(mini.refusal(device: "/dev/ttyS0", resolved: "ttyS0", ble: true))
        XCTAssertTrue(moved.contains("dtoverlay=miniuart-bt on line 9 of /boot/firmware/config.txt moves Bluetooth to the mini UART ttyS0"), moved)
        XCTAssertTrue(moved.contains("opener = secplus2:/dev/serial0, the UART on the pins (the PL011 ttyAMA0)"), moved)
    }

    /// config.txt's filters: a line under another model's filter or [none] is not read on this
    /// one (and the refusal says where it is); a Pi 400 reads [pi4]; a filter that cannot be
    /// judged here (a monitor's EDID) is given the benefit of the doubt; a comment is nothing.
    func testConditionalFiltersDecideWhichOverlayThisPiReads() {
        let pi4 = "Raspberry Pi 4 Model B Rev 1.4"
        let cases: [(model: String, config: String, overlay: PiSerial.BluetoothOverlay?)] = [
            (pi4, "[cm4]\ndtoverlay=disable-bt\n[all]", nil),
            (pi4, "[pi4]\ndtoverlay=disable-bt\n[all]", .disableBT),
            ("Raspberry Pi 400 Rev 1.0", "[pi4]\ndtoverlay=miniuart-bt", .miniUARTBT),
            ("Raspberry Pi 3 Model B Rev 1.2", "[pi3+]\ndtoverlay=disable-bt", nil),
            ("Raspberry Pi 3 Model B Plus Rev 1.3", "[pi3]\n[pi3+]\ndtoverlay=disable-bt", .disableBT),
            ("Raspberry Pi 3 Model B Plus Rev 1.3", "[pi3+]\n[pi4]\ndtoverlay=disable-bt", nil),
            (pi4, "[none]\ndtoverlay=disable-bt", nil),
            (pi4, "[none]\n[all]\ndtoverlay=disable-bt", .disableBT),
            (pi4, "[EDID=VSC-TD2220]\ndtoverlay=disable-bt", .disableBT),
            (pi4, "#dtoverlay=disable-bt\n  # dtoverlay=miniuart-bt", nil),
            (pi4, "dtoverlay=disable-bt\ndtoverlay=miniuart-bt", .miniUARTBT),
            ("Raspberry Pi Zero 2 W Rev 1.0", "[pi0w]\ndtoverlay=disable-bt\n[pi02]\ndtoverlay=miniuart-bt", .miniUARTBT),
        ]
        for c in cases {
            XCTAssertEqual(pi(c.model, c.config).boot.bluetoothOverlay?.value, c.overlay, "\(c.model): \(c.config)")
        }
        let skipped = pi(pi4, "[cm4]\ndtoverlay=disable-bt\n[all]")
        XCTAssertEqual(skipped.boot.skipped.map(\.text), ["dtoverlay=disable-bt"])
        let why = skipped.refusal(device: "/dev/ttyAMA0", resolved: "ttyAMA0", ble: true) ?? ""
        XCTAssertTrue(why.contains("dtoverlay=disable-bt on line 9 of /boot/firmware/config.txt is under another model's [filter]"), why)
    }

    /// `include FILE` is read where it stands, with its own file and line in messages.
    func testIncludedFilesAreReadInPlace() {
        let p = PiSerial(model: "Raspberry Pi 4 Model B Rev 1.4", configFile: "/boot/firmware/config.txt",
                         config: "dtparam=audio=on\ninclude extra.txt\n") { $0 == "extra.txt" ? "\n[pi4]\ndtoverlay=miniuart-bt\n" : nil }!
        XCTAssertEqual(p.boot.bluetoothOverlay?.value, .miniUARTBT)
        XCTAssertEqual(p.boot.bluetoothOverlay?.line.description, "dtoverlay=miniuart-bt on line 3 of extra.txt")
        let looped = PiSerial(model: "Raspberry Pi 4 Model B Rev 1.4", configFile: "/boot/config.txt", config: "include config.txt\n") { _ in "include config.txt\n" }
        XCTAssertNil(looped?.boot.bluetoothOverlay, "an include that includes itself ends")
    }

    /// What doctor says, by case: the level and the words that say what to do.
    func testDoctorsFindingsSayWhatToUseAndWhatToChange() {
        let cases: [(model: String, config: String, device: String, resolved: String, ble: Bool, levels: [PiSerial.Level], says: [String])] = [
            ("Raspberry Pi 5 Model B Rev 1.0", "enable_uart=1", "/dev/serial0", "ttyAMA10", true, [.fail],
             ["UART of the 3-pin debug connector", "use opener = secplus2:/dev/ttyAMA0, with dtparam=uart0=on"]),
            ("Raspberry Pi 5 Model B Rev 1.0", "dtparam=uart0=on", "/dev/ttyAMA0", "ttyAMA0", true, [.ok],
             ["/dev/ttyAMA0 is the PL011 on pins 8 and 10", "dtparam=uart0=on on line 8 of /boot/firmware/config.txt"]),
            ("Raspberry Pi 5 Model B Rev 1.0", "", "/dev/ttyAMA0", "ttyAMA0", true, [.warn], ["only with dtparam=uart0=on"]),
            ("Raspberry Pi 5 Model B Rev 1.0", "dtparam=uart0_console", "/dev/ttyAMA0", "ttyAMA0", true, [.ok, .warn],
             ["console=serial0", "use dtparam=uart0=on instead"]),
            ("Raspberry Pi 4 Model B Rev 1.4", "enable_uart=1", "/dev/serial0", "ttyS0", true, [.ok],
             ["/dev/serial0 (ttyS0) is the mini UART on pins 8 and 10", "Security+ 1.0", "dtoverlay=miniuart-bt and core_freq=250"]),
            ("Raspberry Pi 4 Model B Rev 1.4", "", "/dev/serial0", "ttyS0", true, [.fail], ["without enable_uart=1 in /boot/firmware/config.txt"]),
            ("Raspberry Pi 3 Model B Rev 1.2", "enable_uart=0", "/dev/serial0", "ttyS0", true, [.fail], ["enable_uart=0 on line 8 of /boot/firmware/config.txt turns it off"]),
            ("Raspberry Pi 4 Model B Rev 1.4", "dtoverlay=disable-bt", "/dev/serial0", "ttyAMA0", true, [.ok, .fail],
             ["turns this Pi's Bluetooth off, and ble is on", "dtoverlay=miniuart-bt and core_freq=250"]),
            ("Raspberry Pi 4 Model B Rev 1.4", "dtoverlay=disable-bt", "/dev/serial0", "ttyAMA0", false, [.ok], ["PL011"]),
            ("Raspberry Pi 4 Model B Rev 1.4", "dtoverlay=disable-bt", "/dev/ttyS0", "ttyS0", false, [.fail],
             ["is not the UART on pins 8 and 10", "use opener = secplus2:/dev/serial0"]),
            ("Raspberry Pi 400 Rev 1.0", "dtoverlay=miniuart-bt", "/dev/ttyAMA0", "ttyAMA0", true, [.ok, .warn], ["add core_freq=250 (or force_turbo=1)"]),
            ("Raspberry Pi 400 Rev 1.0", "dtoverlay=miniuart-bt\ncore_freq=250", "/dev/ttyAMA0", "ttyAMA0", true, [.ok], ["dtoverlay=miniuart-bt"]),
            ("Raspberry Pi Zero 2 W Rev 1.0", "", "/dev/ttyAMA0", "ttyAMA0", true, [.fail], ["Bluetooth controller's UART"]),
            ("Raspberry Pi 4 Model B Rev 1.4", "enable_uart=1", "/dev/ttyUSB0", "ttyUSB0", true, [.ok], ["a USB adapter"]),
            ("Raspberry Pi Compute Module 4 Rev 1.0", "", "/dev/ttyAMA0", "ttyAMA0", true, [.ok], ["carrier board"]),
        ]
        for c in cases {
            let found = pi(c.model, c.config).findings(device: c.device, resolved: c.resolved, ble: c.ble)
            XCTAssertEqual(found.map(\.level), c.levels, "\(c.model), \(c.config), \(c.device): \(found.map(\.text))")
            let text = found.map(\.text).joined(separator: "\n")
            for fact in c.says { XCTAssertTrue(text.contains(fact), "\(fact): \(text)") }
        }
    }

    /// Where /dev/serial0 leads as config.txt sets it up: doctor compares it with the link the
    /// running system made, to see a change that waits for a reboot.
    func testSerial0FollowsTheSetUp() {
        XCTAssertEqual(pi("Raspberry Pi 4 Model B Rev 1.4", "").serial0, "ttyS0")
        XCTAssertEqual(pi("Raspberry Pi 4 Model B Rev 1.4", "dtoverlay=disable-bt").serial0, "ttyAMA0")
        XCTAssertEqual(pi("Raspberry Pi 5 Model B Rev 1.0", "dtparam=uart0=on").serial0, "ttyAMA10")
        XCTAssertEqual(pi("Raspberry Pi 5 Model B Rev 1.0", "dtparam=uart0_console=on").serial0, "ttyAMA0")
        XCTAssertNil(pi("Raspberry Pi Compute Module 4 Rev 1.0", "").serial0)
    }
}

import Foundation
@testable import GaragedKit
import XCTest
import DoorCore

/// `garaged doctor`'s checks, run in process against files in a temporary folder: a secret
/// other users can read is a FAIL naming the fix, and a private one passes.
final class DoctorCheckTests: XCTestCase {
    /// The settings for a table in `dir`, the rest out of the way of the machine's own files.
    private func settings(in dir: TempFolder) throws -> Settings {
        try GaragedTests.settings(["--pins", dir.file("pins"), "--socket", dir.file("s.sock"), "--no-ble",
                                   "--relay", "sim:\(dir.file("relay.trace"))"])
    }

    /// A table other users can read fails, with the chmod that fixes it; mode 600 passes.
    func testAWorldReadableTableFails() throws {
        let dir = try TempFolder()
        let pins = try dir.table(mode: 0o644)
        var report = DoctorReport()
        DoctorChecks(settings: try settings(in: dir)).table(into: &report)
        XCTAssertTrue(report.failed)
        XCTAssertTrue(report.text.contains("FAIL  table: \(pins) has mode 644: other users can read the PINs; sudo chmod 600 \(pins)\n"), report.text)

        XCTAssertEqual(chmod(pins, 0o600), 0)
        var fixed = DoctorReport()
        DoctorChecks(settings: try settings(in: dir)).table(into: &fixed)
        XCTAssertFalse(fixed.failed, fixed.text)
        XCTAssertTrue(fixed.text.hasPrefix("ok    table: \(pins): 1 of "), fixed.text)
    }

    /// A missing table fails with the command that makes it.
    func testAMissingTableSaysHowToMakeIt() throws {
        let dir = try TempFolder()
        var report = DoctorReport()
        DoctorChecks(settings: try settings(in: dir)).table(into: &report)
        XCTAssertEqual(report.text, """
            FAIL  table: \(dir.file("pins")) does not exist; create it (it asks for the master PIN): garage-pins init --pins \(dir.file("pins"))
            1 to fix, 0 to read: garaged would not start or not fully work.

            """)
    }

    /// HomeKit's keys beside the table (`pins.homekit`) readable by others fail the secrets
    /// check; once private, nothing is said.
    func testAHomeKitFileReadableByOthersFails() throws {
        let dir = try TempFolder()
        try dir.table()
        let homekit = try dir.write("pins.homekit", "{}\n", mode: 0o640)
        var report = DoctorReport()
        DoctorChecks(settings: try settings(in: dir)).secrets(into: &report)
        XCTAssertEqual(report.text, """
            FAIL  secrets: HomeKit's setup code and accessory key: \(homekit) has mode 640: other users can read it; sudo chmod 600 \(homekit)
            1 to fix, 0 to read: garaged would not start or not fully work.

            """)

        XCTAssertEqual(chmod(homekit, 0o600), 0)
        var fixed = DoctorReport()
        DoctorChecks(settings: try settings(in: dir)).secrets(into: &fixed)
        XCTAssertFalse(fixed.failed, fixed.text)
    }

    /// A stand-in for / in `dir`: the Pi's model at `modelPath` (NUL-terminated, as the device
    /// tree has it), its config.txt at `configPath`, /dev/serial0 leading to `serial0` and the
    /// processes `proc` (pid: name), each only when given.
    private func machine(in dir: TempFolder, model: String?, modelPath: String = RaspberryPi.modelPaths[0],
                         config: String? = nil, configPath: String = "/boot/firmware/config.txt",
                         serial0: String? = nil, proc: [Int: String] = [:]) throws -> String {
        let root = dir.file("root")
        func put(_ path: String, _ text: String) throws {
            try FileManager.default.createDirectory(atPath: root + (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: root + path))
        }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        if let model { try put(modelPath, model + "\0") }
        if let config { try put(configPath, config) }
        if let serial0 {
            try FileManager.default.createDirectory(atPath: root + "/dev", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: root + "/dev/serial0", withDestinationPath: serial0)
        }
        for (pid, name) in proc { try put("/proc/\(pid)/comm", name + "\n") }
        return root
    }

    /// A link in `dir` standing for /dev/NAME, leading to `target` (which need not be there).
    private func link(_ dir: TempFolder, _ name: String, to target: String) throws -> String {
        try FileManager.default.createSymbolicLink(atPath: dir.file(name), withDestinationPath: target)
        return dir.file(name)
    }

    private func openerSettings(_ dir: TempFolder, _ device: String, _ extra: [String] = []) throws -> Settings {
        try GaragedTests.settings(["--pins", dir.file("pins"), "--socket", dir.file("s.sock"), "--opener", "secplus2:\(device)"] + extra)
    }

    /// Issue 39: on a Pi 4 without an overlay, /dev/serial1 leads to ttyAMA0, the Bluetooth
    /// controller's UART: garaged refuses to start on it (the message names the device, the
    /// model, why and the fix), and doctor FAILs it the same way and sends it nothing. With
    /// miniuart-bt it is the UART on the pins; off a Pi nothing is refused.
    func testAnOpenerOnBluetoothsUARTIsRefusedAtStartAndByDoctor() throws {
        let dir = try TempFolder()
        let serial1 = try link(dir, "serial1", to: "ttyAMA0")
        let s = try openerSettings(dir, serial1)
        let pi4 = try machine(in: dir, model: "Raspberry Pi 4 Model B Rev 1.4", config: "dtparam=audio=on\nenable_uart=1\n")
        XCTAssertThrowsError(try s.checkOpenerUARTs(on: RaspberryPi.serial(root: pi4))) { error in
            let text = (error as? ConfigError)?.description ?? "\(error)"
            XCTAssertTrue(text.hasPrefix("--opener secplus2:\(serial1): \(serial1) (ttyAMA0) is the Bluetooth controller's UART on this Raspberry Pi 4 Model B Rev 1.4, not the UART on pins 8 and 10"), text)
            XCTAssertTrue(text.contains("add dtoverlay=miniuart-bt and core_freq=250 to /boot/firmware/config.txt and reboot"), text)
        }
        var report = DoctorReport()
        DoctorChecks(settings: s, root: pi4).openers(into: &report)
        XCTAssertTrue(report.text.hasPrefix("FAIL  opener: \(serial1) (ttyAMA0) is the Bluetooth controller's UART"), report.text)
        XCTAssertEqual(report.findings.count, 1, "nothing is tried on Bluetooth's UART: \(report.text)")

        let moved = try TempFolder()
        let serial0 = try link(moved, "serial0", to: "ttyAMA0")
        let root = try machine(in: moved, model: "Raspberry Pi 4 Model B Rev 1.4", config: "dtoverlay=miniuart-bt\ncore_freq=250\n")
        XCTAssertNoThrow(try openerSettings(moved, serial0).checkOpenerUARTs(on: RaspberryPi.serial(root: root)))
        let pc = try machine(in: try TempFolder(), model: nil)
        XCTAssertNil(RaspberryPi.serial(root: pc), "no device-tree model: not a Pi")
        XCTAssertNoThrow(try s.checkOpenerUARTs(on: RaspberryPi.serial(root: pc)))
    }

    /// On a Pi 5, /dev/serial0 is the debug connector's UART: doctor says to use ttyAMA0 with
    /// dtparam=uart0=on, naming /boot/config.txt when /boot/firmware has none. The model is
    /// read from /sys too (the packaged unit's /proc shows only processes).
    func testOnAPi5Serial0IsTheDebugConnectorAndTheOlderConfigPathIsRead() throws {
        let dir = try TempFolder()
        let serial0 = try link(dir, "serial0", to: "ttyAMA10")
        let root = try machine(in: dir, model: "Raspberry Pi 5 Model B Rev 1.0", modelPath: "/sys/firmware/devicetree/base/model",
                               config: "dtparam=uart0=on\n", configPath: "/boot/config.txt")
        var report = DoctorReport()
        DoctorChecks(settings: try openerSettings(dir, serial0), root: root).openers(into: &report)
        XCTAssertEqual(report.text, """
            FAIL  opener: \(serial0) (ttyAMA10) is the UART of the 3-pin debug connector on this Raspberry Pi 5 Model B Rev 1.0, not the UART on pins 8 and 10 (GPIO14/15): use opener = secplus2:/dev/ttyAMA0, with dtparam=uart0=on in /boot/config.txt, and reboot
            1 to fix, 0 to read: garaged would not start or not fully work.

            """)
    }

    /// config.txt changed but the Pi has not restarted: /dev/serial0 still leads to the mini
    /// UART while the file now makes it the PL011. Doctor says to reboot; a device that is not
    /// there is told what this model needs.
    func testDoctorSaysToRebootWhenSerial0DoesNotLeadWhereConfigTxtSays() throws {
        let dir = try TempFolder()
        let device = try link(dir, "serial0", to: "ttyAMA0")
        let root = try machine(in: dir, model: "Raspberry Pi 3 Model B Plus Rev 1.3", config: "enable_uart=1\ndtoverlay=miniuart-bt\ncore_freq=250\n", serial0: "ttyS0")
        var report = DoctorReport()
        DoctorChecks(settings: try openerSettings(dir, device), root: root).openers(into: &report)
        let lines = report.text.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains("ok    opener: \(device) (ttyAMA0) is the PL011 on pins 8 and 10 (GPIO14/15) of this Raspberry Pi 3 Model B Plus Rev 1.3 (dtoverlay=miniuart-bt on line 2 of /boot/firmware/config.txt, enable_uart=1 on line 1 of /boot/firmware/config.txt)"), report.text)
        XCTAssertTrue(lines.contains("warn  opener: /dev/serial0 leads to ttyS0, but /boot/firmware/config.txt as it is now makes it ttyAMA0: it changed since the Pi started; sudo reboot"), report.text)
        XCTAssertTrue(lines.contains { $0.hasPrefix("FAIL  opener: \(device): No such file or directory; enable the UART: on a Raspberry Pi 3 Model B Plus Rev 1.3 use opener = secplus2:/dev/serial0") }, report.text)
    }

    /// Issue 39: bluetoothd holding the adapter with ble on is a FAIL (it was a warning) that
    /// says how to stop it; with no such process nothing is said of it.
    func testBluetoothdRunningWithBLEOnFails() throws {
        let dir = try TempFolder()
        let base = ["--pins", dir.file("pins"), "--socket", dir.file("s.sock"), "--relay", "sim:\(dir.file("relay.trace"))"]
        let busy = try machine(in: dir, model: nil, proc: [17: "sleep", 4242: "bluetoothd"])
        var report = DoctorReport()
        DoctorChecks(settings: try GaragedTests.settings(base), root: busy).bluetooth(into: &report)
        let about = report.findings.filter { $0.text.contains("bluetoothd") }
        XCTAssertEqual(about.map(\.level), [.fail], report.text)
        XCTAssertEqual(about.first?.text, "bluetoothd is running (pid 4242): \(BluetoothPeripheral.bluetoothdProblem); sudo systemctl disable --now bluetooth; sudo btmgmt le on; sudo btmgmt power on; then restart garaged")

        var paired = DoctorReport()
        DoctorChecks(settings: try GaragedTests.settings(base + ["--ble-security", "paired"]), root: busy).bluetooth(into: &paired)
        XCTAssertTrue(paired.text.contains("FAIL  bluetooth: bluetoothd is running (pid 4242): --ble-security paired does not serve beside it"), paired.text)

        let quiet = try machine(in: try TempFolder(), model: nil, proc: [17: "sleep"])
        var none = DoctorReport()
        DoctorChecks(settings: try GaragedTests.settings(base), root: quiet).bluetooth(into: &none)
        XCTAssertFalse(none.text.contains("bluetoothd"), none.text)
    }
    /// Issue 38: each door's parts come from one table built from its settings and its opener's
    /// kind, and doctor says them: a relay door with nothing wired has none; a wired light,
    /// photo-eye and warning are the door's own; a Security+ 2.0 opener brings all of its.
    func testEachDoorsPartsComeFromItsSettingsAndDoctorSaysThem() throws {
        let dir = try TempFolder()
        let bare = try settings(in: dir)
        XCTAssertEqual(bare.doors[0].capabilities, DoorCapabilities(position: .believed))
        let wired = try GaragedTests.settings(["--pins", dir.file("pins"), "--socket", dir.file("s.sock"), "--no-ble",
                                               "--relay", "sim:\(dir.file("relay.trace"))", "--light", "sim:\(dir.file("light"))",
                                               "--warn", "sim:\(dir.file("warn"))", "--sensor-obstruction", "sim:\(dir.file("eye"))"])
        XCTAssertEqual(wired.doors[0].capabilities, DoorCapabilities(position: .believed, light: .wired, obstruction: .wired, warning: .output))
        let opener = try GaragedTests.settings(["--pins", dir.file("pins"), "--socket", dir.file("s.sock"), "--no-ble",
                                                "--opener", "secplus2:\(dir.file("tty"))"])
        XCTAssertEqual(opener.doors[0].capabilities, DoorCapabilities(position: .opener, light: .opener, remotesLock: true, motion: true,
                                                                      obstruction: .opener, openings: true, battery: true,
                                                                      warning: .openerLight, openerTitle: "Security+ 2.0"))
        var report = DoctorReport()
        DoctorChecks(settings: bare).parts(into: &report)
        DoctorChecks(settings: wired).parts(into: &report)
        DoctorChecks(settings: opener).parts(into: &report)
        XCTAssertEqual(report.text, """
            ok    parts: no light, photo-eye, warning or opener
            ok    parts: a light, a photo-eye, a warning output
            ok    parts: the opener's light, the lock of the opener's remotes, the opener's motion sensor, the opener's photo-eyes, the opener's count of openings, the opener's backup battery, a warning by the opener's light
            all well: garaged can start.

            """)
    }
}

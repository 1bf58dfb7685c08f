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

import Foundation
import XCTest

/// `--ble-security paired` against the real daemon, where no radio runs: the ATT seam is a
/// Unix socket whose link is never encrypted, so it is served exactly like a phone that never
/// paired (the kernel scenario 90-ble-paired pairs real phones); and pairing from the shell
/// says clearly when it cannot work.
final class PairedModeTests: GaragedTestCase {
    func testAnUnpairedPhoneIsToldToPairAndNothingPresses() throws {
        let daemon = try startATTDaemon(["--ble-security", "paired"])
        let phone = try connectBearer(daemon)
        // Discovery and reads stay open, so a phone can find what it must pair for.
        XCTAssertEqual(try phone.exchange("0A 03 00"), "0B " + attHex("Garage"))
        // Notifications and commands: Insufficient Authentication (0x05), which makes a phone pair.
        XCTAssertEqual(try phone.exchange("12 0F 00 01 00"), "01 12 0F 00 05")
        XCTAssertEqual(try phone.exchange("12 0C 00 " + attHex("12345O=1")), "01 12 0C 00 05")
        try phone.send("52 0C 00 " + attHex("12345O=1"))
        // A Read after the Write Command: its response proves the command was judged, unanswered.
        XCTAssertEqual(try phone.exchange("0A 03 00"), "0B " + attHex("Garage"))
        XCTAssertEqual(try daemon.ask("12345S"), "S CLOSED", "the local socket still serves")
        XCTAssertEqual(daemon.stop(), .exited(0))
        XCTAssertEqual(try daemon.trace().map(\.level), [0], "no write of an unpaired phone may press")
    }

    func testPairingNeedsPairedModeAndAnAdapterAndSaysSo() throws {
        try initTable()
        let daemon = try startDaemon(["--ble-security", "paired"])
        for args in [["pair", "--label", "Anna"], ["phones"], ["unpair", "Anna"]] {
            let r = try pins(daemon, args)
            XCTAssertEqual(r.termination, .exited(1), "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("--ble-security paired and a working Bluetooth adapter"), "\(args): \(r.stderr)")
        }
        let bad = try pins(daemon, ["pair", "--seconds", "0"])
        XCTAssertEqual(bad.termination, .exited(2))
        XCTAssertTrue(bad.stderr.contains("--seconds must be from 1 to 600"), bad.stderr)
        let badLabel = try pins(daemon, ["unpair", " anna"])
        XCTAssertEqual(badLabel.termination, .exited(2))
        XCTAssertTrue(badLabel.stderr.contains("LABEL: a label cannot start or end with a space"), badLabel.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: pinsPath + ".bonds"), "nothing written")
    }

    func testAnUnknownSecurityModeIsRefusedAtStart() throws {
        try initTable()
        let d = try launchDaemon(["--ble-security", "secure"])
        XCTAssertEqual(d.process.waitForExit(timeout: .seconds(10)), .exited(1), "a configuration error")
        XCTAssertTrue(d.process.stderr.contains("'secure' is not open or paired"), d.process.stderr)
    }
}

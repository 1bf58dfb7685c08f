import Foundation
import XCTest

/// `garaged --print-advertising`: the advertising data and scan response the daemon would hand
/// the controller (Core Vol 3 Part C 11: length, AD type, data; Supplement Part A), byte for byte.
final class ATTAdvertisingTests: GaragedTestCase {
    private var runs = 0

    /// Runs `garaged --print-advertising` with `extra`, to its end.
    private func printAdvertising(_ extra: [String]) throws -> (termination: Termination, stdout: String, stderr: String) {
        runs += 1
        let child = try spawn(try Binaries.path(of: "garaged"), ["--print-advertising"] + extra, name: "print-advertising\(runs)")
        guard let end = child.waitForExit(timeout: .seconds(10)) else {
            child.terminate(grace: .milliseconds(100))
            throw HarnessError("garaged --print-advertising did not finish within 10 s")
        }
        return (end, child.stdout, child.stderr)
    }

    /// The hex after "<label> (<n> bytes): " on its line, checking n against the bytes.
    private func payload(_ label: String, in output: String,
                         file: StaticString = #filePath, line: UInt = #line) -> String? {
        guard let row = output.split(separator: "\n").first(where: { $0.hasPrefix(label + " (") }),
              let colon = row.range(of: "): ") else {
            XCTFail("no '\(label)' line in: \(output)", file: file, line: line)
            return nil
        }
        let hex = String(row[colon.upperBound...])
        XCTAssertEqual(row, "\(label) (\(attBytes(hex).count) bytes): \(hex)", "the byte count", file: file, line: line)
        return hex
    }

    /// Flags, then Apple's iBeacon: 1A FF (26 octets of manufacturer data), 4C 00 (Apple,
    /// little-endian), 02 15 (iBeacon, 21 octets), the UUID big-endian, major, minor, power.
    private func expectedAdvertising(major: String, minor: String) -> String {
        "02 01 06 " +                                             // Flags: LE General Discoverable, BR/EDR not supported
        "1A FF 4C 00 02 15 " +
        "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 FF " +     // the book's UUID 00000000-…-0000000000FF
        major + " " + minor + " " +
        "C5"                                                      // measured power -59 dBm
    }

    /// 11 07: the complete list of 128-bit service UUIDs (17 octets), NUS little-endian; then
    /// the Complete Local Name (type 0x09).
    private func expectedScanResponse(name: String) -> String {
        "11 07 " + NUSWire.service + " " + attHex([UInt8(name.utf8.count + 1), 0x09]) + " " + attHex(name)
    }

    func testDefaultAdvertisingBytes() throws {
        let run = try printAdvertising([])
        XCTAssertEqual(run.termination, .exited(0), run.stderr)
        XCTAssertEqual(payload("advertising data", in: run.stdout), expectedAdvertising(major: "00 00", minor: "00 01"))
        XCTAssertEqual(payload("scan response", in: run.stdout), expectedScanResponse(name: "Garage"))
        XCTAssertEqual(payload("scan response", in: run.stdout),
                       "11 07 " + NUSWire.service + " 07 09 47 61 72 61 67 65")
    }

    func testBeaconMajorMinorAndNameChangeTheirBytes() throws {
        let run = try printAdvertising(["--beacon-major", "7", "--beacon-minor", "9", "--ble-name", "Door"])
        XCTAssertEqual(run.termination, .exited(0), run.stderr)
        // Major and minor are big-endian (Apple's layout), unlike every Bluetooth SIG field.
        XCTAssertEqual(payload("advertising data", in: run.stdout), expectedAdvertising(major: "00 07", minor: "00 09"))
        XCTAssertEqual(payload("scan response", in: run.stdout),
                       "11 07 " + NUSWire.service + " 05 09 44 6F 6F 72")
    }

    func testABadBeaconUUIDIsRefusedNamingTheFlag() throws {
        for bad in ["nope", "00000000-0000-0000-0000-0000000000FG", "00000000-0000-0000-0000-00000000FF"] {
            let run = try printAdvertising(["--beacon-uuid", bad])
            XCTAssertNotEqual(run.termination, .exited(0), "--beacon-uuid \(bad) was accepted: \(run.stdout)")
            XCTAssertTrue(run.stderr.contains("--beacon-uuid"), "the message should name the flag: \(run.stderr)")
            XCTAssertFalse(run.stdout.contains("advertising data"), "nothing printed for \(bad): \(run.stdout)")
        }
    }
}

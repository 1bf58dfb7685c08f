import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Issue 39, items 1 and 10, on the real binaries: `garage-pins` says garaged's own reason for a
/// refusal (a silent opener is not "position switches"), and says so when a command did
/// nothing; the codes stay for scripts, and Bluetooth gets the book's bytes.
final class GaragePinsRefusalTests: GaragedTestCase {
    /// Asserts `result` exited 1 with garaged's reason in words, then the code.
    private func assertRefused(_ result: CommandResult, startingWith words: String, code: String,
                               file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(result.termination, .exited(1), result.stderr, file: file, line: line)
        XCTAssertTrue(result.stderr.hasPrefix("garage-pins: garaged refused: " + words), result.stderr, file: file, line: line)
        XCTAssertTrue(result.stderr.hasSuffix("(\(code))\n"), "the code, for scripts: \(result.stderr)", file: file, line: line)
        XCTAssertEqual(result.stdout, "", file: file, line: line)
    }

    /// The `door` row of `garage-pins status`.
    private func doorRow(_ daemon: GaragedDaemon) throws -> String {
        let status = try pins(daemon, ["status"])
        assertExit(status, 0)
        return squeezed(status.stdout).split(separator: "\n").first { $0.hasPrefix("door ") }.map(String.init) ?? status.stdout
    }

    func testASilentOpenersRefusalsNameTheOpenerAndWhatToCheck() throws {
        try initTable()
        let fake = try startOpener(muted: true)
        let daemon = try startGaragedWithOpener()
        let silent = "the Security+ 2.0 opener on \(openerLink) does not answer"

        let open = try pins(daemon, ["open"])
        assertRefused(open, startingWith: silent + ", so garaged presses nothing; check its wiring to the Pi, the level circuit and the opener's power",
                      code: "ERR FAULT")
        XCTAssertFalse(open.stderr.contains("switches"), "an opener's door has no switches: \(open.stderr)")
        let raw = try daemon.explained("12345O=1")
        XCTAssertEqual(raw.record, "ERR FAULT", "the local socket's code is as it was")
        XCTAssertTrue(raw.reason?.hasPrefix(silent) ?? false, "\(raw)")

        XCTAssertEqual(try doorRow(daemon), "door STOPPED (unconfirmed: waiting for the Security+ 2.0 opener on \(openerLink) to say where the door is)")
        XCTAssertTrue(waitUntil("opener-silent after 5 s of asking", timeout: .seconds(10)) { doorStatus(daemon).contains(#""fault":"OPENER SILENT""#) },
                      doorStatus(daemon))
        XCTAssertEqual(try doorRow(daemon), "door STOPPED (unconfirmed: the Security+ 2.0 opener on \(openerLink) is silent; check its wiring to the Pi, the level circuit and the opener's power)")

        // Nothing answered the light: refused, not "light on".
        let light = try pins(daemon, ["light", "on"])
        assertRefused(light, startingWith: silent + ", so garaged cannot switch its light; check its wiring", code: "ERR FAULT")
        XCTAssertFalse(openerPackets().contains { $0.name == "LIGHT" }, "nothing was sent for it: \(openerPackets())")
        XCTAssertTrue(doorStatus(daemon).contains(#""light":false"#), doorStatus(daemon))

        // Plugged in again: the door is the opener's word, and the light is switched.
        fake.signal(SIGUSR1)
        XCTAssertTrue(waitUntil("the opener answers and says where the door is", timeout: .seconds(15)) {
            doorStatus(daemon).contains(#""state":"connected""#)
        }, doorStatus(daemon))
        XCTAssertEqual(try doorRow(daemon), "door CLOSED (from the Security+ 2.0 opener on \(openerLink))")
        let on = try pins(daemon, ["light", "on"])
        assertExit(on, 0)
        XCTAssertEqual(on.stdout, "light on\n")
        XCTAssertTrue(waitUntil("the opener's light on, as it says", timeout: .seconds(5)) { doorStatus(daemon).contains(#""light":true"#) },
                      doorStatus(daemon))
        let again = try pins(daemon, ["light", "on"])
        assertExit(again, 0)
        XCTAssertEqual(again.stdout, "the light is already on\n")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    func testCommandsThatDidNothingSaySoAndTheBookStillGetsOK() throws {
        let daemon = try startATTDaemon(["--auto-close-s", "0", "--light", "sim:\(dir)/light.trace"])

        let close = try pins(daemon, ["close"])
        assertExit(close, 0)
        XCTAssertEqual(close.stdout, "already closed: nothing pressed\n")
        XCTAssertEqual(try daemon.explained("12345O=0").reason, "already closed: nothing pressed")
        XCTAssertEqual(try daemon.explained("12345O=0").record, "OK", "the code is as it was")
        let phone = try connectBearer(daemon)
        XCTAssertEqual(try phone.enableNotifications(), "13")
        try phone.writeCommand("12345O=0")
        XCTAssertEqual(try phone.notification(), "OK", "the book's app: plain OK")
        try phone.assertNothingPending("no words over Bluetooth")
        XCTAssertEqual(try daemon.trace().count, 1, "nothing pressed")

        let off = try pins(daemon, ["light", "off"])
        assertExit(off, 0)
        XCTAssertEqual(off.stdout, "the light is already off\n")
        XCTAssertEqual(try pins(daemon, ["light", "on"]).stdout, "light on\n")
        XCTAssertEqual(try pins(daemon, ["light", "on"]).stdout, "the light is already on\n")
        try phone.writeCommand("12345L=1")
        XCTAssertEqual(try phone.notification(), "OK")
        try phone.assertNothingPending("no words over Bluetooth")

        // A press needs no words; one toward where the door goes says it; one against it says what to do.
        let open = try pins(daemon, ["open"])
        assertExit(open, 0)
        XCTAssertEqual(open.stdout, "OK\n")
        XCTAssertEqual(try pins(daemon, ["open"]).stdout, "already opening: nothing pressed\n")
        assertRefused(try pins(daemon, ["close"]), startingWith: "the door is opening; wait until it stops, then ask again", code: "ERR BUSY")
        try waitForTrace(daemon, count: 3)
        XCTAssertEqual(try daemon.trace().map(\.level), [0, 1, 0], "one press")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }
}

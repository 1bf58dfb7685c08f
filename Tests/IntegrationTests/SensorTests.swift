import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The real daemon with simulated limit switches (`sim:FILE`, watched with inotify), a warning
/// output and a light (simulated lines with traces): the door it senses, a warned auto-close,
/// a door moved by someone else, faults, and the new commands.
final class SensorTests: GaragedTestCase {
    func testTheSensedDoorOpensAndClosesAutomaticallyAfterTheWarning() throws {
        let daemon = try startSensed()
        waitUntil("the start line", timeout: .seconds(3)) { daemon.log.contains("sensing=\"sensed: closed and open switches\"") }
        var s = try status(daemon)
        XCTAssertEqual(s["mode"] as? String, "sensed")
        XCTAssertEqual((s["sensors"] as? [String: Any])?["closed"] as? Bool, true)
        XCTAssertEqual(s["door"] as? String, "CLOSED")

        XCTAssertEqual(try daemon.ask("12345O=1"), "OK")
        try waitForTrace(daemon, count: 3)
        try waitForDoor(daemon, "CLOSED")  // pressed, not moved yet: the switches say where it is
        try move(open: true)
        try waitForDoor(daemon, "OPEN")
        XCTAssertEqual(try daemon.ask("12345O=1"), "OK", "already open")
        s = try status(daemon)
        XCTAssertEqual(s["light"] as? Bool, true, "the light came on as the door moved")

        // Auto-close: the warning goes on, then 1 s later the press.
        let trace = try waitForTrace(daemon, count: 5, timeout: .seconds(10))
        let warning = try readTrace(warnTrace)
        XCTAssertEqual(Array(warning.map(\.level).prefix(2)), [0, 1], "the warning went on")
        guard warning.count >= 2 else { return }
        let warnOn = warning[1].ns, press = trace[3].ns
        let lead = Double(press - warnOn) / 1e6
        print("warning to press: \(String(format: "%.1f", lead)) ms (asked 1000)")
        XCTAssertGreaterThanOrEqual(lead, 1000, "the press comes only after the whole warning")
        XCTAssertLessThan(lead, 1500)
        try move(open: false)
        try waitForDoor(daemon, "CLOSED")
        waitUntil("the warning off after the door closed", timeout: .seconds(3)) { (try? readTrace(warnTrace))?.last?.level == 0 }
        XCTAssertEqual(try daemon.ask("12345O=0"), "OK", "closed: nothing to press")
        XCTAssertEqual(try daemon.trace().count, 5, "two presses in all")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// The believed design's hazard: closed by hand before auto-close. Seen, and never pressed.
    func testADoorMovedByHandIsSeenAndNotPressedAgainstIt() throws {
        let daemon = try startSensed(["--auto-close-s", "3"])
        try move(open: true)  // by its remote
        try waitForDoor(daemon, "OPEN")
        try move(open: false)  // and closed by the wall button
        try waitForDoor(daemon, "CLOSED")
        let log = try pins(daemon, ["log", "--json"])
        let doorEvents = (json(log.stdout) as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "door" }
        XCTAssertEqual(doorEvents.first?["detail"] as? String, "OPENING, not by garaged", log.stdout)
        // Closed: no automatic close is pending (the believed design would press now).
        XCTAssertNil(try status(daemon)["auto_close_s"] as? Int)
        XCTAssertEqual(try daemon.trace().count, 1, "no press at all")
        XCTAssertEqual(try readTrace(warnTrace).map(\.level), [0], "no warning either")
    }

    /// A press that does not move the door: a fault in the status, the log and the history,
    /// pushed to phones; and an open request never presses toward OPEN.
    func testAPressThatDoesNotMoveTheDoorIsAFault() throws {
        let daemon = try startSensed(["--att-socket", attSocketPath])
        let phone = try connectBearer(daemon)
        XCTAssertEqual(try phone.enableNotifications(), "13")
        try phone.writeCommand("12345O=1")
        XCTAssertEqual(try phone.notification(), "OK")
        XCTAssertEqual(try phone.notification(timeout: .seconds(6)), "F NOT MOVED", "pushed when the travel time is up")
        XCTAssertEqual(try status(daemon)["fault"] as? String, "NOT MOVED")
        waitUntil("the fault in the log", timeout: .seconds(3)) { daemon.log.contains("door-fault fault=\"NOT MOVED\"") }
    }

    func testHoldLightAndTheClosingIntervalFromTheApp() throws {
        let daemon = try startSensed(["--auto-close-s", "30"])
        XCTAssertEqual(try daemon.ask("12345L=1"), "OK")
        waitUntil("the light on", timeout: .seconds(3)) { (try? readTrace(lightTrace))?.last?.level == 1 }
        XCTAssertEqual(try daemon.ask("12345L=0"), "OK")
        waitUntil("the light off", timeout: .seconds(3)) { (try? readTrace(lightTrace))?.last?.level == 0 }
        XCTAssertEqual(try daemon.ask("12345C=600"), "OK")
        XCTAssertEqual(readText(pinsPath + ".autoclose"), "600\n", "kept beside the table")
        XCTAssertEqual(try daemon.ask("12345A24680"), "OK 1")
        XCTAssertEqual(try daemon.ask("24680C=10"), "ERR PIN", "the closing interval is the master's")
        try move(open: true)
        try waitForDoor(daemon, "OPEN")
        XCTAssertEqual(try status(daemon)["auto_close_s"] as? Int, 601, "600 s, then the 1 s warning")
        XCTAssertEqual(try daemon.ask("24680H=5"), "OK", "any stored PIN may hold the door")
        XCTAssertEqual(try status(daemon)["hold_s"] as? Int, 300)
        XCTAssertEqual(try daemon.ask("12345S"), "S OPEN", "no countdown while held")
        XCTAssertEqual(try daemon.ask("12345H=9999"), "ERR FORMAT", "at most a day")
        // The owner's view: how the door is known, the hold, the light.
        let shown = try pins(daemon, ["status"])
        assertExit(shown, 0)
        XCTAssertTrue(squeezed(shown.stdout).contains("door OPEN (sensed: closed switch inactive, open switch active)"), shown.stdout)
        XCTAssertTrue(squeezed(shown.stdout).contains("hold held open for 5 min"), shown.stdout)
        XCTAssertTrue(squeezed(shown.stdout).contains("light "), shown.stdout)
        assertExit(try pins(daemon, ["hold", "0"]), 0)
        assertExit(try pins(daemon, ["light", "on"]), 0)
        assertExit(try pins(daemon, ["auto-close", "600"]), 0)
        // The interval outlives a restart.
        XCTAssertEqual(daemon.stop(), .exited(0))
        let again = try startDaemon(["--sensor-closed", "sim:" + closedSwitch, "--sensor-open", "sim:" + openSwitch])
        waitUntil("the start line", timeout: .seconds(3)) { again.log.contains("auto_close_s=\"600 (set from the app)\"") }
        XCTAssertEqual(try status(again)["auto_close_interval_s"] as? Int, 600)
        XCTAssertNil(try status(again)["auto_close_s"] as? Int, "found open at start: never closed unasked")
    }

    /// W8 (issue 29) on the real binary: the photo-eye's beam (`sim:FILE`) broken 30 times for
    /// 60 ms, 40 ms clear between, during a warned close, with the default 100 ms debounce.
    /// Debounced both ways no break counted and the close was pressed after its warning; a
    /// break counts at once, so the first calls the close off. (The pulses are the stimulus;
    /// what follows is waited for.)
    func testABeamBrokenBrieflyAgainAndAgainStopsAWarnedClose() throws {
        let eye = dir + "/eye"
        try setSwitch(eye, false)
        let daemon = try startSensed(["--sensor-obstruction", "sim:" + eye, "--sensor-debounce-ms", "100", "--warn-s", "5",
                                      "--auto-close-s", "0"], closed: false, open: true)
        try waitForDoor(daemon, "OPEN")
        XCTAssertEqual(try daemon.ask("12345O=0"), "OK")
        waitUntil("the warning on", timeout: .seconds(3)) { (try? readTrace(warnTrace))?.last?.level == 1 }
        for _ in 0..<30 {
            try setSwitch(eye, true)
            Thread.sleep(forTimeInterval: 0.060)
            try setSwitch(eye, false)
            Thread.sleep(forTimeInterval: 0.040)
        }
        waitUntil("the close called off for the beam", timeout: .seconds(5)) {
            daemon.log.split(separator: "\n").contains { $0.contains("press-cancelled") && $0.contains("photo-eye's beam") }
        }
        waitUntil("the warning off", timeout: .seconds(3)) { (try? readTrace(warnTrace))?.last?.level == 0 }
        waitUntil("the beam clear in the status", timeout: .seconds(3)) {
            ((try? self.status(daemon))?["sensors"] as? [String: Any])?["obstruction"] as? Bool == false
        }
        XCTAssertNil(try status(daemon)["auto_close_s"] as? Int, "nothing left to close the door")
        XCTAssertEqual(try daemon.trace().count, 1, "never pressed (the trace holds only the released start level)")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    func testWithoutSensorsTheStartSaysAutoCloseIsBlindAndUnwarned() throws {
        try initTable()
        let daemon = try startDaemon()
        waitUntil("the warnings at start", timeout: .seconds(3)) {
            daemon.log.contains("auto-close-blind") && daemon.log.contains("auto-close-unwarned")
        }
        XCTAssertTrue(daemon.log.contains("sensing=\"believed (no sensors)\""), daemon.log)
        XCTAssertEqual(daemon.stop(), .exited(0))
        let short = try launchDaemon(["--warn", "sim:" + warnTrace, "--warn-s", "2"], socket: dir + "/s2", trace: dir + "/t2")
        try waitForSocket(short)
        waitUntil("the short warning said", timeout: .seconds(3)) { short.log.contains("warning-short") && short.log.contains("the warning (2 s)") }
    }
}

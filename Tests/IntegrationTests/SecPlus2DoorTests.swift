import Foundation
import XCTest

/// The door from a Security+ 2.0 opener (issue 31): its STATUS is the door's position (`mode`
/// `opener`), its photo-eyes the gate's obstruction, and its silence a fault that stops every
/// press until it answers again. Against Tests/secplus/fakeopener.py on a pty.
final class SecPlus2DoorTests: GaragedTestCase {
    /// garaged behind an opener whose door is open, once it reports the door OPEN: where a close starts.
    private func garagedWithTheDoorOpen(warnS: Int, file: StaticString = #filePath, line: UInt = #line) throws -> GaragedDaemon {
        try initTable()
        try startOpener(state: "open")
        let daemon = try startGaragedWithOpener(["--warn-s", String(warnS)])
        assertDoor(daemon, becomes: "OPEN", "the door OPEN, as the opener says", file: file, line: line)
        return daemon
    }

    func testTheOpenersStatusIsTheDoorsPositionAndAnOpenMovesIt() throws {
        let daemon = try garagedWithTheDoorOpen(warnS: 1)
        XCTAssertTrue(doorStatus(daemon).contains(#""mode":"opener""#), doorStatus(daemon))
        XCTAssertTrue(doorStatus(daemon).contains(#""obstruction":false"#), "the opener's photo-eyes: \(doorStatus(daemon))")
        XCTAssertEqual(try daemon.ask("12345O=1"), "OK", "open toward OPEN: nothing to do")
        XCTAssertEqual(try daemon.ask("12345O=0"), "OK")
        assertDoor(daemon, becomes: "CLOSED", "the warning, CLOSING, then CLOSED", within: .seconds(10))
        XCTAssertTrue(waitUntil("the log's CLOSING and CLOSED by garaged", timeout: .seconds(5)) {
            daemon.log.contains("door state=CLOSING by=garaged") && daemon.log.contains("door state=CLOSED by=garaged")
        }, daemon.log)
        XCTAssertTrue(daemon.log.contains("press reason=close action=close"), daemon.log)
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// A silent opener: the fault, every press refused naming the opener and its device, and
    /// all of it back by itself once it answers.
    func testASilentOpenerIsAFaultAndTakesNoPressUntilItAnswers() throws {
        try initTable()
        let fake = try startOpener(muted: true)
        let daemon = try startGaragedWithOpener()
        XCTAssertEqual(try daemon.ask("12345O=1"), "ERR FAULT", "not answered yet: its state is not known")
        XCTAssertTrue(waitUntil("opener-silent after 5 s of asking", timeout: .seconds(10)) { doorStatus(daemon).contains(#""fault":"OPENER SILENT""#) },
                      doorStatus(daemon))
        XCTAssertTrue(waitUntil("opener-silent in the log", timeout: .seconds(5)) { daemon.log.contains("opener-silent") }, daemon.log)
        XCTAssertEqual(try daemon.ask("12345O=1"), "ERR FAULT")
        XCTAssertTrue(waitUntil("the refusal's log line naming the opener", timeout: .seconds(5)) {
            daemon.log.contains("the Security+ 2.0 opener on \(openerLink) does not answer")
        }, daemon.log)
        fake.signal(SIGUSR1)  // plugged in again: it answers the next ask (every 5 s)
        XCTAssertTrue(waitUntil("the fault gone and the door known", timeout: .seconds(15)) {
            let s = doorStatus(daemon)
            return s.hasPrefix(#"{"door":"CLOSED""#) && s.contains(#""fault":null"#)
        }, doorStatus(daemon))
        XCTAssertEqual(try daemon.ask("12345O=1"), "OK")
        assertDoor(daemon, becomes: "OPEN", "OPEN")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    func testASwitchBesideAnOpenerIsRefusedNamingBoth() throws {
        try initTable()
        try assertRefusedBesideTheOpener("--sensor-closed", "sim:\(dir)/closed")
    }

    /// The opener's light, the lock of its remotes, its motion sensor, its photo-eyes and its
    /// count of openings, all in the status record; the wall button is someone else.
    func testTheOpenersLightLockMotionPhotoEyesAndOpeningsAreInTheStatus() throws {
        try initTable()
        try startOpener()
        let daemon = try startGaragedWithOpener(["--motion-s", "2"])
        XCTAssertTrue(waitUntil("the opener connected, its count of openings known", timeout: .seconds(5)) {
            doorStatus(daemon).contains(#""opener":{"protocol":"secplus2","device":"\#(openerLink)","state":"connected","remotes_locked":false,"motion":false,"openings":17}"#)
        }, doorStatus(daemon))
        XCTAssertTrue(doorStatus(daemon).contains(#""light":false"#), doorStatus(daemon))
        XCTAssertEqual(try daemon.ask("12345L=1"), "OK")
        XCTAssertTrue(waitUntil("the opener's light on, as it says", timeout: .seconds(5)) { doorStatus(daemon).contains(#""light":true"#) },
                      doorStatus(daemon))
        XCTAssertEqual(try daemon.ask("12345L=0"), "OK")
        XCTAssertTrue(waitUntil("off again", timeout: .seconds(5)) { doorStatus(daemon).contains(#""light":false"#) }, doorStatus(daemon))
        try tell("motion")
        XCTAssertTrue(waitUntil("motion", timeout: .seconds(5)) { doorStatus(daemon).contains(#""motion":true"#) }, doorStatus(daemon))
        XCTAssertTrue(waitUntil("no motion once motion-s passed", timeout: .seconds(5)) { doorStatus(daemon).contains(#""motion":false"#) },
                      doorStatus(daemon))
        try tell("obstruct")
        XCTAssertTrue(waitUntil("the opener's photo-eyes broken", timeout: .seconds(5)) { doorStatus(daemon).contains(#""obstruction":true"#) },
                      doorStatus(daemon))
        try tell("clear")
        XCTAssertTrue(waitUntil("clear", timeout: .seconds(5)) { doorStatus(daemon).contains(#""obstruction":false"#) }, doorStatus(daemon))
        try tell("button")
        XCTAssertTrue(waitUntil("OPEN by the wall button, counted", timeout: .seconds(5)) {
            let s = doorStatus(daemon)
            return s.hasPrefix(#"{"door":"OPEN""#) && s.contains(#""openings":18"#)
        }, doorStatus(daemon))
        XCTAssertTrue(waitUntil("the history: the wall button", timeout: .seconds(5)) { daemon.log.contains(#"door state=OPEN by="the wall button""#) },
                      daemon.log)
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// No `warn` output: a close garaged starts is announced by the opener's own light flashing,
    /// at least once a second for warn-s, and the light is left as it was.
    /// Who moved the door, from the wire (issue 38 item 6): a wall panel's DOOR_ACTION before a
    /// move is "the wall button"; a move with nothing on the wire, "a remote or keypad". The log,
    /// the history and who last opened it say which.
    func testWhoMovedTheDoorIsTheWallButtonOrARemote() throws {
        try initTable()
        try startOpener()
        let daemon = try startGaragedWithOpener()
        XCTAssertTrue(waitUntil("CLOSED", timeout: .seconds(5)) { doorStatus(daemon).hasPrefix(#"{"door":"CLOSED""#) }, doorStatus(daemon))
        try tell("button")
        XCTAssertTrue(waitUntil("OPEN by the wall button", timeout: .seconds(5)) { daemon.log.contains(#"door state=OPEN by="the wall button""#) },
                      daemon.log)
        XCTAssertTrue(doorStatus(daemon).contains(#""last_opened_by":"the wall button""#), doorStatus(daemon))
        try tell("remote")
        XCTAssertTrue(waitUntil("CLOSED by a remote", timeout: .seconds(5)) { daemon.log.contains(#"door state=CLOSED by="a remote or keypad""#) },
                      daemon.log)
        let client = try daemon.connect()
        try client.sendLine(Array("12345Llog".utf8))
        var history: [String] = []
        while let r = try? client.readRecord(), r.hasPrefix("{") { history.append(r) }
        XCTAssertTrue(history.contains { $0.contains("OPENING, not by garaged (the wall button)") }, "\(history)")
        XCTAssertTrue(history.contains { $0.contains("CLOSING, not by garaged (a remote or keypad)") }, "\(history)")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    func testWithoutAWarnOutputTheOpenersLightFlashesBeforeAClose() throws {
        let daemon = try garagedWithTheDoorOpen(warnS: 3)
        XCTAssertEqual(try daemon.ask("12345O=0"), "OK")
        assertDoor(daemon, becomes: "CLOSED", "CLOSED after the warning", within: .seconds(10))
        XCTAssertTrue(waitUntil("the warning over", timeout: .seconds(5)) { doorStatus(daemon).contains(#""warning":false"#) }, doorStatus(daemon))
        let all = openerPackets()
        guard let press = all.firstIndex(where: { $0.name == "DOOR_ACTION" && $0.byte1 == 1 }) else { return XCTFail("no press: \(all)") }
        let flashes = all[..<press].filter { $0.name == "LIGHT" }
        XCTAssertGreaterThanOrEqual(flashes.count, 3, "on and off at least once a second for 3 s before the press: \(all)")
        XCTAssertEqual(all[press].nibble, 0, "then the close")
        if let first = flashes.first { XCTAssertGreaterThanOrEqual(all[press].t - first.t, 2.5, "a whole warning before the press") }
        XCTAssertTrue(waitUntil("the light left as it was (off)", timeout: .seconds(5)) {
            openerPackets().last(where: { $0.name == "LIGHT" })?.nibble == 0 && doorStatus(daemon).contains(#""light":false"#)
        }, "\(openerPackets())")
        XCTAssertTrue(daemon.log.contains("shown_by=\"the opener's light, flashing\""), daemon.log)
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// Garbage on the wire (random bytes, syncs and noise, a STATUS saying "open" with a bit flipped
    /// that its checks catch, cut packets, a wall panel's DOOR_ACTION): no state from any of it,
    /// the owner's socket answers throughout, and the log says it once, not 300 times.
    func testGarbageOnTheWireChangesNothingAndIsLoggedOnce() throws {
        try initTable()
        try startOpener()
        let daemon = try startGaragedWithOpener()
        assertDoor(daemon, becomes: "CLOSED", "CLOSED")
        try tell("garbage")
        for _ in 0..<20 { XCTAssertTrue(doorStatus(daemon).hasPrefix(#"{"door":"CLOSED""#), doorStatus(daemon)) }
        XCTAssertTrue(waitUntil("the first bad packet in the log", timeout: .seconds(5)) {
            daemon.log.contains("opener-packet-refused") || daemon.log.contains("opener-packet-cut")
        }, daemon.log)
        XCTAssertEqual(try daemon.ask("12345O=1"), "OK", "the opener still answers and the door still moves")
        assertDoor(daemon, becomes: "OPEN", "OPEN")
        let lines = daemon.log.split(separator: "\n").filter { $0.contains("opener-packet-") }
        XCTAssertEqual(lines.count, 1, "one line, the rest counted for the minute's summary: \(lines)")
        XCTAssertFalse(daemon.log.contains("door state=OPEN by=\"someone else"), "no state from the garbage: \(daemon.log)")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// The opener's own photo-eyes are the gate's: no close (and no warning) while they see
    /// something; once clear, the close goes out as the opener's command.
    func testTheOpenersPhotoEyesRefuseACloseUntilClear() throws {
        let daemon = try garagedWithTheDoorOpen(warnS: 1)
        try tell("obstruct")
        XCTAssertTrue(waitUntil("obstructed", timeout: .seconds(5)) { doorStatus(daemon).contains(#""obstruction":true"#) }, doorStatus(daemon))
        XCTAssertEqual(try daemon.ask("12345O=0"), "ERR OBSTRUCTED")
        XCTAssertTrue(doorStatus(daemon).contains(#""warning":false"#), "no warning either: \(doorStatus(daemon))")
        XCTAssertFalse(openerPackets().contains { $0.name == "DOOR_ACTION" || $0.name == "LIGHT" }, "nothing sent: \(openerPackets())")
        try tell("clear")
        XCTAssertTrue(waitUntil("clear", timeout: .seconds(5)) { doorStatus(daemon).contains(#""obstruction":false"#) }, doorStatus(daemon))
        XCTAssertEqual(try daemon.ask("12345O=0"), "OK")
        assertDoor(daemon, becomes: "CLOSED", "CLOSED after the warning", within: .seconds(10))
        XCTAssertEqual(openerPackets().filter { $0.name == "DOOR_ACTION" }.map(\.nibble), [0, 0], "a close's press and release")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// The beam broken while the door closes: the opener reverses it by itself, and garaged
    /// reports the close that did not finish (auto-close waits until the door is seen closed).
    func testTheOpenersOwnReversalIsAFailedClose() throws {
        let daemon = try garagedWithTheDoorOpen(warnS: 1)
        XCTAssertEqual(try daemon.ask("12345O=0"), "OK")
        assertDoor(daemon, becomes: "CLOSING", "CLOSING after the warning", within: .seconds(10))
        try tell("obstruct")
        XCTAssertTrue(waitUntil("reversed to OPEN, the close reported failed", timeout: .seconds(5)) {
            let s = doorStatus(daemon)
            return s.hasPrefix(#"{"door":"OPEN""#) && s.contains(#""fault":"NOT CLOSED""#) && s.contains(#""obstruction":true"#)
        }, doorStatus(daemon))
        XCTAssertEqual(daemon.stop(), .exited(0))
    }
}

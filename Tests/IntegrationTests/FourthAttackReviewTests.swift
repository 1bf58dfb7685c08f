import Foundation
import XCTest

/// The fourth attack review's findings on the opener's wire (issue 37), each on the real binary
/// against the fake opener (Tests/secplus/fakeopener.py), the wire arranged by its controls: a
/// busy line, a forged packet, the device unplugged, a STATUS naming no state, a flapping
/// STATUS, a silent opener behind a chatty wall panel.
final class FourthAttackReviewTests: GaragedTestCase {
    /// The fake's note of a busy line it started ("busy S"): from and until when, on
    /// CLOCK_MONOTONIC (Python's time.monotonic, the harness's `monotonicNanoseconds`).
    private struct BusyLine: Decodable {
        let busy_from: Double
        let busy_until: Double
    }

    /// The fake's record of a busy line once it ended: when its last noise byte went out, and
    /// its own longest pause between noise bytes.
    private struct BusyEnded: Decodable {
        let busy_start: Double
        let busy_end: Double
        let max_gap: Double
    }

    /// The longest pause in the noise of the busy line that started at `from`, in microseconds
    /// (0 while it has not ended).
    private func longestPause(ofBusyLineFrom from: Double) -> Int {
        Int((notes(BusyEnded.self).first { $0.busy_start == from }?.max_gap ?? 0) * 1_000_000)
    }

    /// The fake's notes of one kind (its log's lines that decode as `T`).
    private func notes<T: Decodable>(_ type: T.Type, in log: String? = nil) -> [T] {
        readText(log ?? openerLog).split(separator: "\n").compactMap { try? JSONDecoder().decode(T.self, from: Data($0.utf8)) }
    }

    /// Now, in seconds on the fake's clock.
    private func monotonicSeconds() -> Double { Double(monotonicNanoseconds()) / 1e9 }

    /// Has the fake keep the line busy for `seconds` from now, and returns its note once it started.
    private func busyLine(_ seconds: Double, file: StaticString = #filePath, line: UInt = #line) throws -> BusyLine {
        let before = notes(BusyLine.self).count
        try tell("busy \(seconds)")
        var started: BusyLine?
        _ = waitUntil("the fake's busy line to start", timeout: .seconds(5), file: file, line: line) {
            started = notes(BusyLine.self).dropFirst(before).first
            return started != nil
        }
        return try XCTUnwrap(started, file: file, line: line)
    }

    /// The lines of garaged's log that say the opener's STATUS (not their bursts' summaries).
    private func statusLines(_ daemon: GaragedDaemon) -> [Substring] {
        daemon.log.split(separator: "\n").filter { $0.contains("opener-status door=") }
    }

    /// H3a: a warning cut short by a busy line. Asked to close while the line is busy, garaged
    /// used to count the warning from the request, so the close went out 3 s after it: only
    /// ~1.5 s after the first flash anyone could see. The warning counts from the first flash
    /// actually written: the close's DOOR_ACTION reaches the opener a whole warning (3 s) after
    /// the first LIGHT it received. A loaded machine can pause the busy line long enough for
    /// garaged to flash into it (then nothing held the warning up): the door is opened again
    /// and the scenario tried again, three times at most.
    func testTheWarningCountsFromTheFirstFlashWrittenNotFromTheRequest() throws {
        try initTable()
        try startOpener(state: "open")
        let daemon = try startGaragedWithOpener(["--warn-s", "3"])
        assertDoor(daemon, becomes: "OPEN", "the door OPEN, as the opener says")
        var notHeldUp: [String] = []
        for attempt in 1...3 {
            let seen = openerPackets().count
            let busy = try busyLine(1.5)
            let askedAt = monotonicSeconds()
            XCTAssertEqual(try daemon.ask("12345O=0"), "OK")
            let press = { (p: OpenerPacket) in p.name == "DOOR_ACTION" && p.byte1 == 1 }
            guard waitUntil("attempt \(attempt): the close's DOOR_ACTION press at the opener", timeout: .seconds(15), {
                openerPackets().dropFirst(seen).contains(where: press)
            }) else { return XCTFail("\(daemon.log)\n\(openerPackets())") }
            let all = openerPackets().dropFirst(seen)
            guard let close = all.first(where: press), let flash = all.first(where: { $0.name == "LIGHT" }) else { return XCTFail("\(all)") }
            XCTAssertEqual(close.nibble, 0, "a close")
            // Whatever the line did, the close comes a whole warning after the first flash.
            XCTAssertGreaterThanOrEqual(close.t - flash.t, 3 - 0.1,
                                        "a whole warning between the first flash written (\(flash.t - askedAt) s after the request) and the close: \(all)")
            // The scenario: the request came while the line was busy, and the first flash waited for it.
            if askedAt < busy.busy_until - 0.5 && flash.during_busy != true {
                XCTAssertGreaterThan(flash.t, askedAt + 0.5, "the first flash held up by the busy line: \(all)")
                XCTAssertEqual(daemon.stop(), .exited(0))
                return
            }
            notHeldUp.append(askedAt >= busy.busy_until - 0.5
                ? "the request came \(askedAt - busy.busy_from) s into the 1.5 s busy line"
                : "garaged flashed into a pause of the busy line (its noise paused up to \(longestPause(ofBusyLineFrom: busy.busy_from)) us)")
            assertDoor(daemon, becomes: "CLOSED", "attempt \(attempt): CLOSED", within: .seconds(10))
            XCTAssertEqual(try daemon.ask("12345O=1"), "OK")
            assertDoor(daemon, becomes: "OPEN", "attempt \(attempt): OPEN again")
        }
        XCTAssertEqual(daemon.stop(), .exited(0))
        throw XCTSkip("the busy line never held the warning up: \(notHeldUp.joined(separator: "; "))")
    }

    /// H3b: a press held up by a busy line past its request's deadline. garaged used to send it
    /// whenever the line was quiet (3-4 s late, the door moving long after the owner asked). Now
    /// it is never sent (the log says press-not-sent), the opener receives no DOOR_ACTION press
    /// even 2 s after the line went quiet, and a fresh request opens the door. A loaded machine
    /// can pause the busy line long enough for garaged to send the press in time (not the
    /// finding): then the scenario is tried again with a fresh opener and garaged, three times
    /// at most.
    func testAPressTheBusyLineHeldPastItsDeadlineIsNeverSent() throws {
        try initTable()
        var sentInTime: [String] = []
        for attempt in 1...3 {
            let seen = openerPackets().count
            let fake = try startOpener()
            let daemon = try startGaragedWithOpener()
            assertDoor(daemon, becomes: "CLOSED", "attempt \(attempt): the door CLOSED, as the opener says")
            let busy = try busyLine(4)
            let askedAt = monotonicSeconds()
            let answer = try daemon.ask("12345O=1")
            XCTAssertEqual(answer, "OK", "the press is taken; whether it can be sent is the line's")
            guard waitUntil("attempt \(attempt): the busy line to end", timeout: .seconds(10), { notes(BusyEnded.self).count >= attempt }) else {
                return XCTFail(daemon.log)
            }
            // garaged's deadline is the request's arrival + 2 s; the fake reads a packet within a
            // fraction of a second of its write, so a press it read 0.5 s past that was written late.
            let deadline = askedAt + 2
            let presses = { self.openerPackets().dropFirst(seen).filter { $0.name == "DOOR_ACTION" && $0.byte1 == 1 } }
            let late = eventually(within: .seconds(2)) { presses().contains { ($0.start ?? $0.t) > deadline + 0.5 } }
            guard !late else {
                XCTFail("attempt \(attempt): the press reached the opener after its request's deadline: \(presses())")
                XCTAssertEqual(daemon.stop(), .exited(0))
                return
            }
            // The scenario: the request came early in the busy line, and garaged found no pause
            // in its noise before the deadline.
            if askedAt + 2.5 < busy.busy_until && presses().isEmpty {
                XCTAssertTrue(waitUntil("press-not-sent in the log", timeout: .seconds(5)) { daemon.log.contains("press-not-sent") }, daemon.log)
                XCTAssertTrue(doorStatus(daemon).hasPrefix(#"{"door":"CLOSED""#), doorStatus(daemon))
                XCTAssertEqual(try daemon.ask("12345O=1"), "OK")
                assertDoor(daemon, becomes: "OPEN", "OPEN by the fresh request")
                let actions = openerPackets().dropFirst(seen).filter { $0.name == "DOOR_ACTION" }
                XCTAssertEqual(actions.map(\.byte1), [1, 0], "one press and its release, the fresh request's: \(actions)")
                XCTAssertEqual(daemon.stop(), .exited(0))
                return
            }
            sentInTime.append(askedAt + 2.5 >= busy.busy_until
                ? "the request came \(askedAt - busy.busy_from) s into the 4 s busy line"
                : "garaged found a pause in the busy line for the press (its noise paused up to \(longestPause(ofBusyLineFrom: busy.busy_from)) us)")
            XCTAssertEqual(daemon.stop(), .exited(0))
            fake.terminate()
            // Its link names a pty that is gone (and whose number the kernel may give anyone):
            // the next garaged must wait for the next fake's.
            try FileManager.default.removeItem(atPath: openerLink)
        }
        throw XCTSkip("the busy line never held the press past its deadline: \(sentInTime.joined(separator: "; "))")
    }

    /// H2: a forged packet with garaged's client id. Someone on the wire sends a GET_STATUS with
    /// garaged's id and the rolling code 2^28-2, which the opener accepts; it then ignores
    /// garaged's lower codes. garaged used to drop it as its own echo and go on with codes the
    /// opener ignores: OK answered, the door never moved. Now it says opener-identity-forged,
    /// takes a new client id (no room left below 2^28: opener-new-identity), and an open moves
    /// the door.
    func testAForgedCodeWithGaragedsIDIsSeenAndANewIDMovesTheDoor() throws {
        try initTable()
        try startOpener()
        let daemon = try startGaragedWithOpener()
        assertDoor(daemon, becomes: "CLOSED", "the door CLOSED, as the opener says")
        let original = openerPackets().first { $0.name == "GET_STATUS" }?.client
        try tell("forge \((1 << 28) - 2)")
        XCTAssertTrue(waitUntil("opener-identity-forged and opener-new-identity", timeout: .seconds(5)) {
            daemon.log.contains("opener-identity-forged") && daemon.log.contains("opener-new-identity")
        }, daemon.log)
        XCTAssertEqual(try daemon.ask("12345O=1"), "OK")
        XCTAssertTrue(waitUntil("the opener moves the door: open", timeout: .seconds(10)) { daemon.log.contains("opener-status door=1 state=open ") },
                      "\(daemon.log)\n\(openerPackets())")
        let press = openerPackets().first { $0.name == "DOOR_ACTION" && $0.byte1 == 1 }
        XCTAssertEqual(press?.accepted, true, "\(openerPackets())")
        XCTAssertNotEqual(press?.client, original, "sent with a new client id")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// H6: the serial device goes away (unplugged) and comes back. garaged used to answer OK and
    /// send nothing, and never open it again. Now the door reports the fault at once, refuses a
    /// press, reopens the device once it is back (opener-device-back), asks the opener, and an
    /// open moves the door.
    func testADeviceThatGoesAwayIsAFaultAndIsReopenedOnceBack() throws {
        try initTable()
        try startOpener()
        let daemon = try startGaragedWithOpener()
        assertDoor(daemon, becomes: "CLOSED", "the door CLOSED, as the opener says")
        try tell("unplug 6")
        XCTAssertTrue(waitUntil("the fault in the status", timeout: .seconds(5)) { doorStatus(daemon).contains(#""fault":"OPENER OFF""#) },
                      "\(doorStatus(daemon))\n\(daemon.log)")
        // The log is written from its own thread: waited for, not read once.
        XCTAssertTrue(waitUntil("the log line", timeout: .seconds(5)) { daemon.log.contains("opener-device-gone") }, daemon.log)
        let refused = try daemon.ask("12345O=1")
        XCTAssertTrue(refused.hasPrefix("ERR "), "a press while the device is gone: \(refused)")
        XCTAssertTrue(waitUntil("opener-device-back", timeout: .seconds(15)) { daemon.log.contains("opener-device-back") }, daemon.log)
        XCTAssertTrue(waitUntil("the opener answers: the door CLOSED, no fault", timeout: .seconds(10)) {
            let s = doorStatus(daemon)
            return s.hasPrefix(#"{"door":"CLOSED""#) && s.contains(#""fault":null"#)
        }, doorStatus(daemon))
        XCTAssertEqual(try daemon.ask("12345O=1"), "OK")
        assertDoor(daemon, becomes: "OPEN", "OPEN through the device reopened")
        XCTAssertEqual(openerPackets().filter { $0.name == "DOOR_ACTION" }.map(\.byte1), [1, 0], "only the last request's press and release")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// H7: a STATUS naming no state (door 0, unknown). garaged used to take it as the answer and
    /// stop asking, so the door stayed unknown and took no press until the opener happened to
    /// report a move. Now it keeps asking GET_STATUS (every 5 s: at least two more after the
    /// first unknown answer), refuses presses meanwhile, and once the opener names a state the
    /// door opens.
    func testAStatusNamingNoStateDoesNotStopTheAsks() throws {
        try initTable()
        let writes = dir + "/opener-writes.jsonl"
        try startOpener(state: "unknown", ["--writes", writes])
        let daemon = try startGaragedWithOpener()
        struct Written: Decodable { let t: Double; let name: String }
        var answered: Double?
        XCTAssertTrue(waitUntil("the fake's first STATUS (unknown)", timeout: .seconds(5)) {
            answered = notes(Written.self, in: writes).first { $0.name == "STATUS" }?.t
            return answered != nil
        })
        let asksAfter = { self.openerPackets().filter { $0.name == "GET_STATUS" && $0.t > (answered ?? .infinity) }.count }
        XCTAssertTrue(waitUntil("two more GET_STATUS after the unknown answer", timeout: .seconds(20)) { asksAfter() >= 2 },
                      "\(daemon.log)\n\(openerPackets())")
        let refused = try daemon.ask("12345O=1")
        XCTAssertTrue(refused.hasPrefix("ERR "), "a press while the door's state is unknown: \(refused)")
        XCTAssertFalse(openerPackets().contains { $0.name == "DOOR_ACTION" }, "\(openerPackets())")
        try tell("state closed")
        assertDoor(daemon, becomes: "CLOSED", "CLOSED, once the opener names it", within: .seconds(15))
        XCTAssertEqual(try daemon.ask("12345O=1"), "OK")
        assertDoor(daemon, becomes: "OPEN", "OPEN")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// W4: a STATUS flapping (anyone on the wire can send valid ones). garaged used to write one
    /// log line per change, 21 for 21 packets. Now each report is logged once per burst: the
    /// 21 packets alternating the light add at most 2 opener-status lines (here the light on;
    /// the light off was said at start).
    func testAFlappingStatusIsLoggedOncePerBurst() throws {
        try initTable()
        try startOpener()
        let daemon = try startGaragedWithOpener()
        XCTAssertTrue(waitUntil("the door CLOSED and the openings known", timeout: .seconds(5)) {
            doorStatus(daemon).hasPrefix(#"{"door":"CLOSED""#) && doorStatus(daemon).contains(#""openings":17"#)
        }, doorStatus(daemon))
        let before = statusLines(daemon).count
        try tell("flap 21")
        try tell("motion")  // on the wire after the 21 STATUS: once it is seen, all of them were
        XCTAssertTrue(waitUntil("the motion after the flapping", timeout: .seconds(5)) { doorStatus(daemon).contains(#""motion":true"#) },
                      doorStatus(daemon))
        XCTAssertTrue(doorStatus(daemon).contains(#""light":true"#), "the last of 21 flips: on: \(doorStatus(daemon))")
        let added = statusLines(daemon).dropFirst(before)
        XCTAssertGreaterThanOrEqual(added.count, 1, "the change is said: \(daemon.log)")
        XCTAssertLessThanOrEqual(added.count, 2, "once per burst, not once per packet: \(added.joined(separator: "\n"))")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// W6: a dead opener behind a chatty wall panel. garaged used to count any packet it could
    /// decode as the opener answering, so a panel asking GET_STATUS every 250 ms hid a silent
    /// opener for ever. Now only the opener's own id answers: opener-silent within 10 s while
    /// the panel chatters, presses refused, and once the opener answers again, the door opens.
    func testAChattyWallPanelDoesNotHideASilentOpener() throws {
        try initTable()
        let writes = dir + "/opener-writes.jsonl"
        try startOpener(["--writes", writes])
        try tell("silent")
        try tell("panel on")
        struct Written: Decodable { let t: Double; let panel: Bool? }
        let panelAsks = { self.notes(Written.self, in: writes).filter { $0.panel == true }.count }
        XCTAssertTrue(waitUntil("the panel chattering", timeout: .seconds(5)) { panelAsks() >= 2 })
        let daemon = try startGaragedWithOpener()
        XCTAssertTrue(waitUntil("OPENER SILENT, the panel chattering", timeout: .seconds(10)) {
            doorStatus(daemon).contains(#""fault":"OPENER SILENT""#)
        }, "\(doorStatus(daemon))\n\(daemon.log)")
        XCTAssertTrue(waitUntil("opener-silent in the log", timeout: .seconds(5)) { daemon.log.contains("opener-silent") }, daemon.log)
        let refused = try daemon.ask("12345O=1")
        XCTAssertTrue(refused.hasPrefix("ERR "), refused)
        // Every 250 ms since garaged's first ask, 5 s and more ago: 20 or so (generous, for a loaded machine).
        let firstAsk = openerPackets().first { $0.name == "GET_STATUS" }?.t ?? .infinity
        XCTAssertGreaterThanOrEqual(notes(Written.self, in: writes).filter { $0.panel == true && $0.t > firstAsk }.count, 8,
                                    "the panel chattered while garaged waited for the opener")
        XCTAssertFalse(openerPackets().contains { $0.name == "DOOR_ACTION" }, "\(openerPackets())")
        try tell("answer")
        XCTAssertTrue(waitUntil("the opener answers: the door CLOSED, no fault", timeout: .seconds(15)) {
            let s = doorStatus(daemon)
            return s.hasPrefix(#"{"door":"CLOSED""#) && s.contains(#""fault":null"#)
        }, doorStatus(daemon))
        XCTAssertEqual(try daemon.ask("12345O=1"), "OK")
        assertDoor(daemon, becomes: "OPEN", "OPEN")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }
}

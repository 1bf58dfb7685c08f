import Foundation
import XCTest

/// Opening the door: the press on the line (its width is the product's acceptance figure) and
/// the door's believed position over time, auto-close included.
final class OpenAndDoorTests: GaragedTestCase {
    /// `O=1` answers OK and makes exactly one 300 ms press after the start line.
    func testOpenMakesExactlyOne300msPress() throws {
        try initTable()
        let daemon = try startDaemon()
        XCTAssertEqual(try daemon.ask("12345O=1"), "OK")
        try waitForTrace(daemon, count: 3)
        XCTAssertEqual(daemon.stop(), .exited(0))

        // After a clean stop the whole trace is known: the start line, one press, nothing else.
        let trace = try daemon.trace()
        XCTAssertEqual(trace.map(\.level), [0, 1, 0], "trace: \(trace)")
        let list = presses(in: trace)
        XCTAssertEqual(list.count, 1)
        if let press = list.first { assertWidth(press, 300, "default pulse") }
    }

    /// `--pulse-ms 100` sets the press width.
    func testPulseMsFlagSetsThePressWidth() throws {
        try initTable()
        let daemon = try startDaemon(["--pulse-ms", "100"])
        XCTAssertEqual(try daemon.ask("12345O=1"), "OK")
        try waitForTrace(daemon, count: 3)
        XCTAssertEqual(daemon.stop(), .exited(0))
        let trace = try daemon.trace()
        XCTAssertEqual(trace.map(\.level), [0, 1, 0], "trace: \(trace)")
        if let press = presses(in: trace).first { assertWidth(press, 100, "--pulse-ms 100") }
    }

    /// The whole cycle with travel 1 s and auto-close 1 s: OPENING, BUSY against the movement,
    /// OPEN, the auto-close press travel+autoClose after the first, CLOSING, CLOSED.
    func testDoorCycleWithAutoClose() throws {
        try initTable()
        let daemon = try startDaemon(["--travel-s", "1", "--auto-close-s", "1"])
        let client = try daemon.connect()

        XCTAssertEqual(try client.ask("12345O=1"), "OK")
        // Right after the press: OPENING, with the seconds until auto-close (travel + auto-close).
        let opening = try client.ask("12345S")
        XCTAssertEqual(opening, "S OPENING 2")

        // Closing against the opening door is refused and presses nothing.
        let afterOpen = try waitForTrace(daemon, count: 3)
        XCTAssertEqual(afterOpen.map(\.level), [0, 1, 0])
        XCTAssertEqual(try client.ask("12345O=0"), "ERR BUSY")
        XCTAssertEqual(try daemon.trace(), afterOpen, "ERR BUSY must not touch the relay")
        XCTAssertTrue(try client.ask("12345S").hasPrefix("S OPENING"))

        // Travel ends: OPEN, with auto-close pending.
        let open = try waitForStatus(daemon, "S OPEN <n>") { $0.hasPrefix("S OPEN ") }
        XCTAssertEqual(open, "S OPEN 1")

        // Auto-close presses about travel + auto-close (2 s) after the first press.
        let trace = try waitForTrace(daemon, count: 5, timeout: .seconds(5))
        XCTAssertEqual(trace.prefix(5).map(\.level), [0, 1, 0, 1, 0])
        let list = presses(in: trace)
        if list.count >= 2 {
            let gap = Double(list[1].start - list[0].start) / 1e9
            print("auto-close gap s: \(String(format: "%.4f", gap))")
            // The door times from its decisions; the trace stamps when the line was set, which
            // lags the open's decision by its judgement (microseconds, but the loop may be
            // preempted in between on a loaded machine: 1.99915 s was seen once). 50 ms of
            // jitter is allowed: an early auto-close by a timer bug is a second or more.
            XCTAssertGreaterThanOrEqual(gap, 1.95, "auto-close pressed early")
            XCTAssertLessThan(gap, 3.0, "auto-close pressed late")
            reportWidths(list, "open and auto-close")
            for p in list { XCTAssertEqual(p.widthMs, 300, accuracy: 2) }
        }
        XCTAssertEqual(try client.ask("12345S"), "S CLOSING")
        try waitForStatus(daemon, "S CLOSED") { $0 == "S CLOSED" }

        // Closing a closed door: OK, nothing pressed.
        XCTAssertEqual(try client.ask("12345O=0"), "OK")
        XCTAssertEqual(try client.ask("12345S"), "S CLOSED")
        XCTAssertEqual(daemon.stop(), .exited(0))
        XCTAssertEqual(try daemon.trace().map(\.level), [0, 1, 0, 1, 0], "exactly the open and the auto-close press")
    }

    /// Requests in the direction the door already has press nothing; an explicit close of an
    /// open door presses once; opening against a closing door is BUSY. Auto-close off.
    func testRequestsInTheCurrentDirectionPressNothing() throws {
        try initTable()
        let daemon = try startDaemon(["--travel-s", "0", "--auto-close-s", "0"])
        let client = try daemon.connect()

        XCTAssertEqual(try client.ask("12345O=0"), "OK", "close while CLOSED")
        XCTAssertEqual(try client.ask("12345S"), "S CLOSED")
        XCTAssertEqual(try daemon.trace().count, 1, "close while CLOSED must not press")

        XCTAssertEqual(try client.ask("12345O=1"), "OK")
        XCTAssertEqual(try client.ask("12345O=1"), "OK", "open while OPENING")
        try waitForTrace(daemon, count: 3)
        // Travel 0: the door counts as moving for the pulse, then OPEN with no auto-close.
        try waitForStatus(daemon, "S OPEN") { $0 == "S OPEN" }
        XCTAssertEqual(try client.ask("12345O=1"), "OK", "open while OPEN")
        XCTAssertEqual(try daemon.trace().count, 3, "open while OPEN must not press")

        XCTAssertEqual(try client.ask("12345O=0"), "OK", "close while OPEN")
        XCTAssertEqual(try client.ask("12345O=1"), "ERR BUSY", "open while CLOSING")
        XCTAssertEqual(try client.ask("12345O=0"), "OK", "close while CLOSING")
        let trace = try waitForTrace(daemon, count: 5)
        try waitForStatus(daemon, "S CLOSED") { $0 == "S CLOSED" }
        XCTAssertEqual(daemon.stop(), .exited(0))
        XCTAssertEqual(try daemon.trace(), Array(trace.prefix(5)))
        XCTAssertEqual(trace.map(\.level), [0, 1, 0, 1, 0])
        reportWidths(presses(in: trace), "open then close, travel 0")
    }

    /// The press runs on its own thread: a flood of requests on the socket while the relay is
    /// energised does not stretch it.
    func testAFloodOfRequestsDuringAPressDoesNotStretchIt() throws {
        try initTable()
        let daemon = try startDaemon()
        let flooder = try daemon.connect()
        XCTAssertEqual(try daemon.ask("12345O=1"), "OK")
        // Status requests (each one judged, logged and answered) in batches until the release.
        let batch = Array(String(repeating: "12345S\n", count: 50).utf8)
        var sent = 0, answered = 0
        try waitUntil("the release, while flooding", timeout: .seconds(5)) {
            try flooder.send(batch)
            sent += 50
            let records = try flooder.availableRecords()
            // 42 s to auto-close at first (12 s travel + 30 s), 41 once a second has passed.
            XCTAssertEqual(records.filter { !$0.hasPrefix("S OPENING 4") }, [])
            answered += records.count
            return try daemon.trace().count >= 3
        }
        while answered < sent {
            let record = try flooder.readRecord()
            XCTAssertTrue(record.hasPrefix("S OPENING 4"), record)
            answered += 1
        }
        print("requests during the press: \(sent)")
        let trace = try daemon.trace()
        XCTAssertEqual(trace.map(\.level), [0, 1, 0])
        if let press = presses(in: trace).first { assertWidth(press, 300, "during a flood of \(sent) requests") }
    }

    /// A client that sends its request and half-closes (printf … | socat) still gets its answer.
    func testHalfClosedClientStillGetsItsAnswer() throws {
        try initTable()
        let daemon = try startDaemon()
        let client = try daemon.connect()
        try client.send(Array("12345S\n12345O=1\n".utf8))
        client.shutdownWrite()
        XCTAssertEqual(try client.readRecord(), "S CLOSED")
        XCTAssertEqual(try client.readRecord(), "OK")
        try waitForTrace(daemon, count: 3)
    }
}

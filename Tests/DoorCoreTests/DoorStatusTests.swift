import XCTest
@testable import DoorCore

/// The one status value every audience is told: it changes when something happens, not as a
/// countdown runs, and it says who opened the door.
final class DoorStatusTests: XCTestCase {
    private let timing = DoorTiming(pulse: .milliseconds(300), travel: .seconds(10), autoClose: .seconds(30), warning: .seconds(5))

    private func controller(_ door: Door) throws -> Controller {
        var table = try PinTable(master: pin("12345"), capacity: 4)
        _ = try table.add(pin("24680"))
        return Controller(table: table, door: door, store: MemoryStore(), labels: Labels([1: "Alice"]))
    }

    func testItChangesWithTheDoorNotWithTheClock() throws {
        var c = try controller(Door(timing: timing))
        let first = c.status(at: t(0))
        XCTAssertEqual(c.status(at: t(5_000)), first, "a door at rest: the same value five seconds on")
        _ = c.judgeAndAccount(Array("24680O=1".utf8), from: RequestSource("bluetooth x", channel: .remote), at: t(6_000))
        let opening = c.status(at: t(6_000))
        XCTAssertNotEqual(opening, first)
        XCTAssertEqual(opening.position, .opening)
        XCTAssertEqual(c.status(at: t(7_000)), opening, "the auto-close countdown runs inside the value, as an instant")
        XCTAssertEqual(opening.closesIn(at: t(7_000)), 44, "9 s of travel left, 30 s open, 5 s of warning")
        XCTAssertEqual(opening.push(at: t(7_000)).text, "S OPENING 44")
        XCTAssertEqual(opening.lastOpener, "Alice")
    }

    func testTheOpenerOfAWarnedOpenIsKnownWhenItPresses() throws {
        var c = try controller(Door(timing: timing, sensing: DoorSensing(closedSwitch: true), at: t(0)))
        XCTAssertEqual(c.door.position, .stopped)
        let asked = c.judgeAndAccount(Array("24680O=1".utf8), from: RequestSource("local uid=1000", channel: .local, isLocal: true), at: t(0))
        XCTAssertEqual(asked.presses, [])
        XCTAssertNil(c.status(at: t(0)).lastOpener, "nobody opened anything yet: it waits for the warning")
        c.warningShown(at: t(0))
        XCTAssertEqual(c.tick(at: t(5_000)).presses.map(\.reason), [.open])
        XCTAssertEqual(c.status(at: t(5_000)).lastOpener, "Alice")
        _ = c.pressEnded(at: t(5_300))
        _ = c.command(.stop, from: RequestSource("mqtt", channel: nil), at: t(6_000))
        XCTAssertEqual(c.status(at: t(6_000)).lastOpener, "Alice", "a STOP opens nothing")
    }

    func testHomeAssistantsRetainedValuesComeFromTheStatus() throws {
        var c = try controller(Door(timing: timing))
        let ha = HomeAssistant(prefix: "garaged", discoveryPrefix: "homeassistant", node: "d", name: "G",
                               commandsEnabled: true, version: "0")
        XCTAssertEqual(ha.retained(c.snapshot(at: t(0)), at: t(0)).map(\.value), ["none", "closed", "nobody yet", "none"])
        for i in 0..<6 { _ = c.judgeAndAccount(Array("wrongO=1".utf8), from: RequestSource("bluetooth x", channel: .remote), at: t(i)) }
        _ = c.command(.open, from: RequestSource("mqtt", channel: nil), at: t(100))
        let values = ha.retained(c.snapshot(at: t(100)), at: t(100))
        XCTAssertEqual(values.map(\.topic), ["garaged/d/lockout", "garaged/d/state", "garaged/d/last_opened_by", "garaged/d/fault"])
        XCTAssertEqual(values.map(\.value), ["remote locked 1 s", "opening", "mqtt", "none"])
    }
}

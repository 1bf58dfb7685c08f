import XCTest
@testable import DoorCore

/// Phones are pushed from the status snapshot alone: the doors' states and their notices (a
/// warning, one called off, a fault, "left open"), which the snapshot carries numbered.
final class PhoneNoticesTests: XCTestCase {
    private let warned = DoorTiming(pulse: .milliseconds(300), travel: .seconds(1), autoClose: nil, warning: .seconds(5))
    private let owner = RequestSource("local uid=1000", channel: .local, isLocal: true)

    /// A gate not seen closed: a close waits for its warning, which phones are told from the
    /// snapshot as `@2:W 5`; calling it off is `@2:W OFF`; neither is told twice.
    func testAWarningAndItsCallingOffArePushedOnceFromTheSnapshot() throws {
        let doors = [DoorUnit(door: Door(timing: warned, index: 0), id: "left"),
                     DoorUnit(door: Door(timing: warned, sensing: DoorSensing(closedSwitch: true), closed: false, index: 1), id: "gate")]
        var c = Controller(table: try PinTable(master: pin("12345"), capacity: 4), doors: doors, store: MemoryStore())
        let before = c.snapshot(at: t(0))
        XCTAssertEqual(c.judgeAndAccount(Array("12345@gate:O=0".utf8), from: owner, at: t(0)).replies, [.ok])
        let warning = c.snapshot(at: t(0))
        XCTAssertEqual(warning.phonePushes(since: before, at: t(0)).map(\.text), ["@2:W 5"])
        XCTAssertEqual(warning.phonePushes(since: warning, at: t(0)), [], "an unchanged snapshot pushes nothing")
        XCTAssertEqual(warning.phonePushes(since: nil, at: t(0)), [], "no phone saw the first snapshot")
        _ = c.command(.stop, for: 1, from: owner, at: t(1_000))
        let calledOff = c.snapshot(at: t(1_000))
        XCTAssertEqual(calledOff.phonePushes(since: warning, at: t(1_000)).map(\.text), ["@2:W OFF"])
        XCTAssertEqual(calledOff.phonePushes(since: before, at: t(1_000)).map(\.text), ["@2:W 5", "@2:W OFF"],
                       "a phone a snapshot behind is told both, in order")
    }

    func testTheLatestAreKeptAndCountedBeyondThem() {
        var n = PhoneNotices()
        XCTAssertEqual(n.since(nil), [])
        let start = n
        n.append([.fault(.didNotMove)])
        XCTAssertEqual(n.since(start), [.fault(.didNotMove)])
        let one = n
        n.append([])
        XCTAssertEqual(n, one, "nothing noticed changes nothing")
        n.append((1...PhoneNotices.kept + 3).map { .leftOpen(minutes: $0) })
        XCTAssertEqual(n.count, PhoneNotices.kept + 4)
        XCTAssertEqual(n.latest.count, PhoneNotices.kept)
        XCTAssertEqual(n.since(one).first, .leftOpen(minutes: 4), "more than are kept since: the latest of them")
        XCTAssertEqual(n.since(one).last, .leftOpen(minutes: PhoneNotices.kept + 3))
    }
}

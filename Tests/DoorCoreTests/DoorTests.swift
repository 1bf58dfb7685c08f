import XCTest
@testable import DoorCore

/// The door without sensors: what the daemon believes from its own presses (the book's design).
final class BelievedDoorTests: XCTestCase {
    private let timing = DoorTiming(pulse: .milliseconds(300), travel: .seconds(12), autoClose: .seconds(30))

    func testStartsClosedAndNeverPressesOnItsOwnFromClosed() {
        var door = Door(timing: timing)
        XCTAssertEqual(door.position, .closed)
        XCTAssertNil(door.nextDeadline)
        XCTAssertEqual(seen(door.advance(to: t(3_600_000))), [])
    }

    func testOpenTravelAutoClose() {
        var door = Door(timing: timing)
        let open = door.request(open: true, at: t(0))
        XCTAssertEqual(open.reply, .ok)
        XCTAssertEqual(seen(open.events), [.press(.open), .moved(.opening, bySomeoneElse: false)])
        XCTAssertEqual(door.closesIn(at: t(0)), 42)
        XCTAssertEqual(seen(door.pressEnded(at: t(300))), [])
        XCTAssertEqual(seen(door.advance(to: t(11_999))), [])
        XCTAssertEqual(door.nextDeadline, t(12_000))
        XCTAssertEqual(seen(door.advance(to: t(12_000))), [.moved(.open, bySomeoneElse: false)])
        XCTAssertEqual(door.closesIn(at: t(12_000)), 30)
        XCTAssertEqual(door.nextDeadline, t(42_000))
        XCTAssertEqual(seen(door.advance(to: t(41_999))), [])
        XCTAssertEqual(seen(door.advance(to: t(42_000))), [.press(.autoClose), .moved(.closing, bySomeoneElse: false)])
        XCTAssertEqual(seen(door.pressEnded(at: t(42_300))), [])
        XCTAssertEqual(seen(door.advance(to: t(54_000))), [.moved(.closed, bySomeoneElse: false)])
        XCTAssertNil(door.nextDeadline)
    }

    func testALateTickStillArrivesThenAutoClosesInOrder() {
        var door = Door(timing: timing)
        _ = door.request(open: true, at: t(0))
        _ = door.pressEnded(at: t(300))
        XCTAssertEqual(seen(door.advance(to: t(50_000))), [.moved(.open, bySomeoneElse: false), .press(.autoClose), .moved(.closing, bySomeoneElse: false)])
    }

    func testOpenWhileOpenRestartsTheAutoCloseTimerWithoutPressing() {
        var door = Door(timing: timing)
        _ = door.request(open: true, at: t(0))
        _ = door.pressEnded(at: t(300))
        _ = door.advance(to: t(12_000))
        XCTAssertEqual(door.request(open: true, at: t(40_000)), .init(reply: .ok, events: [], refusal: .alreadyThere(.open)))
        XCTAssertEqual(seen(door.advance(to: t(42_000))), [], "the old deadline no longer fires")
        XCTAssertEqual(door.closesIn(at: t(42_000)), 28)
        XCTAssertEqual(seen(door.advance(to: t(70_000))).first, .press(.autoClose))
    }

    func testBusyAndSameDirectionAnswers() {
        var door = Door(timing: timing)
        XCTAssertEqual(door.request(open: false, at: t(0)), .init(reply: .ok, events: [], refusal: .alreadyThere(.closed)), "close when closed: nothing")
        _ = door.request(open: true, at: t(0))
        _ = door.pressEnded(at: t(300))
        XCTAssertEqual(door.request(open: true, at: t(1_000)).press, nil)
        XCTAssertEqual(door.request(open: false, at: t(1_000)).reply, .error(.busy))
        _ = door.advance(to: t(12_000))
        XCTAssertEqual(door.request(open: false, at: t(13_000)).press, .close)
        _ = door.pressEnded(at: t(13_300))
        XCTAssertEqual(door.request(open: true, at: t(14_000)).reply, .error(.busy))
        XCTAssertEqual(door.request(open: false, at: t(14_000)), .init(reply: .ok, events: [], refusal: .alreadyGoing(.closed)))
        XCTAssertNil(door.closesIn(at: t(14_000)))
    }

    func testTwoPressesAreNeverCloserThanTheTravelTimeNorOverlap() {
        var door = Door(timing: DoorTiming(pulse: .milliseconds(300), travel: .zero, autoClose: nil))
        XCTAssertEqual(door.request(open: true, at: t(0)).press, .open)
        XCTAssertEqual(door.request(open: false, at: t(100)).reply, .error(.busy),
                       "with travel 0 the door still counts as moving for the length of the press")
        _ = door.pressEnded(at: t(300))
        XCTAssertEqual(door.request(open: false, at: t(300)).press, .close)

        var slow = Door(timing: timing)
        var presses: [Int] = []
        for ms in stride(from: 0, through: 120_000, by: 100) {
            if slow.request(open: ms % 200 == 0, at: t(ms)).press != nil { presses.append(ms) }
            if pressed(slow.advance(to: t(ms))).contains(.autoClose) { presses.append(ms) }
            if let last = presses.last, ms >= last + 300 { _ = slow.pressEnded(at: t(ms)) }
        }
        for (a, b) in zip(presses, presses.dropFirst()) { XCTAssertGreaterThanOrEqual(b - a, 12_000) }
    }

    /// With travel no longer than the press, the model says OPEN once the press's time is up,
    /// but the relay thread may still be pressing (it started a little later). A close asked
    /// in that gap used to be answered OK and then refused by the relay: the door open, the
    /// daemon believing it closed. Now nothing is pressed until the relay reports the release.
    func testNoPressIsDecidedUntilTheRelayReleasedTheLastOne() {
        var door = Door(timing: DoorTiming(pulse: .milliseconds(300), travel: .zero, autoClose: .seconds(5)))
        XCTAssertEqual(door.request(open: true, at: t(0)).press, .open)
        XCTAssertEqual(seen(door.advance(to: t(301))), [.moved(.open, bySomeoneElse: false)], "the model's time is up")
        XCTAssertEqual(door.request(open: false, at: t(302)).reply, .error(.busy),
                       "but the relay has not said it released: BUSY, never an OK for a press that cannot happen")
        XCTAssertEqual(door.position, .open)
        XCTAssertEqual(seen(door.advance(to: t(10_000))), [], "auto-close waits for the release too")
        XCTAssertNil(door.nextDeadline, "the release wakes the caller, not a timer")
        XCTAssertEqual(seen(door.pressEnded(at: t(10_001))).first, .press(.autoClose), "an auto-close that fell due meanwhile goes now")
        XCTAssertEqual(door.request(open: true, at: t(10_002)).reply, .error(.busy))
    }

    func testAutoCloseOff() {
        var door = Door(timing: DoorTiming(pulse: .milliseconds(300), travel: .seconds(1), autoClose: nil))
        _ = door.request(open: true, at: t(0))
        _ = door.pressEnded(at: t(300))
        XCTAssertEqual(seen(door.advance(to: t(1_000))), [.moved(.open, bySomeoneElse: false)])
        XCTAssertNil(door.nextDeadline)
        XCTAssertEqual(seen(door.advance(to: t(10_000_000))), [])
        XCTAssertNil(door.closesIn(at: t(5_000)))
    }
}

import XCTest
@testable import DoorCore

/// A door whose Security+ 2.0 opener reports it: the reports are its position and its photo-eye,
/// the gate decides as with switches, and a silent opener takes no press.
final class OpenerReportTests: XCTestCase {
    private let timing = DoorTiming(pulse: .milliseconds(300), travel: .seconds(10), autoClose: nil, warning: nil)

    private func door() -> Door {
        var d = Door(timing: timing, sensing: .reported(by: "the Security+ 2.0 opener on /dev/ttyS0"), debounce: .milliseconds(50), at: t(0))
        _ = d.openerReported(.closed, obstructed: false, at: t(0))
        return d
    }

    func testNoPressBeforeTheOpenerAnsweredNorWhileItIsSilent() {
        var d = Door(timing: timing, sensing: .reported(by: "the Security+ 2.0 opener on /dev/ttyS0"), at: t(0))
        XCTAssertEqual(d.position, .stopped, "not known until it answers")
        XCTAssertEqual(d.request(open: true, at: t(0)).refusal, .openerSilent("the Security+ 2.0 opener on /dev/ttyS0"))
        _ = d.openerReported(.closed, obstructed: false, at: t(100))
        XCTAssertEqual(d.position, .closed)
        XCTAssertNil(d.refusal(.open, automatic: false, age: nil), "answered: the gate decides as with switches")
        XCTAssertEqual(d.openerAnswered(false), [.fault(.openerSilent)])
        XCTAssertEqual(d.openerAnswered(false), [], "said once")
        XCTAssertEqual(d.fault, .openerSilent)
        XCTAssertEqual(d.refusal(.open, automatic: false, age: nil)?.reply, .error(.fault))
        _ = d.openerReported(.closed, obstructed: false, at: t(700))
        XCTAssertNil(d.fault, "back by itself")
    }

    func testItsReportsMoveTheDoorAndItsPhotoEyesRefuseAClose() {
        var d = door()
        let moved = d.openerReported(.opening, obstructed: false, at: t(1_000))
        XCTAssertTrue(moved.contains(.moved(.opening, bySomeoneElse: true, who: "a remote or keypad")), "nothing on the wire: a remote: \(moved)")
        var d2 = door()
        d2.openerSawWallButton(at: t(900))
        XCTAssertTrue(d2.openerReported(.opening, obstructed: false, at: t(1_000)).contains(.moved(.opening, bySomeoneElse: true, who: "the wall button")))
        _ = d.openerReported(.open, obstructed: false, at: t(5_000))
        XCTAssertEqual(d.position, .open)
        _ = d.openerReported(.open, obstructed: true, at: t(6_000))
        XCTAssertEqual(d.request(open: false, at: t(6_000)).refusal, .obstructed, "the opener's own photo-eyes are the gate's")
        _ = d.openerReported(.open, obstructed: false, at: t(7_000))
        XCTAssertNotNil(d.request(open: false, at: t(7_000)).events.presses.first)
    }

    func testStraightFromOneEndToTheOtherIsNeverBothEnds() {
        var d = door()
        let events = d.openerReported(.open, obstructed: false, at: t(1_000))
        XCTAssertEqual(d.position, .open)
        XCTAssertNil(d.fault, "\(events)")
        _ = d.openerReported(.closed, obstructed: false, at: t(2_000))
        XCTAssertEqual(d.position, .closed)
        XCTAssertNil(d.fault)
    }

    func testStoppedMidWayByItsOwnReportAndAPressOfOursThatDidNotArriveIsAFault() {
        var d = door()
        XCTAssertNotNil(d.request(open: true, at: t(0)).events.presses.first)
        _ = d.pressEnded(at: t(300))
        _ = d.openerReported(.opening, obstructed: false, at: t(500))
        XCTAssertEqual(d.position, .opening)
        let stopped = d.openerReported(.stopped, obstructed: false, at: t(3_000))
        XCTAssertEqual(d.position, .stopped)
        XCTAssertTrue(stopped.contains(.fault(.didNotOpen)), "\(stopped)")
    }

    func testTheLockOfItsRemotesIsACommandItsStatusConfirms() {
        var d = door()
        XCTAssertEqual(d.remotesLocked, nil, "not said yet")
        d.openerReported(light: false, remotesLocked: false)
        XCTAssertEqual(d.lockRemotes(true, at: t(1_000)).events, [.remotesLock(true)])
        XCTAssertEqual(d.remotesLocked, false, "until the opener says so")
        d.openerReported(light: false, remotesLocked: true)
        XCTAssertEqual(d.lockRemotes(true, at: t(2_000)), Door.Decision(reply: .ok, events: []), "locked already")
        var relayDoor = Door(timing: timing, at: t(0))
        XCTAssertEqual(relayDoor.lockRemotes(true, at: t(0)).reply, .error(.command), "a relay door has no remotes to lock")
        _ = d.openerAnswered(false)
        XCTAssertEqual(d.lockRemotes(false, at: t(3_000)).reply, .error(.fault), "a silent opener cannot be asked")
    }

    func testMotionLastsItsTimeAndTheStatusSaysAllOfIt() {
        var d = door()
        d.openerCounted(openings: 41)
        d.openerSawMotion(at: t(1_000))
        XCTAssertEqual(d.nextDeadline, t(61_000), "the loop wakes when motion ends")
        XCTAssertEqual(d.openerStatus(at: t(60_999))?.motion, true)
        _ = d.advance(to: t(61_000))
        XCTAssertEqual(d.openerStatus(at: t(61_000)), OpenerStatus(protocolName: "secplus2", device: "", state: "connected", remotesLocked: nil,
                                                                    motion: false, openings: 41))
        var c = Controller(table: try! PinTable(master: PIN("12345")!, capacity: 4),
                           door: Door(timing: timing, sensing: .reported(by: "x", device: "/dev/ttyS0"), at: t(0)),
                           store: MemoryStore())
        XCTAssertEqual(c.snapshot(at: t(0)).record(door: 0, at: t(0))["opener"]?.serialized,
                       #"{"protocol":"secplus2","device":"/dev/ttyS0","state":"connecting","remotes_locked":null,"motion":false,"openings":null}"#)
        _ = c.openerAnswered(false, at: t(5_000))
        XCTAssertEqual(c.snapshot(at: t(5_000)).record(door: 0, at: t(5_000))["opener"]?["state"], .string("silent"))
    }

    /// Found by the property test (property/, the opener garage): a door the opener first
    /// reported OPEN when garaged started was closed by auto-close, unasked, where a door a
    /// switch finds open at start never is; and its first report read as a move by someone else.
    func testADoorFoundOpenAtStartIsNeverClosedUnasked() {
        let timing = DoorTiming(pulse: .milliseconds(300), travel: .seconds(10), autoClose: .seconds(5), warning: nil)
        var d = Door(timing: timing, sensing: .reported(by: "the Security+ 2.0 opener on /dev/ttyS0"), at: t(0))
        let found = d.openerReported(.open, obstructed: false, at: t(100))
        XCTAssertEqual(d.position, .open)
        XCTAssertFalse(found.contains { if case .moved = $0 { return true } else { return false } }, "where it was, not a move: \(found)")
        XCTAssertTrue(d.advance(to: t(60_000)).presses.isEmpty, "found open: reported, never closed unasked")
        XCTAssertNil(d.closesAt(at: t(60_000)))
        // Once it has moved (the remote), it is the opener's open like any other: auto-close runs.
        _ = d.openerReported(.closing, obstructed: false, at: t(61_000))
        _ = d.openerReported(.opening, obstructed: false, at: t(62_000))
        _ = d.openerReported(.open, obstructed: false, at: t(63_000))
        XCTAssertEqual(d.advance(to: t(70_000)).presses.map(\.reason), [.autoClose])
    }

    /// Found by the property test (an opener's reports reordered with requests): the drive's
    /// "it answers" reached the door before the STATUS it came with, and a request between them
    /// was pressed with the door's place unknown (at start) or as it was before the silence.
    func testAnsweringAloneIsNotKnowingWhereTheDoorIs() {
        var d = Door(timing: timing, sensing: .reported(by: "the Security+ 2.0 opener on /dev/ttyS0"), at: t(0))
        XCTAssertEqual(d.openerAnswered(true), [])
        XCTAssertEqual(d.request(open: true, at: t(10)).refusal, .openerSilent("the Security+ 2.0 opener on /dev/ttyS0"), "at start")
        _ = d.openerReported(.closed, obstructed: false, at: t(20))
        XCTAssertNil(d.refusal(.open, automatic: false, age: nil))
        _ = d.openerAnswered(false)
        _ = d.openerAnswered(true)
        XCTAssertEqual(d.refusal(.open, automatic: false, age: nil), .openerSilent("the Security+ 2.0 opener on /dev/ttyS0"), "back, but where is the door now?")
        _ = d.openerReported(.unknown, obstructed: false, at: t(30))
        XCTAssertNotNil(d.refusal(.open, automatic: false, age: nil), "a state it does not name says nothing")
        _ = d.openerReported(.open, obstructed: false, at: t(40))
        XCTAssertEqual(d.refusal(.open, automatic: false, age: nil), .alreadyThere(.open))
        XCTAssertNil(d.refusal(.close, automatic: false, age: nil))
    }

    /// A close that failed before a restart is resolved when the opener first says CLOSED, as a
    /// door a switch finds closed at start is.
    func testAKeptFailedCloseEndsWhenTheOpenerFirstSaysClosed() {
        var d = Door(timing: timing, sensing: .reported(by: "the Security+ 2.0 opener on /dev/ttyS0"), closeFailed: true, at: t(0))
        _ = d.openerReported(.closed, obstructed: false, at: t(100))
        XCTAssertEqual(d.position, .closed)
        XCTAssertFalse(d.closeFailed)
        XCTAssertNil(d.fault)
    }

    /// The permit says whether the whole warning ran before it: a drive that moves the door by
    /// toggles (Security+ 1.0) may send it down only for one that was. With the opener's light as
    /// the warning, every press from anywhere but CLOSED is warned, an open from STOPPED too.
    func testAPermitSaysWhetherTheWholeWarningRanBeforeIt() {
        let warned = DoorTiming(pulse: .milliseconds(300), travel: .seconds(10), autoClose: nil, warning: .seconds(5))
        var d = Door(timing: warned, sensing: .reported(by: "the Security+ 1.0 opener on /dev/ttyAMA0"), at: t(0))
        _ = d.openerReported(.closed, obstructed: false, at: t(0))
        let open = d.request(open: true, at: t(1_000))
        XCTAssertEqual(open.events.presses.map(\.warned), [false], "from CLOSED: pressed at once, unwarned")
        _ = d.pressEnded(at: t(1_300))
        _ = d.openerReported(.opening, obstructed: false, at: t(2_000))
        _ = d.openerReported(.stopped, obstructed: false, at: t(3_000))
        let fromStopped = d.request(open: true, at: t(4_000))
        XCTAssertEqual(fromStopped.events.presses, [], "from STOPPED the first toggle goes down: warned first")
        XCTAssertTrue(fromStopped.events.contains(.pressWarned(.open)), "\(fromStopped.events)")
        d.warningShown(at: t(4_100))
        XCTAssertEqual(d.advance(to: t(9_099)).presses, [], "not before the whole warning")
        XCTAssertEqual(d.advance(to: t(9_100)).presses.map(\.warned), [true])
        var noWarning = door()
        XCTAssertEqual(noWarning.request(open: true, at: t(1_000)).events.presses.map(\.warned), [false], "no warning wired: none ran")
    }

    /// A one-button opener's door may need toggles seconds apart before it goes the way asked
    /// (an open from STOPPED goes down first): the travel counts from the opener's first word
    /// that it moves that way, once, so a slow sequence is no "did not open".
    func testTheTravelCountsFromTheOpenersFirstWordThatItMovesThatWay() {
        var d = door()
        _ = d.openerReported(.opening, obstructed: false, at: t(0))
        _ = d.openerReported(.stopped, obstructed: false, at: t(1_000))
        XCTAssertEqual(d.request(open: true, at: t(2_000)).events.presses.count, 1)
        XCTAssertEqual(d.position, .opening, "from STOPPED nothing says it left: taken to move at once")
        _ = d.openerReported(.opening, obstructed: false, at: t(6_000))
        _ = d.pressEnded(at: t(6_000))
        XCTAssertEqual(d.advance(to: t(12_500)).filter { if case .fault = $0 { return true } else { return false } }, [],
                       "10 s from the press have passed, not from the opener's word")
        _ = d.openerReported(.opening, obstructed: false, at: t(13_000))
        let arrived = d.openerReported(.open, obstructed: false, at: t(15_500))
        XCTAssertTrue(arrived.contains(.moved(.open, bySomeoneElse: false)), "\(arrived)")
        XCTAssertNil(d.fault)
        // Once only: an opener that keeps saying "opening" does not put the fault off for ever.
        XCTAssertEqual(d.request(open: false, at: t(16_000)).events.presses.count, 1)
        _ = d.pressEnded(at: t(16_300))
        _ = d.openerReported(.closing, obstructed: false, at: t(17_000))
        _ = d.openerReported(.closing, obstructed: false, at: t(26_000))
        XCTAssertTrue(d.advance(to: t(27_001)).contains(.fault(.didNotClose)))
    }
}

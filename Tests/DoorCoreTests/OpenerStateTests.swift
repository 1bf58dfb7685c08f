import XCTest
@testable import DoorCore

/// The status record's `opener.state` and the gate's rule 6b read the same thing: the record
/// never says `connected` while the gate refuses a press for the opener.
final class OpenerStateTests: XCTestCase {
    private let timing = DoorTiming(pulse: .milliseconds(300), travel: .seconds(10), autoClose: nil, warning: nil)
    private let opener = "the Security+ 2.0 opener on /dev/ttyS0"

    private func state(_ d: Door, at now: Instant) -> String? { d.openerStatus(at: now)?.state }

    func testAnAnswerWithoutAStatusIsNotConnectedAndTakesNoPress() {
        var d = Door(timing: timing, sensing: .reported(by: opener), at: t(0))
        _ = d.openerAnswered(true)
        XCTAssertEqual(state(d, at: t(100)), "connecting", "it answered a query but has not said where the door is")
        XCTAssertEqual(d.refusal(.open, automatic: false, age: nil), .openerSilent(opener))
        _ = d.openerReported(.unknown, obstructed: false, at: t(200))
        XCTAssertEqual(state(d, at: t(200)), "connecting", "a STATUS without a position says nothing of the door")
        XCTAssertEqual(d.refusal(.open, automatic: false, age: nil), .openerSilent(opener))
        _ = d.openerReported(.closed, obstructed: false, at: t(300))
        XCTAssertEqual(state(d, at: t(300)), "connected")
        XCTAssertNil(d.refusal(.open, automatic: false, age: nil), "connected: the gate decides as with switches")
    }

    func testBackFromSilenceItIsConnectedOnlyOnceItSaysWhereTheDoorIs() {
        var d = Door(timing: timing, sensing: .reported(by: opener), at: t(0))
        _ = d.openerReported(.closed, obstructed: false, at: t(0))
        XCTAssertEqual(state(d, at: t(0)), "connected")
        _ = d.openerAnswered(false)
        XCTAssertEqual(state(d, at: t(1_000)), "silent")
        XCTAssertEqual(d.refusal(.open, automatic: false, age: nil), .openerSilent(opener))
        _ = d.openerAnswered(true)
        XCTAssertNil(d.fault, "it answers again")
        XCTAssertEqual(state(d, at: t(2_000)), "connecting", "the door may have moved while it was silent")
        XCTAssertEqual(d.refusal(.open, automatic: false, age: nil), .openerSilent(opener))
        _ = d.openerReported(.open, obstructed: false, at: t(3_000))
        XCTAssertEqual(state(d, at: t(3_000)), "connected")
        XCTAssertNil(d.refusal(.close, automatic: false, age: nil))
    }
}

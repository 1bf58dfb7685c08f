import XCTest
@testable import DoorCore

/// Issue 39, items 1 and 10: every refusal, and every request that did nothing, says why in its
/// own words (the log, and the local socket's `{"reason":...}` record before the final record);
/// the codes and the book's bytes stay as they were.
final class RefusalWordsTests: XCTestCase {
    private let opener = "the Security+ 2.0 opener on /dev/ttyS0"
    private let owner = RequestSource("local uid=0", channel: nil, isLocal: true)
    private let phone = RequestSource("bluetooth 00:AA:01:01:00:01", channel: .remote)

    private func controller(_ door: Door) throws -> Controller {
        Controller(table: try PinTable(master: pin("12345"), capacity: 8), door: door, store: MemoryStore())
    }

    /// A door on a relay, believed, with a light wired.
    private func relayDoor() -> Door {
        Door(timing: DoorTiming(pulse: .milliseconds(300), travel: .seconds(10), autoClose: nil, light: .seconds(180)))
    }

    /// A door whose opener has not answered (`answered` false) or has said the door is CLOSED.
    private func openerDoor(answered: Bool) -> Door {
        var d = Door(timing: DoorTiming(pulse: .milliseconds(300), travel: .seconds(10), autoClose: nil),
                     sensing: .reported(by: opener), at: t(0))
        if answered {
            _ = d.openerReported(.closed, obstructed: false, at: t(0))
            d.openerReported(light: false, remotesLocked: false)
        }
        return d
    }

    // MARK: item 1: a silent opener

    func testASilentOpenersRefusalNamesTheOpenerAndWhatToCheckNotTheSwitches() throws {
        var c = try controller(openerDoor(answered: false))
        let open = c.judgeAndAccount(Array("12345O=1".utf8), from: owner, at: t(10))
        XCTAssertEqual(open.replies, [.error(.fault)], "the code stays, for scripts")
        let why = try XCTUnwrap(open.refusal)
        XCTAssertTrue(why.hasPrefix("\(opener) does not answer"), why)
        for check in ["wiring", "level circuit", "power"] { XCTAssertTrue(why.contains(check), "\(check): \(why)") }
        XCTAssertFalse(why.contains("switches"), "an opener's door has no switches: \(why)")
        XCTAssertEqual(open.wordedReplies, [.record(.object([("reason", .string(why))])), .error(.fault)],
                       "the local socket: the reason, then the code")
    }

    func testLightOnAtASilentOpenerIsRefusedWithItsReasonAndLeavesTheLightAsItWas() throws {
        var c = try controller(openerDoor(answered: false))
        let on = c.judgeAndAccount(Array("12345L=1".utf8), from: owner, at: t(10))
        XCTAssertEqual(on.replies, [.error(.fault)], "nothing answered: not a success")
        XCTAssertFalse(on.door.contains(.light(on: true)), "nothing is sent to an opener that does not answer: \(on.door)")
        XCTAssertFalse(c.door.lightOn, "the status does not claim a light nobody switched")
        let why = try XCTUnwrap(on.refusal)
        XCTAssertTrue(why.hasPrefix("\(opener) does not answer"), why)
        XCTAssertTrue(why.contains("light"), why)

        // Once it answers, the light is switched as before.
        _ = c.openerReported(.closed, obstructed: false, at: t(20))
        let lit = c.judgeAndAccount(Array("12345L=1".utf8), from: owner, at: t(30))
        XCTAssertEqual(lit.replies, [.ok])
        XCTAssertTrue(lit.door.contains(.light(on: true)), "\(lit.door)")
        XCTAssertNil(lit.refusal)
    }

    // MARK: item 10: requests that did nothing

    func testACloseOfAClosedDoorSaysSoAndTheBookStillGetsPlainOK() throws {
        var c = try controller(relayDoor())
        let local = c.judgeAndAccount(Array("12345O=0".utf8), from: owner, at: t(10))
        XCTAssertEqual(local.replies, [.ok])
        XCTAssertTrue(local.presses.isEmpty)
        XCTAssertEqual(local.refusal, "already closed: nothing pressed")
        XCTAssertEqual(local.wordedReplies, [.record(.object([("reason", .string("already closed: nothing pressed"))])), .ok])
        let ble = c.judgeAndAccount(Array("12345O=0".utf8), from: phone, at: t(20))
        XCTAssertEqual(ble.replies.map(\.text), ["OK"], "the book's bytes")
    }

    func testAnOpenOfAnOpeningDoorAndACloseOfAClosingOneSayTheyAreOnTheirWay() throws {
        var c = try controller(relayDoor())
        let pressed = c.judgeAndAccount(Array("12345O=1".utf8), from: owner, at: t(10))
        XCTAssertEqual(pressed.presses.count, 1)
        XCTAssertNil(pressed.refusal, "a press needs no words")
        XCTAssertEqual(pressed.wordedReplies, [.ok])
        _ = c.pressEnded(at: t(400))
        XCTAssertEqual(c.judgeAndAccount(Array("12345O=1".utf8), from: owner, at: t(500)).refusal, "already opening: nothing pressed")
        _ = c.tick(at: t(10_500))
        XCTAssertEqual(c.door.position, .open)
        XCTAssertEqual(c.judgeAndAccount(Array("12345O=1".utf8), from: owner, at: t(10_600)).refusal, "already open: nothing pressed")
        _ = c.judgeAndAccount(Array("12345O=0".utf8), from: owner, at: t(10_700))
        _ = c.pressEnded(at: t(11_100))
        XCTAssertEqual(c.judgeAndAccount(Array("12345O=0".utf8), from: owner, at: t(11_200)).refusal, "already closing: nothing pressed")
    }

    func testARequestAgainstAMovingDoorSaysWhichWayItMovesAndWhatToDo() throws {
        var c = try controller(relayDoor())
        _ = c.judgeAndAccount(Array("12345O=1".utf8), from: owner, at: t(10))
        _ = c.pressEnded(at: t(400))
        let close = c.judgeAndAccount(Array("12345O=0".utf8), from: owner, at: t(500))
        XCTAssertEqual(close.replies, [.error(.busy)])
        let why = try XCTUnwrap(close.refusal, "ERR BUSY had no reason of its own")
        XCTAssertTrue(why.contains("opening") && why.contains("wait"), why)
    }

    func testALightSwitchedToTheStateItIsInSaysSo() throws {
        var c = try controller(relayDoor())
        XCTAssertEqual(c.judgeAndAccount(Array("12345L=0".utf8), from: owner, at: t(10)).refusal, "the light is already off")
        let on = c.judgeAndAccount(Array("12345L=1".utf8), from: owner, at: t(20))
        XCTAssertEqual(on.replies, [.ok])
        XCTAssertNil(on.refusal)
        let again = c.judgeAndAccount(Array("12345L=1".utf8), from: owner, at: t(30))
        XCTAssertEqual(again.replies, [.ok])
        XCTAssertEqual(again.refusal, "the light is already on")
        XCTAssertEqual(c.judgeAndAccount(Array("12345L=1".utf8), from: phone, at: t(40)).replies.map(\.text), ["OK"], "the book's bytes")

        // An opener's light, as the opener last said it.
        var o = try controller(openerDoor(answered: true))
        XCTAssertEqual(o.judgeAndAccount(Array("12345L=0".utf8), from: owner, at: t(10)).refusal, "the light is already off")
    }
}

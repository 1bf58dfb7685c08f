import XCTest
@testable import DoorCore

/// One request path for every channel: a line, a move, the light and identify are judged by
/// `Controller.judge(_:at:)`, every one refused alike when it waited more than 2 s, and a press
/// comes only from the gate.
final class DoorRequestTests: XCTestCase {
    private let homekit = RequestSource("homekit AB-CD", channel: nil)
    private let remote = RequestSource("bluetooth test", channel: .remote)

    private func controller() throws -> Controller {
        Controller(table: try PinTable(master: pin("12345"), capacity: 4),
                   door: Door(timing: DoorTiming(pulse: .milliseconds(300), travel: .seconds(10), autoClose: .seconds(30),
                                                 warning: nil, leftOpen: nil, light: .seconds(60))),
                   store: MemoryStore())
    }

    private func judge(_ c: inout Controller, _ ask: DoorRequest.Ask, from source: RequestSource, waited ms: Int, at now: Int = 10_000)
        -> Controller.Outcome {
        let judged = c.judge(DoorRequest(ask, from: source, arrived: t(now - ms)), at: t(now))
        return c.account(judged)
    }

    func testEveryKindOfRequestThatWaitedTooLongIsRefusedAlike() throws {
        var c = try controller()
        for (ask, source) in [(DoorRequest.Ask.line(Array("12345O=1".utf8)), remote), (.move(.open, door: 0), homekit),
                              (.light(true, door: 0), homekit), (.identify(door: 0), homekit)] {
            let outcome = judge(&c, ask, from: source, waited: 2_500)
            XCTAssertEqual(outcome.replies, [.error(.stale)], "\(ask)")
            XCTAssertTrue(outcome.presses.isEmpty && outcome.door.isEmpty, "\(ask): nothing done")
            XCTAssertFalse(outcome.accepted)
        }
    }

    func testAFreshMoveAndLineAreJudgedByTheGate() throws {
        var c = try controller()
        let open = judge(&c, .move(.open, door: 0), from: homekit, waited: 5)
        XCTAssertEqual(open.presses.map(\.action), [.open])
        XCTAssertTrue(open.accepted)
        _ = c.pressEnded(at: t(10_300))
        let again = judge(&c, .line(Array("12345O=1".utf8)), from: remote, waited: 5, at: 11_000)
        XCTAssertEqual(again.presses, [], "the gate: an open while the door opens presses nothing")
        XCTAssertEqual(judge(&c, .light(true, door: 0), from: homekit, waited: 5, at: 11_100).replies, [.ok])
    }
}

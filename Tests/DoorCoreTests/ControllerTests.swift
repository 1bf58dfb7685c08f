import XCTest
@testable import DoorCore

final class ControllerTests: XCTestCase {
    private let remote = RequestSource("bluetooth test", throttled: true)
    private let owner = RequestSource("local uid=0", throttled: false)
    private var store = MemoryStore()

    private func controller(capacity: Int = 4) throws -> Controller {
        store = MemoryStore()
        return Controller(table: try PinTable(master: pin("12345"), capacity: capacity),
                          door: Door(timing: DoorTiming(pulse: .milliseconds(300), travel: .seconds(10), autoClose: .seconds(30))),
                          store: store)
    }

    private func send(_ c: inout Controller, _ s: String, _ source: RequestSource? = nil, at ms: Int = 0) -> [String] {
        c.handle(Array(s.utf8), from: source ?? remote, at: t(ms)).replies.map(\.text)
    }

    func testOpenWithAnyStoredPINPresses() throws {
        var c = try controller()
        XCTAssertEqual(send(&c, "12345Auser1"), ["OK 1"])
        let outcome = c.handle(Array("user1O=1".utf8), from: remote, at: t(0))
        XCTAssertEqual(outcome.replies, [.ok])
        XCTAssertEqual(outcome.press, .open)
        XCTAssertEqual(outcome.slot, 1)
        XCTAssertEqual(send(&c, "user1S", at: 1000), ["S OPENING 39"])
    }

    func testManagementNeedsTheMasterAndListsInSlotOrder() throws {
        var c = try controller()
        XCTAssertEqual(send(&c, "12345Abbbbb"), ["OK 1"])
        XCTAssertEqual(send(&c, "12345Accccc"), ["OK 2"])
        XCTAssertEqual(send(&c, "bbbbbP"), ["ERR PIN"])
        XCTAssertEqual(send(&c, "bbbbbAddddd"), ["ERR PIN"])
        XCTAssertEqual(send(&c, "12345P"), ["1=bbbbb", "2=ccccc", "OK 2"])
        XCTAssertEqual(send(&c, "12345D1"), ["OK"])
        XCTAssertEqual(send(&c, "12345P"), ["2=ccccc", "OK 1"])
        XCTAssertEqual(send(&c, "12345E2zzzzz"), ["OK"])
        XCTAssertEqual(send(&c, "12345E1zzzzy"), ["ERR SLOT"])
        XCTAssertEqual(send(&c, "12345E0zzzzy"), ["ERR SLOT"])
        XCTAssertEqual(send(&c, "12345D9"), ["ERR SLOT"])
        XCTAssertEqual(send(&c, "12345A12345"), ["ERR DUP"])
        XCTAssertEqual(store.saved.count, 4, "every accepted change is saved, refusals are not")
        XCTAssertEqual(store.saved.last, c.table)
    }

    func testTheMasterIsNeverListed() throws {
        var c = try controller()
        XCTAssertEqual(send(&c, "12345P"), ["OK 0"])
    }

    func testAFailedSaveChangesNothing() throws {
        var c = try controller()
        store.failing = true
        let before = c.table
        XCTAssertEqual(send(&c, "12345Aaaaaa"), ["ERR STORE"])
        XCTAssertEqual(c.table, before)
        store.failing = false
        XCTAssertEqual(send(&c, "12345Aaaaaa"), ["OK 1"])
    }

    func testLockoutRefusesEvenTheRightPINButNeverTheOwner() throws {
        var c = try controller()
        for i in 0..<5 { XCTAssertEqual(send(&c, "wrongO=1", at: i), ["ERR PIN"]) }
        XCTAssertEqual(send(&c, "12345O=1", at: 10), ["ERR LOCKED 1"])
        let ownerOpen = c.handle(Array("12345O=1".utf8), from: owner, at: t(20))
        XCTAssertEqual(ownerOpen.replies, [.ok])
        XCTAssertEqual(ownerOpen.press, .open)
        XCTAssertEqual(send(&c, "12345S", at: 1004), ["S OPENING 40"], "a correct PIN after the delay resets")
        XCTAssertEqual(c.throttle.failures, 0)
    }

    func testALockoutIsReportedOnceAndMalformedRequestsDoNotCount() throws {
        var c = try controller()
        for i in 0..<20 { XCTAssertEqual(send(&c, "1234", at: i), ["ERR FORMAT"]) }
        XCTAssertEqual(c.throttle.failures, 0)
        var lockouts = 0
        for i in 0..<5 where c.handle(Array("bad!!S".utf8), from: remote, at: t(i)).lockout != nil { lockouts += 1 }
        XCTAssertEqual(lockouts, 1)
        XCTAssertEqual(send(&c, "bad!!S", at: 100), ["ERR LOCKED 1"])
        XCTAssertEqual(c.throttle.failures, 5, "attempts while locked do not count")
    }

    func testAnOrdinaryPINCannotResetTheCountBetweenGuessesAtTheMaster() throws {
        var c = try controller()
        XCTAssertEqual(send(&c, "12345Auser1", owner), ["OK 1"])
        var ms = 0
        for _ in 0..<4 { ms += 10; XCTAssertEqual(send(&c, "guessP", at: ms), ["ERR PIN"]) }
        ms += 10
        XCTAssertEqual(send(&c, "user1S", at: ms), ["S CLOSED"], "an ordinary PIN still works")
        XCTAssertEqual(c.throttle.failures, 4, "but does not wipe the guesses at the master")
        ms += 10
        XCTAssertEqual(send(&c, "gues2P", at: ms), ["ERR PIN"])
        XCTAssertEqual(send(&c, "user1S", at: ms + 10), ["ERR LOCKED 1"])
        XCTAssertEqual(send(&c, "12345S", at: ms + 1_100), ["S CLOSED"], "the master after the delay starts over")
        XCTAssertEqual(c.throttle.failures, 0)
    }

    func testOwnerWrongPINsDoNotLockOutThePhones() throws {
        var c = try controller()
        for i in 0..<10 { XCTAssertEqual(send(&c, "wrongO=1", owner, at: i), ["ERR PIN"]) }
        XCTAssertEqual(send(&c, "12345S", at: 20), ["S CLOSED"])
    }

    func testAutoCloseComesThroughTick() throws {
        var c = try controller()
        _ = send(&c, "12345O=1", at: 0)
        XCTAssertEqual(c.tick(at: t(10_000)), [.arrived(.open)])
        XCTAssertEqual(c.tick(at: t(40_000)), [.pressed(.autoClose)])
    }
}

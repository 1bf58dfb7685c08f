import XCTest
@testable import DoorCore

final class ControllerTests: XCTestCase {
    private let remote = RequestSource("bluetooth test", channel: .remote)
    private let owner = RequestSource("local uid=0", channel: nil, isLocal: true)
    private let localUser = RequestSource("local uid=1000", channel: .local, isLocal: true)
    private var store = MemoryStore()

    private func controller(capacity: Int = 4) throws -> Controller {
        store = MemoryStore()
        return Controller(table: try PinTable(master: pin("12345"), capacity: capacity),
                          door: Door(timing: DoorTiming(pulse: .milliseconds(300), travel: .seconds(10), autoClose: .seconds(30))),
                          store: store)
    }

    private func send(_ c: inout Controller, _ s: String, _ source: RequestSource? = nil, at ms: Int = 0) -> [String] {
        c.judgeAndAccount(Array(s.utf8), from: source ?? remote, at: t(ms)).replies.map(\.text)
    }

    func testOpenWithAnyStoredPINPresses() throws {
        var c = try controller()
        XCTAssertEqual(send(&c, "12345Auser1"), ["OK 1"])
        let outcome = c.judgeAndAccount(Array("user1O=1".utf8), from: remote, at: t(0))
        XCTAssertEqual(outcome.replies, [.ok])
        XCTAssertEqual(outcome.presses.map(\.reason), [.open])
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

    /// `--ble-security paired`: a phone not paired as admin may open with any PIN but manage
    /// nothing, even with the master PIN; a wrong PIN still counts as one.
    func testAPhoneThatMayNotManageGetsErrAdminForManagementOnly() throws {
        var c = try controller()
        let guest = RequestSource("bluetooth guest 00:AA:01:01:00:01", channel: .remote, mayManage: false)
        for request in ["12345P", "12345Aabcde", "12345E1abcde", "12345D1", "12345C=60"] {
            XCTAssertEqual(send(&c, request, guest), ["ERR ADMIN"], request)
        }
        XCTAssertEqual(c.table.entries.count, 0)
        XCTAssertEqual(store.saved.count, 0)
        XCTAssertEqual(send(&c, "12345S", guest), ["S CLOSED"])
        XCTAssertEqual(send(&c, "12345O=1", guest), ["OK"])
        XCTAssertEqual(send(&c, "99999P", guest), ["ERR PIN"], "the PIN is judged first")
        XCTAssertEqual(c.throttle.budget(.remote, at: t(0)).failures, 1)
        XCTAssertEqual(send(&c, "12345P", RequestSource("bluetooth anna", channel: .remote, mayManage: true)), ["OK 0"])
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
        let ownerOpen = c.judgeAndAccount(Array("12345O=1".utf8), from: owner, at: t(20))
        XCTAssertEqual(ownerOpen.replies, [.ok])
        XCTAssertEqual(ownerOpen.presses.map(\.reason), [.open])
        XCTAssertEqual(send(&c, "12345S", at: 1004), ["S OPENING 40"], "after the delay the right PIN is judged")
        XCTAssertEqual(c.throttle.budget(.remote, at: t(1004)).failures, 5, "and resets nothing")
    }

    func testALockoutIsReportedOnceAndMalformedRequestsDoNotCount() throws {
        var c = try controller()
        for i in 0..<20 { XCTAssertEqual(send(&c, "1234", at: i), ["ERR FORMAT"]) }
        XCTAssertEqual(c.throttle.budget(.remote, at: t(20)).failures, 0)
        var lockouts = 0
        for i in 0..<5 where c.judgeAndAccount(Array("bad!!S".utf8), from: remote, at: t(i)).lockout != nil { lockouts += 1 }
        XCTAssertEqual(lockouts, 1)
        XCTAssertEqual(send(&c, "bad!!S", at: 100), ["ERR LOCKED 1"])
        XCTAssertEqual(c.throttle.budget(.remote, at: t(100)).failures, 5, "attempts while locked do not count")
    }

    /// The review's bypass: four guesses, the known guest PIN, repeat. A success used to start
    /// the count over; now the fifth guess locks whatever came between.
    func testAKnownPINNeverResetsTheCount() throws {
        var c = try controller()
        XCTAssertEqual(send(&c, "12345Auser1", owner), ["OK 1"])
        var ms = 0
        for _ in 0..<4 { ms += 10; XCTAssertEqual(send(&c, "guessO=1", at: ms), ["ERR PIN"]) }
        ms += 10
        XCTAssertEqual(send(&c, "user1S", at: ms), ["S CLOSED"], "an ordinary PIN still works")
        XCTAssertEqual(c.throttle.budget(.remote, at: t(ms)).failures, 4, "but wipes no guess")
        ms += 10
        XCTAssertEqual(send(&c, "gues2S", at: ms), ["ERR PIN"])
        XCTAssertEqual(send(&c, "user1S", at: ms + 10), ["ERR LOCKED 1"])
        XCTAssertEqual(send(&c, "12345S", at: ms + 1_100), ["S CLOSED"], "the master after the delay is judged")
        XCTAssertEqual(c.throttle.budget(.remote, at: t(ms + 1_100)).failures, 5, "and wipes nothing either")
    }

    func testUnlockNeedsTheMasterOrTheOwnerAndClearsTheChosenChannel() throws {
        var c = try controller()
        XCTAssertEqual(send(&c, "12345Auser1", owner), ["OK 1"])
        for i in 0..<6 { _ = send(&c, "wrongS", at: i) }
        for i in 0..<6 { _ = send(&c, "wrongS", localUser, at: i) }
        XCTAssertEqual(send(&c, "user1Lunlock", localUser, at: 5_000), ["ERR PIN"], "a guest PIN cannot unlock")
        XCTAssertEqual(send(&c, "user1Lunlock", owner, at: 10), ["OK"], "the owner at the shell may, with any stored PIN")
        XCTAssertTrue(lockoutsClear(c, at: t(10)))
        for i in 0..<6 { _ = send(&c, "wrongS", at: 20 + i) }
        for i in 0..<6 { _ = send(&c, "wrongS", localUser, at: 20 + i) }
        XCTAssertEqual(send(&c, "12345Lunlock local", owner, at: 30), ["OK"])
        XCTAssertNil(c.throttle.remainingLock(.local, at: t(30)))
        XCTAssertNotNil(c.throttle.remainingLock(.remote, at: t(30)), "the remote lockout stays")
        XCTAssertEqual(send(&c, "12345Lunlock", remote, at: 40), ["ERR CMD"], "never over Bluetooth")
    }

    func testAStaleRequestIsRefusedBeforeItIsJudged() throws {
        var c = try controller()
        let stale = c.judgeAndAccount(Array("12345O=1".utf8), from: remote, at: t(0), age: .milliseconds(2_001))
        XCTAssertEqual(stale.replies, [.error(.stale)])
        XCTAssertEqual(stale.presses.map(\.reason), [])
        XCTAssertNotNil(stale.refusal)
        XCTAssertEqual(c.door.position, .closed)
        XCTAssertEqual(c.judgeAndAccount(Array("wrongO=1".utf8), from: remote, at: t(0), age: .seconds(5)).replies, [.error(.stale)])
        XCTAssertEqual(c.throttle.budget(.remote, at: t(0)).failures, 0, "a stale guess is not judged, so it does not count")
        let fresh = c.judgeAndAccount(Array("12345O=1".utf8), from: remote, at: t(0), age: .milliseconds(1_999))
        XCTAssertEqual(fresh.presses.map(\.reason), [.open])
    }

    func testAFailedSaveCarriesItsCauseForTheLog() throws {
        var c = try controller()
        store.failing = true
        let outcome = c.judgeAndAccount(Array("12345Aaaaaa".utf8), from: owner, at: t(0))
        XCTAssertEqual(outcome.result, .error(.store))
        XCTAssertEqual(outcome.storeError, "cannot write memory: No space left on device")
    }

    func testOwnerWrongPINsDoNotLockOutThePhones() throws {
        var c = try controller()
        for i in 0..<10 { XCTAssertEqual(send(&c, "wrongO=1", owner, at: i), ["ERR PIN"]) }
        XCTAssertEqual(send(&c, "12345S", at: 20), ["S CLOSED"])
    }

    func testAutoCloseComesThroughTick() throws {
        var c = try controller()
        _ = send(&c, "12345O=1", at: 0)
        XCTAssertEqual(c.pressEnded(at: t(300)).door, [])
        XCTAssertEqual(c.tick(at: t(10_000)).door, [.moved(.open, bySomeoneElse: false)])
        let auto = c.tick(at: t(40_000))
        XCTAssertEqual(auto.presses.map(\.reason), [.autoClose])
        XCTAssertEqual(auto.records.map(\.kind), [.autoClose], "the history records the door's own press")
        XCTAssertEqual(c.status(at: t(40_000)).push(at: t(40_000)).text, "S CLOSING", "and phones are told (from the status)")
    }
}

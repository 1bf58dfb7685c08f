import XCTest
@testable import DoorCore

/// Issue 37: the lock of an opener's remotes and its light are requests any channel can repeat
/// at will. A lock that changes nothing is an attempt and asks the opener nothing; a change is
/// kept and limited per channel (H1); the light of a door whose warning it is, limited as the
/// warning is (W2); and the PIN line and the channels judge the lock in one place.
final class RepeatedOpenerRequestsTests: XCTestCase {
    private let timing = DoorTiming(pulse: .milliseconds(300), travel: .seconds(1), autoClose: nil)
    private let guestPhone = RequestSource("homekit guest-phone", channel: nil)
    private let mqtt = RequestSource("mqtt", channel: nil)
    private let owner = RequestSource("local uid=0", channel: nil, isLocal: true)

    /// One door reported by an opener that answers, its remotes unlocked and its light off; with
    /// `warning`, its warning is `warning` long, shown by the opener's light unless `warnWired`.
    private func controller(warning: Duration? = nil, warnWired: Bool = false) throws -> Controller {
        var timing = timing
        timing.warning = warning
        timing.warningFlashesLight = warning != nil && !warnWired
        var door = Door(timing: timing, sensing: .reported(by: "the Security+ 2.0 opener on /dev/ttyS0"), at: t(0))
        _ = door.openerReported(.closed, obstructed: false, at: t(0))
        door.openerReported(light: false, remotesLocked: false)
        var table = try PinTable(master: pin("12345"), capacity: 8)
        _ = try table.add(pin("24680"))
        return Controller(table: table, door: door, store: MemoryStore())
    }

    /// Whether an outcome asks the opener to lock or unlock.
    private func asks(_ outcome: Controller.Outcome) -> Bool {
        outcome.door.contains { if case .remotesLock = $0 { return true } else { return false } }
    }

    /// Whether an outcome switches the light.
    private func switches(_ outcome: Controller.Outcome) -> Bool {
        outcome.door.contains { if case .light = $0 { return true } else { return false } }
    }

    // MARK: - H1: the lock

    func testALockThatChangesNothingAsksNothingAndIsAnAttempt() throws {
        var c = try controller()
        let first = c.lockRemotes(true, from: guestPhone, at: t(1_000), wall: 1_000)
        XCTAssertEqual(first.replies, [.ok])
        XCTAssertTrue(asks(first), "a change asks the opener")
        XCTAssertEqual(first.records.map(\.detail), ["OK: locked"])
        XCTAssertEqual(first.records.first?.importance, .kept)

        // One HomeKit write of 1,800 lock items, judged before the opener confirms the first.
        var repeats: [Controller.Outcome] = []
        for i in 0..<1_800 { repeats.append(c.lockRemotes(true, from: guestPhone, at: t(1_000 + i / 100), wall: 1_000)) }
        XCTAssertEqual(repeats.filter(asks).count, 0, "the lock already asked is asked no more")
        XCTAssertTrue(repeats.allSatisfy { $0.replies == [.ok] }, "answered OK: the remotes are, or will be, locked")
        XCTAssertEqual(Set(repeats.flatMap(\.records).map(\.detail)), ["OK: already locked"])
        XCTAssertTrue(repeats.flatMap(\.records).allSatisfy { $0.importance == .attempt })

        // Confirmed by the opener: still nothing to change.
        c.openerReported(light: false, remotesLocked: true)
        let confirmed = c.lockRemotes(true, from: mqtt, at: t(2_000), wall: 2_000)
        XCTAssertFalse(asks(confirmed))
        XCTAssertEqual(confirmed.records.first?.importance, .attempt)
    }

    func testALockFloodNeverPushesAGuestsOpeningOutOfTheHistory() throws {
        var c = try controller()
        var log = EventLog(kept: EventHistory(maxBytesPerFile: 2_000), attempts: EventHistory(maxBytesPerFile: 2_000))
        let opened = c.judgeAndAccount(Array("24680O=1".utf8), from: owner, at: t(1_000), wall: 1_000)
        XCTAssertFalse(opened.presses.isEmpty)
        opened.records.forEach { log.append($0) }
        // 3 writes of 1,800 items, the opener confirming between them; and 10,000 MQTT LOCKs.
        for write in 0..<3 {
            for i in 0..<1_800 {
                c.lockRemotes(true, from: guestPhone, at: t(2_000 + write * 1_000 + i / 10), wall: 2_000).records.forEach { log.append($0) }
            }
            c.openerReported(light: false, remotesLocked: true)
        }
        for i in 0..<10_000 { c.lockRemotes(true, from: mqtt, at: t(10_000 + i), wall: 10_000).records.forEach { log.append($0) } }
        let kept = log.kept.since(nil)
        XCTAssertTrue(kept.contains { $0.kind == .open && $0.detail == "pressed" }, "the guest's opening stays: \(kept.map(\.kind))")
        XCTAssertEqual(kept.filter { $0.kind == .remotes }.count, 1, "one change, kept once")
    }

    func testChangesAreKeptAndLimitedPerChannel() throws {
        var c = try controller()
        let allowed = RequestRates.remoteLocks.capacity
        var locked = false
        // Each change confirmed by the opener, so each asks for the other state.
        for i in 0..<allowed {
            locked.toggle()
            let changed = c.lockRemotes(locked, from: guestPhone, at: t(1_000 + i * 100), wall: 1)
            XCTAssertEqual(changed.replies, [.ok], "change \(i + 1)")
            XCTAssertTrue(asks(changed))
            XCTAssertEqual(changed.records.first?.importance, .kept)
            c.openerReported(light: false, remotesLocked: locked)
        }
        let refused = c.lockRemotes(!locked, from: guestPhone, at: t(2_000), wall: 2)
        XCTAssertEqual(refused.replies, [.error(.rate)])
        XCTAssertFalse(asks(refused), "a refused change asks the opener nothing")
        XCTAssertEqual(refused.records.map(\.detail), ["ERR RATE: \(locked ? "unlock" : "lock")"])
        XCTAssertEqual(refused.records.first?.importance, .attempt)
        let why = try XCTUnwrap(refused.refusal)
        XCTAssertTrue(why.contains("homekit guest-phone") && why.contains("\(allowed) changes") && why.contains("900 s"), why)

        // Asking for what it already is spends nothing and is never refused.
        XCTAssertEqual(c.lockRemotes(locked, from: guestPhone, at: t(2_100), wall: 2).replies, [.ok])
        // Another channel has its own allowance.
        let other = c.lockRemotes(!locked, from: mqtt, at: t(2_200), wall: 2)
        XCTAssertEqual(other.replies, [.ok])
        XCTAssertTrue(asks(other))
        c.openerReported(light: false, remotesLocked: !locked)
        // One comes back after `refill`.
        XCTAssertEqual(c.lockRemotes(locked, from: guestPhone, at: t(1_000 + 900_000), wall: 3).replies, [.ok])
    }

    func testAnUnconfirmedAskIsAskedAgainOnceTheOpenerHadTimeToSaySo() throws {
        var c = try controller()
        XCTAssertTrue(asks(c.lockRemotes(true, from: owner, at: t(1_000), wall: 1)))
        XCTAssertFalse(asks(c.lockRemotes(true, from: owner, at: t(1_000) + Door.openerConfirmsWithin - .milliseconds(1), wall: 1)))
        // The opener never said locked (the packet was lost): a new ask goes out.
        XCTAssertTrue(asks(c.lockRemotes(true, from: owner, at: t(1_000) + Door.openerConfirmsWithin, wall: 1)))
        // An unlock asked while a lock is on its way is a change.
        XCTAssertTrue(asks(c.lockRemotes(false, from: owner, at: t(10_000), wall: 1)))
    }

    // The near-copy mended: the PIN line and the channels judge the lock in one place.

    func testTheLineAndTheChannelsSayWhyTheSameWay() throws {
        var c = try controller()
        _ = c.openerAnswered(false, at: t(500))
        let line = c.judgeAndAccount(Array("12345Lremotes lock".utf8), from: owner, at: t(1_000), wall: 1)
        let channel = c.lockRemotes(true, from: mqtt, at: t(1_000), wall: 1)
        XCTAssertEqual(line.replies, [.error(.fault)])
        XCTAssertEqual(channel.replies, [.error(.fault)])
        XCTAssertNotNil(channel.refusal, "a Home Assistant lock refused while the opener is silent says why")
        XCTAssertEqual(channel.refusal, line.refusal)
        XCTAssertEqual(line.records.filter { $0.kind == .remotes }.map(\.detail), ["ERR FAULT: lock"])
        XCTAssertEqual(line.records.first { $0.kind == .remotes }?.slot, 0, "the line's record names the PIN's slot")
        XCTAssertEqual(channel.records.map(\.detail), ["ERR FAULT: lock"])
        XCTAssertEqual(channel.records.first?.source, "mqtt")

        var relay = Controller(table: try PinTable(master: pin("12345"), capacity: 4), door: Door(timing: timing), store: MemoryStore())
        let none = relay.lockRemotes(true, from: guestPhone, at: t(1_000), wall: 1)
        XCTAssertEqual(none.replies, [.error(.command)])
        XCTAssertEqual(none.refusal, relay.judgeAndAccount(Array("12345Lremotes lock".utf8), from: owner, at: t(1_000)).refusal)
        XCTAssertTrue(none.refusal?.contains("opener = secplus2:DEVICE") ?? false, "\(String(describing: none.refusal))")
    }

    func testTheLineSpendsTheSameAllowance() throws {
        var c = try controller()
        var locked = false
        for _ in 0..<RequestRates.remoteLocks.capacity {
            locked.toggle()
            XCTAssertEqual(c.judgeAndAccount(Array("12345Lremotes \(locked ? "lock" : "unlock")".utf8), from: owner, at: t(1_000), wall: 1).replies, [.ok])
            c.openerReported(light: false, remotesLocked: locked)
        }
        let refused = c.judgeAndAccount(Array("12345Lremotes \(locked ? "unlock" : "lock")".utf8), from: owner, at: t(1_000), wall: 1)
        XCTAssertEqual(refused.replies, [.error(.rate)])
        XCTAssertNotNil(refused.refusal)
        XCTAssertEqual(refused.records.first { $0.kind == .remotes }?.importance, .attempt)
    }

    func testOnlyAChangeOfTheLockIsKept() {
        func r(_ detail: String) -> EventRecord { EventRecord(time: 0, kind: .remotes, source: "mqtt", detail: detail) }
        XCTAssertEqual(r("OK: locked").importance, .kept)
        XCTAssertEqual(r("OK: unlocked").importance, .kept)
        for detail in ["OK: already locked", "OK: already unlocked", "ERR RATE: lock", "ERR FAULT: unlock", "ERR CMD: lock"] {
            XCTAssertEqual(r(detail).importance, .attempt, detail)
        }
    }

    // MARK: - W2: the light of a door whose warning it is

    func testTheLightOfADoorWhoseWarningItIsIsLimitedPerChannel() throws {
        var c = try controller(warning: .seconds(5))
        var switched = 0, refused: [Controller.Outcome] = []
        // A guest's phone: 40 changes in 8 s, each the other way from the light as it is.
        for i in 0..<40 {
            let o = c.light(on: !c.door.lightOn, from: guestPhone, at: t(1_000 + i * 200), wall: 1)
            if switches(o) { switched += 1 }
            if o.replies == [.error(.rate)] { refused.append(o) } else { XCTAssertEqual(o.replies, [.ok]) }
        }
        XCTAssertEqual(switched, RequestRates.lights.capacity, "3 changes, then none until one comes back")
        XCTAssertEqual(refused.count, 40 - RequestRates.lights.capacity)
        XCTAssertTrue(refused.allSatisfy { !switches($0) })
        let why = try XCTUnwrap(refused.first?.refusal)
        XCTAssertTrue(why.contains("homekit guest-phone") && why.contains("warning") && why.contains("light"), why)

        // The light as it is already changes nothing and is never refused.
        let same = c.light(on: c.door.lightOn, from: guestPhone, at: t(9_100), wall: 1)
        XCTAssertEqual(same.replies, [.ok])
        // The PIN line spends the same allowance; the owner at the shell has an allowance of its own.
        let line = c.judgeAndAccount(Array("24680L=\(c.door.lightOn ? 0 : 1)".utf8), from: RequestSource("bluetooth AA", channel: .remote), at: t(9_200))
        XCTAssertEqual(line.replies, [.ok], "the phone's first change")
        XCTAssertEqual(c.judgeAndAccount(Array("12345L=\(c.door.lightOn ? 0 : 1)".utf8), from: owner, at: t(9_300)).replies, [.ok])
        // And one comes back after `refill`.
        let later = c.light(on: !c.door.lightOn, from: guestPhone, at: t(1_000) + RequestRates.lights.refill * 3, wall: 1)
        XCTAssertEqual(later.replies, [.ok])
        XCTAssertTrue(switches(later))
    }

    func testTheLineIsRefusedWithItsWhy() throws {
        var c = try controller(warning: .seconds(5))
        let phone = RequestSource("bluetooth AA", channel: .remote)
        var replies: [Reply] = []
        var last = Controller.Outcome()
        for i in 0..<5 {
            last = c.judgeAndAccount(Array("24680L=\(c.door.lightOn ? 0 : 1)".utf8), from: phone, at: t(1_000 + i))
            replies += last.replies
        }
        XCTAssertEqual(replies, [.ok, .ok, .ok, .error(.rate), .error(.rate)])
        XCTAssertTrue(last.refusal?.contains("warning") ?? false, "\(String(describing: last.refusal))")
        XCTAssertFalse(last.changedSomething, "a refused change is logged once per burst")
        // The light as it is, asked for again and again: logged once per burst too.
        let same = c.judgeAndAccount(Array("24680L=\(c.door.lightOn ? 1 : 0)".utf8), from: phone, at: t(2_000))
        XCTAssertEqual(same.replies, [.ok])
        XCTAssertFalse(same.changedSomething)
        let owner = c.judgeAndAccount(Array("12345L=\(c.door.lightOn ? 0 : 1)".utf8), from: owner, at: t(2_000))
        XCTAssertTrue(owner.changedSomething, "a change is logged in full")
    }

    func testALightThatIsNotTheWarningIsNotLimited() throws {
        // An opener door with a warn output of its own, and a relay door with a wired light.
        var wired = try controller(warning: .seconds(5), warnWired: true)
        var relayTiming = timing
        relayTiming.light = .seconds(60)
        var relay = Controller(table: try PinTable(master: pin("12345"), capacity: 4), door: Door(timing: relayTiming), store: MemoryStore())
        for i in 0..<40 {
            XCTAssertEqual(wired.light(on: i % 2 == 0, from: guestPhone, at: t(1_000 + i * 200), wall: 1).replies, [.ok])
            XCTAssertEqual(relay.light(on: i % 2 == 0, from: guestPhone, at: t(1_000 + i * 200), wall: 1).replies, [.ok])
        }
    }
}

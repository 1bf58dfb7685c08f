import XCTest
@testable import DoorCore

/// `Lremotes lock|unlock` (issue 31): the master PIN on the local socket locks an opener's own
/// remotes and keypads, for the door it names, and the history says who asked.
final class LocalRemotesTests: XCTestCase {
    private let timing = DoorTiming(pulse: .milliseconds(300), travel: .seconds(1), autoClose: nil)
    private let owner = RequestSource("local uid=0", channel: nil, isLocal: true)
    private let phone = RequestSource("bluetooth 00:AA:01:01:00:01", channel: .remote)

    /// The first door on a relay, the second ("gate") reported by an opener that answers.
    private func controller() throws -> Controller {
        var gate = Door(timing: timing, sensing: .reported(by: "the Security+ 2.0 opener on /dev/ttyS0"), at: t(0), index: 1)
        _ = gate.openerReported(.closed, obstructed: false, at: t(0))
        gate.openerReported(light: false, remotesLocked: false)
        let doors = [DoorUnit(door: Door(timing: timing, index: 0), id: "left"), DoorUnit(door: gate, id: "gate")]
        var table = try PinTable(master: pin("12345"), capacity: 8)
        _ = try table.add(pin("24680"))
        return Controller(table: table, doors: doors, store: MemoryStore())
    }

    func testTheCodecRoundTripsItWithOrWithoutADoor() throws {
        for request in [Request(pin: pin("12345"), command: .local(.remotes(locked: true))),
                        Request(pin: pin("12345"), command: .local(.remotes(locked: false)), door: .name("gate")),
                        Request(pin: pin("12345"), command: .local(.remotes(locked: true)), door: .number(2))] {
            XCTAssertEqual(try CommandCodec.decode(CommandCodec.encode(request)).get(), request)
        }
        XCTAssertEqual(CommandCodec.encode(Request(pin: pin("12345"), command: .local(.remotes(locked: true)), door: .name("gate"))),
                       Array("12345@gate:Lremotes lock".utf8))
        XCTAssertEqual(try CommandCodec.decode(Array("12345Lremotes unlock".utf8)).get().command, .local(.remotes(locked: false)))
        for bad in ["12345Lremotes", "12345Lremotes on", "12345Lremotes lock ", "12345Lremotes  lock", "12345Lremoteslock"] {
            XCTAssertEqual(CommandCodec.decode(Array(bad.utf8)), .failure(.format), bad)
        }
        XCTAssertTrue(Command.local(.remotes(locked: true)).needsMaster)
        XCTAssertTrue(Command.local(.remotes(locked: true)).isAboutADoor)
    }

    func testTheMasterPINLocksTheNamedDoorsOpenerAndTheHistoryNamesWhoAsked() throws {
        var c = try controller()
        let locked = c.judgeAndAccount(Array("12345@gate:Lremotes lock".utf8), from: owner, at: t(10), wall: 1_000)
        XCTAssertEqual(locked.replies, [.ok])
        XCTAssertEqual(locked.doorIndex, 1)
        XCTAssertTrue(locked.door.contains(.remotesLock(true)), "the opener's drive is asked: \(locked.door)")
        let record = try XCTUnwrap(locked.records.first { $0.kind == .remotes }, "\(locked.records)")
        XCTAssertEqual(record.source, "local uid=0")
        XCTAssertEqual(record.slot, 0)
        XCTAssertEqual(record.door, "gate")
        XCTAssertEqual(record.detail, "OK: locked")
        XCTAssertEqual(locked.command, "remotes lock @gate")
        let unlocked = c.judgeAndAccount(Array("12345@2:Lremotes unlock".utf8), from: owner, at: t(20), wall: 2_000)
        XCTAssertEqual(unlocked.replies, [.ok])
        XCTAssertEqual(unlocked.records.first { $0.kind == .remotes }?.detail, "OK: unlocked")
    }

    func testAnotherPINIsRefusedAndNothingIsAsked() throws {
        var c = try controller()
        let refused = c.judgeAndAccount(Array("24680@gate:Lremotes lock".utf8), from: owner, at: t(10))
        XCTAssertEqual(refused.replies, [.error(.pin)], "the master's alone, like every local extension but status")
        XCTAssertFalse(refused.door.contains(.remotesLock(true)))
        XCTAssertNil(refused.records.first { $0.kind == .remotes })
        XCTAssertEqual(c.judgeAndAccount(Array("12345@gate:Lremotes lock".utf8), from: phone, at: t(20)).replies, [.error(.command)],
                       "Bluetooth knows no local extension")
    }

    func testADoorWithoutAnOpenerAnswersErrCmdSayingWhy() throws {
        var c = try controller()
        let refused = c.judgeAndAccount(Array("12345Lremotes lock".utf8), from: owner, at: t(10))
        XCTAssertEqual(refused.replies, [.error(.command)])
        XCTAssertTrue(refused.refusal?.contains("no opener") ?? false, "\(String(describing: refused.refusal))")
        XCTAssertEqual(refused.records.first { $0.kind == .remotes }?.detail, "ERR CMD: lock", "asked, and refused, is history too")
        let nowhere = c.judgeAndAccount(Array("12345@shed:Lremotes lock".utf8), from: owner, at: t(20))
        XCTAssertEqual(nowhere.replies, [.error(.door)])
        XCTAssertEqual(nowhere.records.filter { $0.kind == .remotes }.map(\.detail), ["ERR DOOR: lock"], "once, as an attempt")
    }

}

import XCTest
@testable import DoorCore

/// HomeKit's view of the status snapshot: what each door reads as, and which characteristics an
/// `EVENT/1.0` carries for a change, are pure functions of the last snapshot and the new.
final class HAPStatusEventsTests: XCTestCase {
    private let timing = DoorTiming(pulse: .milliseconds(300), travel: .seconds(10), autoClose: nil, warning: nil)
    private let phone = RequestSource("bluetooth 00:AA:01:01:00:01", channel: .remote)
    private let database = HAPDatabase(name: "Garages", doors: [.init(name: "Left", has: .relay(light: false)),
                                                                .init(name: "Gate", has: .relay(light: false))],
                                       firmware: "1.0", serial: "s")

    private func twoDoors() throws -> Controller {
        Controller(table: try PinTable(master: pin("12345"), capacity: 4),
                   doors: [DoorUnit(door: Door(timing: timing), id: "left"), DoorUnit(door: Door(timing: timing, index: 1), id: "gate")],
                   store: MemoryStore())
    }

    private func id(_ c: HAPCharacteristic) -> HAPCharacteristicID { database.notifying.first { $0.1 == c }!.0 }

    func testAMovedDoorSendsItsOwnStateAndTargetOnly() throws {
        var c = try twoDoors()
        let first = c.snapshot(at: t(0))
        _ = c.judgeAndAccount(Array("12345@gate:O=1".utf8), from: phone, at: t(10))
        let opening = c.snapshot(at: t(10))
        let events = database.events(from: first, to: opening)
        XCTAssertEqual(events.map(\.0), [id(.currentDoorState(door: 1)), id(.targetDoorState(door: 1))])
        XCTAssertEqual(events.map(\.1), [.number(2), .number(Int64(HAPDoorView.open))], "Opening, on its way to Open")
        XCTAssertTrue(database.events(from: opening, to: opening).isEmpty, "an unchanged snapshot sends nothing")
    }

    /// Before the first snapshot every door reads closed and clear; the first sends only what
    /// differs from that.
    func testTheFirstSnapshotSendsWhatDiffersFromUnknown() throws {
        XCTAssertEqual(database.views(of: nil), [.unknown, .unknown])
        var c = try twoDoors()
        _ = c.judgeAndAccount(Array("12345@left:O=1".utf8), from: phone, at: t(0))
        let first = c.snapshot(at: t(0))
        XCTAssertEqual(database.events(from: nil, to: first).map(\.0), [id(.currentDoorState(door: 0)), id(.targetDoorState(door: 0))])
        XCTAssertEqual(database.views(of: first)[0].current, 2)
        XCTAssertEqual(database.views(of: first)[1], .unknown, "a closed door reads as unknown does")
    }

    /// A snapshot with fewer doors than the database (none in service) leaves the others unknown.
    func testADoorTheSnapshotLacksReadsUnknown() throws {
        let one = StatusSnapshot(doors: [try twoDoors().snapshot(at: t(0)).doors[0]])
        XCTAssertEqual(database.views(of: one).count, 2)
        XCTAssertEqual(database.views(of: one)[1], .unknown)
    }
}

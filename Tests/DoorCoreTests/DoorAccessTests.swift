import XCTest
@testable import DoorCore

/// Several doors in the core: the `@<door>:` selector, a controller of two doors each with its
/// own permits, and PINs limited to some doors (`DoorAccess`, its sidecar and `Ldoors`).
final class DoorAccessTests: XCTestCase {
    private let timing = DoorTiming(pulse: .milliseconds(300), travel: .seconds(1), autoClose: nil)

    private func twoDoors(access: DoorAccess = DoorAccess()) throws -> Controller {
        let doors = [DoorUnit(door: Door(timing: timing, index: 0), id: "left"),
                     DoorUnit(door: Door(timing: timing, index: 1), id: "gate", name: "Front gate")]
        var table = try PinTable(master: pin("12345"), capacity: 16)
        _ = try table.add(pin("24680"))
        return Controller(table: table, doors: doors, store: MemoryStore(), access: access)
    }

    private let owner = RequestSource("local uid=0", channel: nil, isLocal: true)
    private let phone = RequestSource("bluetooth 00:AA:01:01:00:01", channel: .remote)

    func testTheSelectorNamesADoorByNumberOrName() {
        XCTAssertEqual(try CommandCodec.decode(Array("12345@2:O=1".utf8)).get(), Request(pin: pin("12345"), command: .open, door: .number(2)))
        XCTAssertEqual(try CommandCodec.decode(Array("12345@gate-2:S".utf8)).get(), Request(pin: pin("12345"), command: .status, door: .name("gate-2")))
        XCTAssertEqual(try CommandCodec.decode(Array("12345O=1".utf8)).get().door, nil, "the book's request: the first door")
        for bad in ["12345@:S", "12345@2S", "12345@Gate:S", "12345@123:S", "12345@2:", "12345@2:P", "12345@2:A24680",
                    "12345@a-very-long-door-name:S", "12345@2:Lstatus"] {
            XCTAssertEqual(CommandCodec.decode(Array(bad.utf8)), .failure(.format), bad)
        }
        let request = Request(pin: pin("12345"), command: .hold(minutes: 30), door: .name("shed"))
        XCTAssertEqual(CommandCodec.encode(request), Array("12345@shed:H=30".utf8))
        XCTAssertEqual(try CommandCodec.decode(CommandCodec.encode(request)).get(), request)
    }

    func testEachDoorPressesWithItsOwnPermitWhileTheOtherPresses() throws {
        var c = try twoDoors()
        let first = c.judgeAndAccount(Array("12345O=1".utf8), from: owner, at: t(0))
        let second = c.judgeAndAccount(Array("12345@gate:O=1".utf8), from: owner, at: t(0))
        XCTAssertEqual(first.presses.map(\.door), [0])
        XCTAssertEqual(second.presses.map(\.door), [1], "the gate does not wait for the left door's relay")
        XCTAssertEqual([first.doorIndex, second.doorIndex], [0, 1])
        XCTAssertEqual(c.judgeAndAccount(Array("12345@1:S".utf8), from: owner, at: t(10)).replies, [.status(.opening, autoCloseIn: nil)])
        XCTAssertEqual(c.judgeAndAccount(Array("12345@9:S".utf8), from: owner, at: t(10)).replies, [.error(.door)])
        XCTAssertEqual(c.judgeAndAccount(Array("99999@9:S".utf8), from: phone, at: t(10)).replies, [.error(.pin)], "no door names without a PIN")
        // The history names the door; a record pushed about a door of several says which.
        XCTAssertEqual(second.records.map(\.door), ["gate"])
        XCTAssertEqual(Reply.about(door: 2, .status(.opening, autoCloseIn: nil)).text, "@2:S OPENING")
        XCTAssertEqual(c.snapshot(at: t(20)).doors.map(\.id), ["left", "gate"])
    }

    func testALimitedPINReachesOnlyItsDoorsAndIsNotAWrongPIN() throws {
        var c = try twoDoors(access: DoorAccess([1: ["left"]]))
        for _ in 0..<20 {
            XCTAssertEqual(c.judgeAndAccount(Array("24680@gate:O=1".utf8), from: phone, at: t(0)).replies, [.error(.denied)])
        }
        XCTAssertNil(c.throttle.remainingLock(.remote, at: t(0)), "a good PIN at the wrong door is not a guess")
        XCTAssertEqual(c.judgeAndAccount(Array("24680@gate:S".utf8), from: phone, at: t(0)).replies, [.error(.denied)])
        XCTAssertEqual(c.judgeAndAccount(Array("24680O=1".utf8), from: phone, at: t(0)).presses.map(\.door), [0])
        XCTAssertEqual(c.judgeAndAccount(Array("12345@gate:O=1".utf8), from: phone, at: t(0)).presses.map(\.door), [1], "the master reaches every door")
    }

    /// Which doors' status a PIN is shown (`Lstatus`, `Lfollow status`): the doors it may use,
    /// each record with its door's number; the master sees every door.
    func testALimitedPINWatchesOnlyItsDoors() throws {
        let c = try twoDoors(access: DoorAccess([1: ["gate"]]))
        XCTAssertEqual([0, 1].map { c.mayWatch($0, slot: 1) }, [false, true])
        XCTAssertEqual([0, 1].map { c.mayWatch($0, slot: 0) }, [true, true])
        XCTAssertEqual(c.snapshot(at: t(0)).record(door: 1, at: t(0))["number"], .number(2))
    }

    func testLdoorsSetsAndClearsALimitAndDeletingTheSlotForgetsIt() throws {
        var c = try twoDoors()
        XCTAssertEqual(c.judgeAndAccount(Array("12345Ldoors 1 gate".utf8), from: owner, at: t(0)).replies, [.ok])
        XCTAssertEqual(c.access[1], ["gate"])
        XCTAssertEqual(c.judgeAndAccount(Array("12345Ldoors 1 shed".utf8), from: owner, at: t(0)).replies, [.error(.door)])
        XCTAssertEqual(c.access[1], ["gate"], "a refused change changes nothing")
        XCTAssertEqual(c.judgeAndAccount(Array("12345Ldoors 5 gate".utf8), from: owner, at: t(0)).replies, [.error(.slot)])
        XCTAssertEqual(c.judgeAndAccount(Array("24680Ldoors 1 left".utf8), from: owner, at: t(0)).replies, [.error(.pin)], "the master's")
        XCTAssertEqual(c.judgeAndAccount(Array("12345D1".utf8), from: owner, at: t(0)).replies, [.ok])
        XCTAssertNil(c.access[1], "a freed slot's limit never passes to the next PIN")
        XCTAssertEqual(c.judgeAndAccount(Array("12345A13579".utf8), from: owner, at: t(0)).replies, [.added(slot: 1)])
        XCTAssertEqual(c.judgeAndAccount(Array("13579@gate:O=1".utf8), from: phone, at: t(0)).presses.count, 1)
    }

    func testTheSidecarRoundTripsAndRefusesBadLines() throws {
        let access = DoorAccess([1: ["left", "gate"], 7: ["shed"]])
        XCTAssertEqual(try DoorAccess.decode(access.encoded()), access)
        XCTAssertEqual(try DoorAccess.decode(Array("# c\n\n3\tleft\n".utf8)), DoorAccess([3: ["left"]]))
        for bad in ["0\tleft\n", "x\tleft\n", "3 left\n", "3\tLeft\n", "3\t\n", "3\tleft,,gate\n"] {
            XCTAssertThrowsError(try DoorAccess.decode(Array(bad.utf8)), bad)
        }
        XCTAssertTrue(DoorAccess.unreadableFile.allows(0, door: "gate"), "the master, always")
        XCTAssertFalse(DoorAccess.unreadableFile.allows(1, door: "gate"), "an unreadable file lets no guest gain a door")
        XCTAssertTrue(DoorAccess.unreadableFile.allows(1, door: nil), "the one door of a config without sections is every PIN's")
    }

    /// Two state machines under one clock: the gate's close waits for its warning while the
    /// left door opens at once and arrives; the warned press falls due on the gate's own tick;
    /// neither door's events or deadlines reach the other.
    func testOneDoorWarnsWhileTheOtherOpens() throws {
        let warned = DoorTiming(pulse: .milliseconds(300), travel: .seconds(1), autoClose: nil, warning: .seconds(5))
        let doors = [DoorUnit(door: Door(timing: timing, index: 0), id: "left"),
                     DoorUnit(door: Door(timing: warned, sensing: DoorSensing(closedSwitch: true), closed: false, index: 1), id: "gate")]
        var c = Controller(table: try PinTable(master: pin("12345"), capacity: 4), doors: doors, store: MemoryStore())
        let close = c.judgeAndAccount(Array("12345@gate:O=0".utf8), from: owner, at: t(0))
        XCTAssertEqual(close.replies, [.ok])
        XCTAssertTrue(close.presses.isEmpty, "a close from a door not at CLOSED waits for the warning")
        XCTAssertTrue(close.door.contains(.pressWarned(.close)), "\(close.door)")
        c.warningShown(1, at: t(10))
        let open = c.judgeAndAccount(Array("12345O=1".utf8), from: owner, at: t(100))
        XCTAssertEqual(open.presses.map(\.door), [0], "the left door does not wait for the gate's warning")
        XCTAssertEqual(c.pressEnded(0, at: t(400)).doorIndex, 0)
        let left = c.tick(0, at: t(1_100))
        XCTAssertTrue(left.door.contains(.moved(.open, bySomeoneElse: false)), "\(left.door)")
        XCTAssertTrue(left.presses.isEmpty)
        XCTAssertEqual(c.doors[1].door.nextDeadline, t(5_010), "the gate's press is due a whole warning after it showed")
        XCTAssertEqual(c.nextDeadline, [c.doors[0].door.nextDeadline, c.doors[1].door.nextDeadline].compactMap { $0 }.min(),
                       "the loop's wait is the earliest of every door's")
        XCTAssertFalse(c.isDue(1, at: t(5_009)))
        XCTAssertTrue(c.isDue(1, at: t(5_010)))
        let gate = c.tick(1, at: t(5_010))
        XCTAssertEqual(gate.presses.map(\.door), [1])
        XCTAssertEqual(gate.presses.map(\.reason), [.close])
        XCTAssertEqual(c.door.position, .open, "the left door stayed where it went")
    }

    /// A fault on one door (both switches at once) refuses that door's presses and no other's.
    func testAFaultOnOneDoorRefusesOnlyThatDoor() throws {
        let both = DoorSensing(closedSwitch: true, openSwitch: true)
        let doors = [DoorUnit(door: Door(timing: timing, index: 0), id: "left"),
                     DoorUnit(door: Door(timing: timing, sensing: both, closed: true, open: true, index: 1), id: "gate")]
        var c = Controller(table: try PinTable(master: pin("12345"), capacity: 4), doors: doors, store: MemoryStore())
        XCTAssertEqual(c.doors[1].door.fault, .sensors)
        XCTAssertEqual(c.judgeAndAccount(Array("12345@gate:O=1".utf8), from: owner, at: t(0)).replies, [.error(.fault)])
        XCTAssertEqual(c.judgeAndAccount(Array("12345O=1".utf8), from: owner, at: t(0)).presses.map(\.door), [0])
        XCTAssertNil(c.status(0, at: t(0)).fault)
        XCTAssertEqual(c.status(1, at: t(0)).fault, .sensors)
        // The gate's switch moving changes the gate, never the left door.
        let before = c.doors[0].door
        _ = c.sensor(.open, of: 1, active: false, at: t(10))
        _ = c.tick(1, at: t(200))
        XCTAssertEqual(c.doors[0].door, before)
    }
}

import XCTest
@testable import DoorCore

/// A door a Security+ 2.0 opener reports, as HomeKit shows it: the lock of its remotes on the
/// garage door service (LockCurrentState, LockTargetState), its light as a Lightbulb, its motion
/// sensor as a MotionSensor; each read from the opener's reports, and the database's digest
/// (the configuration number) changing with them.
final class HAPOpenerTests: XCTestCase {
    private func id(_ aid: Int, _ iid: Int) -> HAPCharacteristicID { HAPCharacteristicID(aid: aid, iid: iid) }
    private let timing = DoorTiming(pulse: .milliseconds(300), travel: .seconds(10), autoClose: nil, warning: nil)

    private func database(opener: Bool, light: Bool = true) -> HAPDatabase {
        HAPDatabase(name: "Garage", doors: [.init(name: "Garage", has: opener ? .opener() : .relay(light: light))], firmware: "1.0", serial: "s")
    }

    func testAnOpenerDoorHasTheLockOnItsDoorServiceAndAMotionSensor() throws {
        let db = database(opener: true)
        XCTAssertEqual(db.characteristic(id(1, 21)), .lockCurrentState(door: 0))
        XCTAssertEqual(db.characteristic(id(1, 22)), .lockTargetState(door: 0))
        XCTAssertEqual(db.characteristic(id(1, 33)), .lightOn(door: 0))
        XCTAssertEqual(db.characteristic(id(1, 49)), .motionDetected(door: 0))
        XCTAssertEqual(db.notifying.map(\.0), [id(1, 17), id(1, 18), id(1, 19), id(1, 21), id(1, 22), id(1, 33), id(1, 49),
                                               id(1, 65), id(1, 66), id(1, 67)])
        XCTAssertTrue(HAPCharacteristic.lockTargetState(door: 0).writable)
        XCTAssertFalse(HAPCharacteristic.lockCurrentState(door: 0).writable)
        XCTAssertFalse(HAPCharacteristic.motionDetected(door: 0).writable)

        let doc = try JSONParser.parse(db.document { _ in .number(0) }.serialized)
        let services = try XCTUnwrap(doc["accessories"]?.arrayValue?.first?["services"]?.arrayValue)
        let door = try XCTUnwrap(services.first { $0["type"]?.stringValue == "41" })
        let lockTypes = door["characteristics"]?.arrayValue?.compactMap { $0["type"]?.stringValue }.filter { $0 == "1D" || $0 == "1E" }
        XCTAssertEqual(lockTypes, ["1D", "1E"], "the lock is on the garage door service")
        let chars = try XCTUnwrap(door["characteristics"]?.arrayValue)
        let current = try XCTUnwrap(chars.first { $0["iid"]?.intValue == 21 })
        XCTAssertEqual(current["format"]?.stringValue, "uint8")
        XCTAssertEqual(current["perms"]?.arrayValue?.compactMap(\.stringValue), ["pr", "ev"])
        XCTAssertEqual(current["maxValue"]?.intValue, 3)
        let target = try XCTUnwrap(chars.first { $0["iid"]?.intValue == 22 })
        XCTAssertEqual(target["perms"]?.arrayValue?.compactMap(\.stringValue), ["pr", "pw", "ev"])
        XCTAssertEqual(target["maxValue"]?.intValue, 1)
        let motion = try XCTUnwrap(services.first { $0["type"]?.stringValue == "85" })
        let detected = try XCTUnwrap(motion["characteristics"]?.arrayValue?.first { $0["type"]?.stringValue == "22" })
        XCTAssertEqual(detected["format"]?.stringValue, "bool")
        XCTAssertEqual(detected["perms"]?.arrayValue?.compactMap(\.stringValue), ["pr", "ev"])
        XCTAssertTrue(services.contains { $0["type"]?.stringValue == "43" }, "its light")
    }

    func testARelayDoorHasNoneOfItAndTheDigestTellsThemApart() {
        let relay = database(opener: false, light: false)
        XCTAssertNil(relay.characteristic(id(1, 21)))
        XCTAssertNil(relay.characteristic(id(1, 22)))
        XCTAssertNil(relay.characteristic(id(1, 49)))
        XCTAssertNotEqual(relay.digest, database(opener: true).digest, "an opener fitted is a new configuration number")
        XCTAssertNotEqual(database(opener: false).digest, database(opener: true).digest, "even with a light wired before")
        XCTAssertEqual(database(opener: true).digest, database(opener: true).digest)
        let two = HAPDatabase(name: "Garages", doors: [.init(name: "Left", has: .relay(light: false)), .init(name: "Right", has: .opener())],
                              firmware: "1.0", serial: "s")
        XCTAssertNil(two.characteristic(id(2, 21)), "the relay door has no lock")
        XCTAssertEqual(two.characteristic(id(3, 22)), .lockTargetState(door: 1))
        XCTAssertEqual(two.characteristic(id(3, 49)), .motionDetected(door: 1))
    }

    /// The lock reads unknown until the opener says, then what it says; the target follows it;
    /// motion, the light and the photo-eyes are the opener's.
    func testTheOpenersReportsAreWhatHomeKitReads() {
        var c = Controller(table: try! PinTable(master: PIN("12345")!, capacity: 4),
                           door: Door(timing: timing, sensing: .reported(by: "x", device: "/dev/ttyS0"), at: t(0)),
                           store: MemoryStore())
        _ = c.openerReported(.closed, obstructed: false, at: t(0))
        func view(_ ms: Int) -> HAPDoorView { HAPDoorView(c.status(at: t(ms))) }
        func read(_ ch: HAPCharacteristic, _ ms: Int) -> JSONValue { ch.value(among: [view(ms)]) }
        XCTAssertEqual(read(.lockCurrentState(door: 0), 0), .number(3), "not said yet: unknown")
        XCTAssertEqual(read(.lockTargetState(door: 0), 0), .number(0))
        c.openerReported(light: false, remotesLocked: false)
        XCTAssertEqual(read(.lockCurrentState(door: 0), 0), .number(0))
        XCTAssertEqual(read(.lightOn(door: 0), 0), .bool(false))
        c.openerReported(light: true, remotesLocked: true)
        XCTAssertEqual(read(.lockCurrentState(door: 0), 0), .number(1))
        XCTAssertEqual(read(.lockTargetState(door: 0), 0), .number(1))
        XCTAssertEqual(read(.lightOn(door: 0), 0), .bool(true))
        XCTAssertEqual(read(.motionDetected(door: 0), 0), .bool(false))
        c.openerSawMotion(at: t(1_000))
        XCTAssertEqual(read(.motionDetected(door: 0), 1_000), .bool(true))
        _ = c.openerReported(.closed, obstructed: true, at: t(2_000))
        XCTAssertEqual(read(.obstructionDetected(door: 0), 2_000), .bool(true), "its photo-eyes")
        XCTAssertEqual(view(2_000), HAPDoorView(current: 1, target: 1, obstruction: true, light: true, remotesLocked: true, motion: true))
        XCTAssertEqual(HAPCharacteristic.lockCurrentState(door: 0).value(in: nil), .number(3), "a door not known yet")
    }
}

import XCTest
@testable import DoorCore

/// The accessory as HomeKit reads it: the database's layout (one door, a light, a bridge for
/// several), its digest for the configuration number, the document `/accessories` answers,
/// how each door state reads, and identify.
final class HAPAccessoryTests: XCTestCase {
    private func id(_ aid: Int, _ iid: Int) -> HAPCharacteristicID { HAPCharacteristicID(aid: aid, iid: iid) }

    func testOneDoorIsOneGarageDoorOpenerAccessoryWithFixedInstanceIDs() {
        let db = HAPDatabase(name: "Garage", doors: [.init(name: "Garage", has: .relay(light: false))], firmware: "1.0", serial: "s")
        XCTAssertEqual(db.category, 4, "a garage door opener")
        XCTAssertEqual(db.characteristic(id(1, 17)), .currentDoorState(door: 0))
        XCTAssertEqual(db.characteristic(id(1, 18)), .targetDoorState(door: 0))
        XCTAssertEqual(db.characteristic(id(1, 19)), .obstructionDetected(door: 0))
        XCTAssertEqual(db.characteristic(id(1, 2)), .identify)
        XCTAssertNil(db.characteristic(id(1, 33)), "no light wired, no lightbulb")
        XCTAssertEqual(db.notifying.map(\.0), [id(1, 17), id(1, 18), id(1, 19)])
        XCTAssertEqual(db.aid(ofDoor: 0), 1)
    }

    func testALightIsALightbulbAndSeveralDoorsAreABridge() {
        let lit = HAPDatabase(name: "Garage", doors: [.init(name: "Garage", has: .relay(light: true))], firmware: "1.0", serial: "s")
        XCTAssertEqual(lit.characteristic(id(1, 33)), .lightOn(door: 0))
        let two = HAPDatabase(name: "Garages", doors: [.init(name: "Left", has: .relay(light: false)), .init(name: "Gate", has: .relay(light: true))],
                              firmware: "1.0", serial: "s")
        XCTAssertEqual(two.category, 2, "a bridge")
        XCTAssertNil(two.characteristic(id(1, 17)), "the bridge itself has no door")
        XCTAssertEqual(two.characteristic(id(2, 18)), .targetDoorState(door: 0))
        XCTAssertEqual(two.characteristic(id(3, 18)), .targetDoorState(door: 1))
        XCTAssertEqual(two.characteristic(id(3, 33)), .lightOn(door: 1))
        XCTAssertEqual(two.aid(ofDoor: 1), 3)
        XCTAssertNotEqual(lit.digest, two.digest)
    }

    /// The configuration number follows the digest: equal databases, equal digests; a door
    /// renamed or a light added is a new one.
    func testTheDigestChangesExactlyWhenTheDatabaseDoes() {
        func db(_ name: String, light: Bool) -> HAPDatabase {
            HAPDatabase(name: "Garage", doors: [.init(name: name, has: .relay(light: light))], firmware: "1.0", serial: "s")
        }
        XCTAssertEqual(db("Garage", light: false).digest, db("Garage", light: false).digest)
        XCTAssertNotEqual(db("Garage", light: false).digest, db("Barn", light: false).digest)
        XCTAssertNotEqual(db("Garage", light: false).digest, db("Garage", light: true).digest)
    }

    func testTheDocumentDescribesEachCharacteristicsFormatPermissionsAndValue() throws {
        let db = HAPDatabase(name: "Garage", doors: [.init(name: "Garage", has: .relay(light: false))], firmware: "1.0", serial: "s")
        let doc = db.document { c in c == .currentDoorState(door: 0) ? .number(2) : .null }
        let text = doc.serialized
        let parsed = try JSONParser.parse(text)
        let services = try XCTUnwrap(parsed["accessories"]?.arrayValue?.first?["services"]?.arrayValue)
        let door = try XCTUnwrap(services.first { $0["type"]?.stringValue == "41" })
        let chars = try XCTUnwrap(door["characteristics"]?.arrayValue)
        let current = try XCTUnwrap(chars.first { $0["iid"]?.intValue == 17 })
        XCTAssertEqual(current["format"]?.stringValue, "uint8")
        XCTAssertEqual(current["perms"]?.arrayValue?.compactMap(\.stringValue), ["pr", "ev"])
        XCTAssertEqual(current["value"]?.intValue, 2)
        XCTAssertEqual(current["maxValue"]?.intValue, 4)
        let target = try XCTUnwrap(chars.first { $0["iid"]?.intValue == 18 })
        XCTAssertEqual(target["perms"]?.arrayValue?.compactMap(\.stringValue), ["pr", "pw", "ev"])
        XCTAssertEqual(door["primary"], .bool(true))
        XCTAssertTrue(services.contains { $0["type"]?.stringValue == "3E" }, "AccessoryInformation")
    }

    /// Each state as HomeKit shows it (Open 0, Closed 1, Opening 2, Closing 3, Stopped 4); the
    /// target follows a door moved by hand; a warned close reads "Closing..." (still open,
    /// target closed); a close that did not finish is an obstruction until the door is seen closed.
    func testEachDoorStateReadsAsHomeKitsAndTheTargetFollowsTheDoor() {
        let timing = DoorTiming(pulse: .milliseconds(300), travel: .seconds(10), autoClose: nil, warning: .seconds(5))
        var controller = Controller(table: try! PinTable(master: PIN("12345")!, capacity: 4),
                                    door: Door(timing: timing, sensing: DoorSensing(closedSwitch: true, openSwitch: true),
                                               closed: true, at: t(0)),
                                    store: MemoryStore())
        func view(_ ms: Int) -> HAPDoorView {
            _ = controller.tick(at: t(ms))
            return HAPDoorView(controller.status(at: t(ms)))
        }
        XCTAssertEqual(view(0), HAPDoorView(current: 1, target: 1, obstruction: false, light: nil))
        _ = controller.sensor(.closed, active: false, at: t(1_000))  // by its remote
        XCTAssertEqual(view(1_000), HAPDoorView(current: 2, target: 0, obstruction: false, light: nil), "opening, and the target followed")
        _ = controller.sensor(.open, active: true, at: t(9_000))
        XCTAssertEqual(view(9_000), HAPDoorView(current: 0, target: 0, obstruction: false, light: nil))
        let close = controller.command(.close, from: RequestSource("homekit test", channel: nil), at: t(10_000), age: .zero)
        XCTAssertEqual(close.result, .ok)
        controller.warningShown(at: t(10_000))
        XCTAssertEqual(view(10_000), HAPDoorView(current: 0, target: 1, obstruction: false, light: nil), "warned: still open, target closed")
        XCTAssertEqual(view(15_000).current, 0, "pressed at the end of the warning; not yet off the switch")
        _ = controller.pressEnded(at: t(15_300))
        _ = controller.sensor(.open, active: false, at: t(16_000))
        XCTAssertEqual(view(16_000), HAPDoorView(current: 3, target: 1, obstruction: false, light: nil))
        // It never reaches the closed switch: a stopped door, and the failed close an obstruction.
        let stuck = view(40_000)
        XCTAssertEqual(stuck.current, 4)
        XCTAssertTrue(stuck.obstruction, "a close that did not reach CLOSED")
        _ = controller.sensor(.closed, active: true, at: t(50_000))
        XCTAssertEqual(view(50_000), HAPDoorView(current: 1, target: 1, obstruction: false, light: nil), "seen closed: cleared")
    }

    /// A repeated target is skipped only where the gate would do nothing with it (issue 30): a
    /// close of a door CLOSED or CLOSING. A door STOPPED halfway with target Open (a daemon
    /// started with the door off its only switch reads so) was left where it was when Siri
    /// asked to open it, and the write answered success; the gate presses for it. An open of
    /// an OPEN door restarts its auto-close countdown, as Home Assistant's OPEN does.
    func testARepeatedTargetIsSkippedOnlyWhereTheGateWouldDoNothing() {
        func view(_ current: Int, _ target: Int) -> HAPDoorView { HAPDoorView(current: current, target: target, obstruction: false, light: nil) }
        XCTAssertNil(view(4, 0).move(toTarget: 0), "a STOPPED door's own target written back: a reconnect's rewrite, never a press")
        XCTAssertNil(view(4, 1).move(toTarget: 1))
        XCTAssertEqual(view(4, 0).move(toTarget: 1), .close, "the other target moves it")
        XCTAssertEqual(view(4, 1).move(toTarget: 0), .open)
        XCTAssertEqual(view(0, 0).move(toTarget: 0), .open, "an OPEN door's countdown starts again")
        XCTAssertEqual(view(2, 0).move(toTarget: 0), .open, "an OPENING door's warned STOP is called off")
        XCTAssertEqual(view(0, 1).move(toTarget: 1), .close, "\"Closing...\" may be identify's warning, not a warned close")
        XCTAssertNil(view(1, 1).move(toTarget: 1), "CLOSED: nothing to do")
        XCTAssertNil(view(3, 1).move(toTarget: 1), "CLOSING: nothing to do")
        XCTAssertEqual(view(1, 1).move(toTarget: 0), .open)
        XCTAssertEqual(view(0, 0).move(toTarget: 1), .close)
    }

    func testIdentifyLightsTheLightForAMomentAndNeverPresses() {
        var door = Door(timing: DoorTiming(pulse: .milliseconds(300), travel: .seconds(10), autoClose: nil, light: .seconds(180)), at: t(0))
        let shown = door.identify(at: t(1_000))
        XCTAssertEqual(shown.reply, .ok)
        XCTAssertEqual(seen(shown.events), [.light(on: true)])
        XCTAssertEqual(seen(door.advance(to: t(3_999))), [])
        XCTAssertEqual(seen(door.advance(to: t(4_000))), [.light(on: false)], "off after \(Door.identifyFor)")
        XCTAssertEqual(door.position, .closed)
        var dark = Door(timing: DoorTiming(pulse: .milliseconds(300), travel: .seconds(10), autoClose: nil), at: t(0))
        XCTAssertEqual(dark.identify(at: t(0)).reply, .error(.command), "no light, no warning: nothing to show")
    }

    /// Without a light the warning sounds for a moment; a close asked meanwhile still waits for
    /// a whole warning from when the warning was confirmed on, and the warning stays on for it.
    func testIdentifyWithoutALightSoundsTheWarningAndACloseStillGetsAWholeWarning() {
        let timing = DoorTiming(pulse: .milliseconds(300), travel: .seconds(10), autoClose: nil, warning: .seconds(5))
        var door = Door(timing: timing, sensing: DoorSensing(openSwitch: true), open: true, at: t(0))
        XCTAssertEqual(seen(door.identify(at: t(1_000)).events), [.warning(on: true)])
        door.warningShown(at: t(1_000))
        XCTAssertEqual(seen(door.advance(to: t(4_000))), [.warning(on: false)], "off after \(Door.identifyFor)")
        XCTAssertEqual(seen(door.identify(at: t(10_000)).events), [.warning(on: true)])
        door.warningShown(at: t(10_000))
        XCTAssertEqual(door.request(open: false, at: t(12_000)).reply, .ok)
        XCTAssertEqual(pressed(door.advance(to: t(13_000))), [], "the identify's 3 s are over, the warning is not")
        XCTAssertTrue(door.warningOn, "it stays on for the close waiting for it")
        XCTAssertEqual(pressed(door.advance(to: t(14_999))), [])
        XCTAssertEqual(pressed(door.advance(to: t(15_000))), [.close], "a whole warning after it was confirmed on")
    }
}

import XCTest
@testable import DoorCore

/// What garaged tells Home Assistant, and the STOP it takes from it.
final class HomeAssistantTests: XCTestCase {
    func testDiscoveryIsOneDeviceWithACoverAndThreeSensors() {
        let ha = HomeAssistant(prefix: "garaged", discoveryPrefix: "homeassistant", node: "my door/1", name: "Garage",
                               commandsEnabled: false, version: "0.3.0")
        XCTAssertEqual(ha.node, "my_door_1", "topic-safe")
        let docs = ha.discovery()
        XCTAssertEqual(docs.map(\.topic), ["homeassistant/cover/my_door_1/door/config",
                                           "homeassistant/sensor/my_door_1/last_opened_by/config",
                                           "homeassistant/sensor/my_door_1/lockout/config",
                                           "homeassistant/sensor/my_door_1/fault/config"])
        let cover = docs[0].payload
        XCTAssertEqual(cover["device_class"]?.stringValue, "garage")
        XCTAssertEqual(cover["state_topic"]?.stringValue, "garaged/my_door_1/state")
        XCTAssertNil(cover["command_topic"], "read-only without commands")
        XCTAssertEqual(cover["availability_topic"]?.stringValue, "garaged/my_door_1/availability")
        for doc in docs { XCTAssertEqual(doc.payload["device"]?["identifiers"], .array([.string("garaged_my_door_1")])) }
        let commanding = HomeAssistant(prefix: "garaged", discoveryPrefix: "homeassistant", node: "d", name: "G",
                                       commandsEnabled: true, version: "0").discovery()[0].payload
        XCTAssertEqual(commanding["command_topic"]?.stringValue, "garaged/d/command")
        XCTAssertEqual(commanding["payload_stop"]?.stringValue, "STOP")
    }

    /// A door with a photo-eye gets an obstruction binary_sensor on the cover's device, with
    /// the cover's availability and a unique id derived from the cover's; a door without one
    /// gets none, and its topics are listed to be cleared (a config from before may have left them).
    func testAPhotoEyeIsAProblemSensorOnlyWhereOneIsWired() throws {
        let one = HomeAssistant(prefix: "garaged", discoveryPrefix: "homeassistant", node: "d", name: "G",
                                commandsEnabled: false, version: "0", covers: [.init(id: nil, name: nil, photoEye: true)])
        let docs = one.discovery()
        XCTAssertEqual(docs.map(\.topic), ["homeassistant/cover/d/door/config", "homeassistant/sensor/d/last_opened_by/config",
                                           "homeassistant/sensor/d/lockout/config", "homeassistant/sensor/d/fault/config",
                                           "homeassistant/binary_sensor/d/obstruction/config"])
        let cover = docs[0].payload, eye = try XCTUnwrap(docs.last?.payload)
        XCTAssertEqual(eye["name"]?.stringValue, "Obstruction")
        XCTAssertEqual(eye["device_class"]?.stringValue, "problem")
        XCTAssertEqual(eye["unique_id"]?.stringValue, (cover["unique_id"]?.stringValue ?? "") + "_obstruction")
        XCTAssertEqual(eye["state_topic"]?.stringValue, "garaged/d/obstruction")
        XCTAssertEqual(eye["payload_on"]?.stringValue, "ON")
        XCTAssertEqual(eye["payload_off"]?.stringValue, "OFF")
        for key in ["availability_topic", "payload_available", "payload_not_available", "device"] {
            XCTAssertEqual(eye[key], cover[key], key)
        }
        XCTAssertEqual(one.withoutPhotoEye, [], "nothing to clear: the sensor is published")

        let none = HomeAssistant(prefix: "garaged", discoveryPrefix: "homeassistant", node: "d", name: "G",
                                 commandsEnabled: false, version: "0")
        XCTAssertFalse(none.discovery().contains { $0.topic.contains("binary_sensor") || $0.topic.contains("obstruction") })
        XCTAssertEqual(none.withoutPhotoEye, ["homeassistant/binary_sensor/d/obstruction/config", "garaged/d/obstruction"])

        let two = HomeAssistant(prefix: "garaged", discoveryPrefix: "homeassistant", node: "d", name: "G",
                                commandsEnabled: false, version: "0",
                                covers: [.init(id: "left", name: nil), .init(id: "gate", name: "Front gate", photoEye: true)])
        let eyes = two.discovery().filter { $0.topic.contains("binary_sensor") }
        XCTAssertEqual(eyes.map(\.topic), ["homeassistant/binary_sensor/d/gate_obstruction/config"], "the gate's only")
        XCTAssertEqual(eyes.first?.payload["name"]?.stringValue, "Front gate: obstruction")
        XCTAssertEqual(eyes.first?.payload["unique_id"]?.stringValue, "garaged_d_gate_obstruction")
        XCTAssertEqual(eyes.first?.payload["state_topic"]?.stringValue, "garaged/d/gate/obstruction")
        XCTAssertEqual(two.withoutPhotoEye, ["homeassistant/binary_sensor/d/left_obstruction/config", "garaged/d/left/obstruction"])
        XCTAssertTrue(two.formerSingleDoor.contains("homeassistant/binary_sensor/d/obstruction/config"), "the one door's, cleared")
        XCTAssertTrue(two.formerSingleDoor.contains("garaged/d/obstruction"))
    }

    /// The beam's value comes from each door's status: OFF, ON while broken, OFF again, on
    /// that door's own topic; a door without a photo-eye has no such value.
    func testTheBeamIsRetainedFromEachDoorsStatus() throws {
        let timing = DoorTiming(pulse: .milliseconds(300), travel: .seconds(10), autoClose: nil, warning: nil)
        var c = Controller(table: try PinTable(master: pin("12345"), capacity: 4),
                           doors: [DoorUnit(door: Door(timing: timing), id: "left"),
                                   DoorUnit(door: Door(timing: timing, sensing: DoorSensing(obstructionSwitch: true), index: 1), id: "gate")],
                           store: MemoryStore())
        let ha = HomeAssistant(prefix: "garaged", discoveryPrefix: "homeassistant", node: "d", name: "G", commandsEnabled: false,
                               version: "0", covers: [.init(id: "left", name: nil), .init(id: "gate", name: nil, photoEye: true)])
        func beam(_ door: Int, at ms: Int) -> [String] {
            ha.retained(c.snapshot(at: t(ms)), at: t(ms)).filter { $0.topic.hasSuffix("/obstruction") && $0.topic.contains(door == 0 ? "/left/" : "/gate/") }.map { "\($0.topic)=\($0.value)" }
        }
        XCTAssertEqual(beam(0, at: 0), [], "no photo-eye, no value")
        XCTAssertEqual(beam(1, at: 0), ["garaged/d/gate/obstruction=OFF"])
        _ = c.sensor(.obstruction, of: 1, active: true, at: t(1_000))
        _ = c.tick(1, at: t(1_000))
        XCTAssertEqual(beam(1, at: 1_000), ["garaged/d/gate/obstruction=ON"])
        _ = c.sensor(.obstruction, of: 1, active: false, at: t(2_000))
        _ = c.tick(1, at: t(2_000))
        XCTAssertEqual(beam(1, at: 2_000), ["garaged/d/gate/obstruction=OFF"])
    }

    func testStatesAndCommands() {
        XCTAssertEqual(DoorPosition.allCases.map(HomeAssistant.state), ["closed", "opening", "open", "closing", "stopped"])
        XCTAssertEqual(HomeAssistant.command(Array("OPEN".utf8)), .open)
        XCTAssertEqual(HomeAssistant.command(Array("STOP".utf8)), .stop)
        XCTAssertNil(HomeAssistant.command(Array("open".utf8)))
        XCTAssertNil(HomeAssistant.command(Array("OPEN\n".utf8)))
    }

    /// STOP: a door at rest is left alone; a moving door gets one press (after the warning,
    /// since a press while it opens may reverse it) and is STOPPED, so a second STOP presses
    /// nothing; a warned close is called off without a press.
    func testStopPressesOnlyAMovingDoorOnceAndCallsOffAWarnedClose() {
        var c = Controller(table: try! PinTable(master: pin("12345"), capacity: 4),
                           door: Door(timing: DoorTiming(pulse: .milliseconds(300), travel: .seconds(10), autoClose: nil,
                                                         warning: .seconds(5))),
                           store: MemoryStore())
        let mqtt = RequestSource("mqtt", channel: nil)
        XCTAssertEqual(c.command(.stop, from: mqtt, at: t(0)).presses, [], "a door at rest is left alone")
        XCTAssertEqual(c.command(.open, from: mqtt, at: t(0)).presses.map(\.reason), [.open])
        _ = c.relayReleased(at: t(300))
        let stop = c.command(.stop, from: mqtt, at: t(1_000), wall: 7)
        XCTAssertEqual(seen(stop.door), [.warning(on: true), .pressWarned(.stop)])
        XCTAssertEqual(stop.records.last?.kind, .halt)
        XCTAssertEqual(stop.records.last?.source, "mqtt")
        c.warningShown(at: t(1_000))
        XCTAssertEqual(c.command(.stop, from: mqtt, at: t(2_000)).presses, [], "the STOP already waits for its warning")
        let pressed = c.tick(at: t(6_000))
        XCTAssertEqual(pressed.presses.map(\.reason), [.stop])
        XCTAssertEqual(c.door.position, .stopped)
        _ = c.relayReleased(at: t(6_300))
        for ms in [6_400, 6_500, 6_600] {
            XCTAssertEqual(c.command(.stop, from: mqtt, at: t(ms)).presses, [], "STOPPED: a repeated STOP presses nothing")
        }
        XCTAssertEqual(c.command(.open, from: mqtt, at: t(9_000), age: .seconds(3)).replies, [.error(.stale)])

        var warned = Controller(table: try! PinTable(master: pin("12345"), capacity: 4),
                                door: Door(timing: DoorTiming(pulse: .milliseconds(300), travel: .seconds(10), autoClose: nil,
                                                              warning: .seconds(5)), sensing: DoorSensing(openSwitch: true),
                                           open: true),
                                store: MemoryStore())
        XCTAssertEqual(seen(warned.command(.close, from: mqtt, at: t(0)).door), [.warning(on: true), .pressWarned(.close)])
        warned.warningShown(at: t(0))
        XCTAssertEqual(seen(warned.command(.stop, from: mqtt, at: t(1_000)).door),
                       [.pressCancelled(.close, "a stop request"), .warning(on: false)])
        XCTAssertEqual(warned.tick(at: t(60_000)).presses, [])
    }
}

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
                                commandsEnabled: false, version: "0", covers: [.init(id: nil, name: nil, has: .relay(photoEye: true))])
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
                                covers: [.init(id: "left", name: nil), .init(id: "gate", name: "Front gate", has: .relay(photoEye: true))])
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
                               version: "0", covers: [.init(id: "left", name: nil), .init(id: "gate", name: nil, has: .relay(photoEye: true))])
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

    /// A door an opener reports: its own photo-eyes are the obstruction sensor; its light is a
    /// light and the lock of its remotes a lock, both commandable only with commands on (sensors
    /// without: Home Assistant's light and lock need a command topic); its motion a motion
    /// sensor and its openings a total_increasing sensor, all on the cover's device.
    func testAnOpenerDoorHasItsLightLockMotionAndOpenings() throws {
        func ha(commands: Bool, _ covers: [HomeAssistant.Cover]) -> HomeAssistant {
            HomeAssistant(prefix: "garaged", discoveryPrefix: "homeassistant", node: "d", name: "G", commandsEnabled: commands,
                          version: "0", covers: covers)
        }
        let on = ha(commands: true, [.init(id: nil, name: nil, has: .opener())])
        let docs = on.discovery()
        XCTAssertEqual(docs.map(\.topic), ["homeassistant/cover/d/door/config", "homeassistant/sensor/d/last_opened_by/config",
                                           "homeassistant/sensor/d/lockout/config", "homeassistant/sensor/d/fault/config",
                                           "homeassistant/binary_sensor/d/obstruction/config", "homeassistant/light/d/light/config",
                                           "homeassistant/lock/d/remotes/config", "homeassistant/binary_sensor/d/motion/config",
                                           "homeassistant/sensor/d/openings/config", "homeassistant/sensor/d/battery/config"])
        func doc(_ topic: String, in docs: [(topic: String, payload: JSONValue)]) throws -> JSONValue {
            try XCTUnwrap(docs.first { $0.topic == topic }?.payload, topic)
        }
        let cover = docs[0].payload
        let light = try doc("homeassistant/light/d/light/config", in: docs)
        assertStrings(light, ["name": "Light", "unique_id": "garaged_d_door_light", "state_topic": "garaged/d/light",
                              "command_topic": "garaged/d/light/set", "payload_on": "ON", "payload_off": "OFF"])
        let lock = try doc("homeassistant/lock/d/remotes/config", in: docs)
        assertStrings(lock, ["unique_id": "garaged_d_door_remotes", "state_topic": "garaged/d/remotes", "command_topic": "garaged/d/remotes/set",
                             "payload_lock": "LOCK", "payload_unlock": "UNLOCK", "state_locked": "LOCKED", "state_unlocked": "UNLOCKED"])
        let motion = try doc("homeassistant/binary_sensor/d/motion/config", in: docs)
        assertStrings(motion, ["device_class": "motion", "state_topic": "garaged/d/motion"])
        let openings = try doc("homeassistant/sensor/d/openings/config", in: docs)
        assertStrings(openings, ["state_class": "total_increasing", "state_topic": "garaged/d/openings"])
        let battery = try doc("homeassistant/sensor/d/battery/config", in: docs)
        assertStrings(battery, ["name": "Backup battery", "unique_id": "garaged_d_door_battery", "state_topic": "garaged/d/battery",
                                "device_class": "enum"])
        XCTAssertEqual(battery["options"], .array([.string("charging"), .string("full")]))
        for entity in [light, lock, motion, openings, battery] {
            for key in ["availability_topic", "payload_available", "payload_not_available", "device"] { XCTAssertEqual(entity[key], cover[key], key) }
        }
        XCTAssertEqual(on.commandTopics, ["garaged/d/command", "garaged/d/light/set", "garaged/d/remotes/set"])
        XCTAssertEqual(on.withoutPhotoEye, [])
        XCTAssertEqual(on.withoutEntities, ["homeassistant/binary_sensor/d/light/config", "homeassistant/binary_sensor/d/remotes/config"],
                       "the read-only forms a config without commands left")

        // Without commands: nothing to command, so the light and the lock are binary sensors.
        let off = ha(commands: false, [.init(id: "gate", name: "Front gate", has: .opener())])
        let read = off.discovery()
        XCTAssertFalse(read.contains { $0.payload["command_topic"] != nil }, "no command topic anywhere")
        let readLight = try doc("homeassistant/binary_sensor/d/gate_light/config", in: read)
        assertStrings(readLight, ["device_class": "light", "name": "Front gate: light", "state_topic": "garaged/d/gate/light"])
        let readLock = try doc("homeassistant/binary_sensor/d/gate_remotes/config", in: read)
        XCTAssertEqual(readLock["device_class"]?.stringValue, "lock")
        XCTAssertEqual(readLock["payload_on"]?.stringValue, "UNLOCKED", "Home Assistant's lock class is on when unlocked")
        XCTAssertEqual(readLock["payload_off"]?.stringValue, "LOCKED")
        XCTAssertEqual(try doc("homeassistant/sensor/d/gate_openings/config", in: read)["name"]?.stringValue, "Front gate: openings")
        XCTAssertEqual(off.commandTopics, ["garaged/d/gate/command", "garaged/d/gate/light/set", "garaged/d/gate/remotes/set"],
                       "what garaged would take; subscribed only with commands on")
        XCTAssertEqual(off.withoutEntities, ["homeassistant/light/d/gate_light/config", "homeassistant/lock/d/gate_remotes/config"])

        // A wired light alone: a light, no lock, motion nor openings; a plain door: none, all cleared.
        let wired = ha(commands: true, [.init(id: nil, name: nil, has: .relay(light: true))])
        XCTAssertEqual(wired.discovery().map(\.topic).filter { !$0.contains("/sensor/") && !$0.contains("/cover/") },
                       ["homeassistant/light/d/light/config"])
        XCTAssertEqual(wired.commandTopics, ["garaged/d/command", "garaged/d/light/set"])
        XCTAssertTrue(wired.withoutEntities.contains("garaged/d/remotes"))
        XCTAssertTrue(wired.withoutEntities.contains("homeassistant/lock/d/remotes/config"))
        let plain = ha(commands: true, [.init(id: nil, name: nil)])
        XCTAssertEqual(Set(plain.withoutEntities), [
            "garaged/d/light", "garaged/d/remotes", "garaged/d/motion", "garaged/d/openings", "garaged/d/battery",
            "homeassistant/light/d/light/config", "homeassistant/binary_sensor/d/light/config", "homeassistant/lock/d/remotes/config",
            "homeassistant/binary_sensor/d/remotes/config", "homeassistant/binary_sensor/d/motion/config",
            "homeassistant/sensor/d/openings/config", "homeassistant/sensor/d/battery/config",
        ])
        let named = ha(commands: true, [.init(id: "left", name: nil), .init(id: "gate", name: nil, has: .opener())])
        XCTAssertTrue(named.formerSingleDoor.contains("homeassistant/lock/d/remotes/config"), "the one door's, cleared")
        XCTAssertTrue(named.formerSingleDoor.contains("garaged/d/openings"))
        XCTAssertTrue(named.withoutEntities.contains("homeassistant/lock/d/left_remotes/config"))
        XCTAssertFalse(named.withoutEntities.contains { $0.contains("lock/d/gate_remotes") || $0.hasPrefix("garaged/d/gate/") },
                       "the gate's lock and values are kept")
    }

    /// Each command topic takes exactly its payloads and names the door; anything else is
    /// refused with what it takes, and a topic that is not a command topic is not a command.
    func testCommandsOfTheLightAndTheLockAreParsedPerDoor() {
        let ha = HomeAssistant(prefix: "garaged", discoveryPrefix: "homeassistant", node: "d", name: "G", commandsEnabled: true,
                               version: "0", covers: [.init(id: "left", name: nil, has: .relay(light: true)), .init(id: "gate", name: nil, has: .opener())])
        func parse(_ topic: String, _ payload: String) -> HomeAssistant.Parsed { ha.parse(topic: topic, payload: Array(payload.utf8)) }
        XCTAssertEqual(parse("garaged/d/gate/command", "OPEN"), .ask(.move(.open, door: 1)))
        XCTAssertEqual(parse("garaged/d/left/command", "open"), .unknown(expected: "OPEN, CLOSE or STOP"))
        XCTAssertEqual(parse("garaged/d/left/light/set", "ON"), .ask(.light(true, door: 0)))
        XCTAssertEqual(parse("garaged/d/gate/light/set", "OFF"), .ask(.light(false, door: 1)))
        XCTAssertEqual(parse("garaged/d/gate/light/set", "on"), .unknown(expected: "ON or OFF"))
        XCTAssertEqual(parse("garaged/d/gate/remotes/set", "LOCK"), .ask(.remotes(locked: true, door: 1)))
        XCTAssertEqual(parse("garaged/d/gate/remotes/set", "UNLOCK"), .ask(.remotes(locked: false, door: 1)))
        XCTAssertEqual(parse("garaged/d/gate/remotes/set", "LOCK\n"), .unknown(expected: "LOCK or UNLOCK"))
        XCTAssertEqual(parse("garaged/d/left/remotes/set", "LOCK"), .notACommandTopic, "the left door has no opener")
        XCTAssertEqual(parse("garaged/d/gate/light", "ON"), .notACommandTopic, "a state topic")
        XCTAssertEqual(parse("homeassistant/status", "online"), .notACommandTopic)
    }

    /// The opener's light, the lock of its remotes, its motion and its openings come from the
    /// door's status: each on its own topic, the lock and the count once the opener said them,
    /// and only what changed between two snapshots.
    func testTheOpenersValuesAreRetainedFromTheStatus() throws {
        let timing = DoorTiming(pulse: .milliseconds(300), travel: .seconds(10), autoClose: nil, warning: nil)
        var c = Controller(table: try PinTable(master: pin("12345"), capacity: 4),
                           doors: [DoorUnit(door: Door(timing: timing), id: "left"),
                                   DoorUnit(door: Door(timing: timing, sensing: .reported(by: "opener", device: "/dev/pty"),
                                                       index: 1), id: "gate")],
                           store: MemoryStore())
        let ha = HomeAssistant(prefix: "garaged", discoveryPrefix: "homeassistant", node: "d", name: "G", commandsEnabled: true,
                               version: "0", covers: [.init(id: "left", name: nil), .init(id: "gate", name: nil, has: .opener())])
        let kept = ["/light", "/remotes", "/motion", "/openings", "/obstruction"]
        func values(_ snapshot: StatusSnapshot, _ old: StatusSnapshot? = nil, at ms: Int) -> [String] {
            ha.retained(from: old, to: snapshot, at: t(ms)).filter { v in kept.contains { v.topic.hasSuffix($0) } }.map { "\($0.topic)=\($0.value)" }
        }
        let first = c.snapshot(at: t(0))
        XCTAssertEqual(values(first, at: 0), ["garaged/d/gate/obstruction=OFF", "garaged/d/gate/light=OFF", "garaged/d/gate/motion=OFF"],
                       "the left door has none; the lock and the count once the opener says them")
        _ = c.openerReported(.closed, obstructed: false, of: 1, at: t(100))
        c.openerReported(light: true, remotesLocked: true, of: 1)
        c.openerCounted(openings: 41, of: 1)
        c.openerSawMotion(of: 1, at: t(100))
        let second = c.snapshot(at: t(100))
        XCTAssertEqual(values(second, first, at: 100), ["garaged/d/gate/light=ON", "garaged/d/gate/remotes=LOCKED",
                                                        "garaged/d/gate/motion=ON", "garaged/d/gate/openings=41"])
        _ = c.openerReported(.closed, obstructed: true, of: 1, at: t(200))
        c.openerReported(light: true, remotesLocked: false, of: 1)
        c.openerCounted(openings: 42, of: 1)
        _ = c.tick(1, at: t(200))
        let third = c.snapshot(at: t(200))
        XCTAssertEqual(values(third, second, at: 200), ["garaged/d/gate/obstruction=ON", "garaged/d/gate/remotes=UNLOCKED",
                                                       "garaged/d/gate/openings=42"])
        _ = c.tick(1, at: t(100 + 60_000))
        XCTAssertEqual(values(c.snapshot(at: t(60_100)), third, at: 60_100).filter { $0.contains("motion") }, ["garaged/d/gate/motion=OFF"],
                       "motion lasts motion-s")
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
        _ = c.pressEnded(at: t(300))
        let stop = c.command(.stop, from: mqtt, at: t(1_000), wall: 7)
        XCTAssertEqual(seen(stop.door), [.warning(on: true), .pressWarned(.stop)])
        XCTAssertEqual(stop.records.last?.kind, .halt)
        XCTAssertEqual(stop.records.last?.source, "mqtt")
        c.warningShown(at: t(1_000))
        XCTAssertEqual(c.command(.stop, from: mqtt, at: t(2_000)).presses, [], "the STOP already waits for its warning")
        let pressed = c.tick(at: t(6_000))
        XCTAssertEqual(pressed.presses.map(\.reason), [.stop])
        XCTAssertEqual(c.door.position, .stopped)
        _ = c.pressEnded(at: t(6_300))
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

    /// Asserts a discovery document's string fields, each named when it differs.
    private func assertStrings(_ doc: JSONValue, _ expected: KeyValuePairs<String, String>, file: StaticString = #filePath, line: UInt = #line) {
        for (key, value) in expected { XCTAssertEqual(doc[key]?.stringValue, value, key, file: file, line: line) }
    }
}

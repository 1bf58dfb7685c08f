import XCTest
@testable import DoorCore

/// Issue 38, item 4: what a door has is said once (`DoorCapabilities`), and a door without a
/// part shows it nowhere: not in its status record, not in HomeKit's database, not in Home
/// Assistant's discovery or retained values; asked for it, it refuses saying what it lacks.
final class DoorCapabilitiesTests: XCTestCase {
    private let owner = RequestSource("local uid=0", channel: nil, isLocal: true)
    private let timing = DoorTiming(pulse: .milliseconds(300), travel: .seconds(10), autoClose: nil)

    /// One door, its controller, its HomeKit database and its Home Assistant documents, all from
    /// the same table (`Door.capabilities`), as the daemon builds them from a door's settings.
    private struct Views {
        var controller: Controller
        let database: HAPDatabase
        let ha: HomeAssistant

        init(_ door: Door) throws {
            controller = Controller(table: try PinTable(master: pin("12345"), capacity: 4), door: door, store: MemoryStore())
            database = HAPDatabase(name: "Garage", doors: [.init(name: "Garage", has: door.capabilities)], firmware: "1", serial: "s")
            ha = HomeAssistant(prefix: "garaged", discoveryPrefix: "homeassistant", node: "d", name: "G", commandsEnabled: true,
                               version: "0", covers: [.init(id: nil, name: nil, has: door.capabilities)])
        }

        /// The door's status record as `Lstatus` answers it.
        func record(at now: Instant) -> JSONValue { controller.snapshot(at: now).record(door: 0, at: now) }

        /// Every service type and characteristic type HomeKit is shown.
        func homeKitTypes() throws -> (services: [String], characteristics: [String]) {
            let doc = try JSONParser.parse(database.document { _ in .number(0) }.serialized)
            let services = try XCTUnwrap(doc["accessories"]?.arrayValue?.first?["services"]?.arrayValue)
            return (services.compactMap { $0["type"]?.stringValue },
                    services.flatMap { $0["characteristics"]?.arrayValue ?? [] }.compactMap { $0["type"]?.stringValue })
        }

        /// The last part of every discovery topic's object (`light`, `remotes`, `motion`...).
        var discovered: [String] {
            ha.discovery().map { $0.topic.split(separator: "/").dropLast().last.map(String.init) ?? "" }
        }

        /// Every retained value's topic, after the node.
        func retained(at now: Instant) -> [String] {
            ha.retained(controller.snapshot(at: now), at: now).map { String($0.topic.dropFirst("garaged/d/".count)) }
        }
    }

    func testTheTableFollowsTheSettingsAndTheOpenersKind() {
        XCTAssertEqual(Door(timing: timing).capabilities, DoorCapabilities(position: .believed), "a bare relay door has nothing")
        var wired = timing
        wired.light = .seconds(60)
        wired.warning = .seconds(5)
        XCTAssertEqual(Door(timing: wired, sensing: DoorSensing(closedSwitch: true, obstructionSwitch: true)).capabilities,
                       DoorCapabilities(position: .switches, light: .wired, obstruction: .wired, warning: .output))

        let two = DoorCapabilities.opener(.secPlus2)
        XCTAssertEqual(two, DoorCapabilities(position: .opener, light: .opener, remotesLock: true, motion: true, obstruction: .opener,
                                             openings: true, battery: true, warning: .openerLight, openerTitle: "Security+ 2.0"))
        let one = DoorCapabilities.opener(.secPlus1)
        XCTAssertEqual(one, DoorCapabilities(position: .opener, light: .opener, remotesLock: true, motion: false, obstruction: .opener,
                                             openings: false, battery: false, warning: .openerLight, openerTitle: "Security+ 1.0"),
                       "Security+ 1.0: no motion sensor, no count of openings, no battery")
        var warned = timing
        warned.warning = .seconds(5)
        XCTAssertEqual(Door(timing: warned, sensing: .reported(by: "x")).capabilities.warning, .output, "a warn output beside an opener")
        XCTAssertEqual(one.parts.map { "\($0.0.rawValue)=\($0.1)" },
                       ["light=opener", "remotes_lock=opener", "obstruction=opener", "warning=opener-light"])
    }

    /// A relay door without a light, photo-eye or opener: no light, lock, motion, obstruction,
    /// openings or battery anywhere, and `L=1` and `Lremotes` refused saying what it lacks.
    func testARelayDoorWithoutALightShowsNoneOfTheParts() throws {
        var v = try Views(Door(timing: timing))
        let record = v.record(at: t(0))
        XCTAssertEqual(record["mode"], .string("believed"))
        XCTAssertEqual(record["parts"], .object([]))
        XCTAssertEqual(record["light"], .null, "the record's light: none")
        XCTAssertNil(record["opener"])
        XCTAssertNil(record["sensors"]?["obstruction"])

        let hk = try v.homeKitTypes()
        XCTAssertEqual(hk.services, ["3E", "A2", "41"], "the door alone: no Lightbulb, MotionSensor or Battery")
        for type in ["25", "1D", "1E", "22", "68", "8F", "79"] { XCTAssertFalse(hk.characteristics.contains(type), type) }

        XCTAssertEqual(v.discovered, ["door", "last_opened_by", "lockout", "fault"])
        XCTAssertEqual(v.ha.commandTopics, ["garaged/d/command"])
        XCTAssertEqual(v.retained(at: t(0)), ["lockout", "state", "last_opened_by", "fault"])
        for gone in ["garaged/d/light", "garaged/d/remotes", "garaged/d/motion", "garaged/d/openings",
                     "homeassistant/light/d/light/config", "homeassistant/sensor/d/openings/config"] {
            XCTAssertTrue(v.ha.withoutEntities.contains(gone), "cleared at connect: \(gone)")
        }

        let light = v.controller.judgeAndAccount(Array("12345L=1".utf8), from: owner, at: t(10))
        XCTAssertEqual(light.replies, [.error(.command)])
        XCTAssertEqual(light.refusal, DoorCapabilities().lacking(.light))
        XCTAssertTrue(light.refusal?.contains("light = CHIP:LINE") == true, light.refusal ?? "")
        let remotes = v.controller.judgeAndAccount(Array("12345Lremotes lock".utf8), from: owner, at: t(20))
        XCTAssertEqual(remotes.replies, [.error(.command)])
        XCTAssertTrue(remotes.refusal?.contains("no opener whose remotes") == true, remotes.refusal ?? "")
    }

    /// A Security+ 1.0 opener's door: its light, lock and photo-eyes everywhere; its motion and
    /// openings nowhere, even when something on the wire claims them.
    func testASecurityPlusOneDoorHasNoMotionOpeningsOrBattery() throws {
        var d = Door(timing: timing, sensing: .reported(by: "the Security+ 1.0 opener on /dev/ttyS0", kind: .secPlus1, device: "/dev/ttyS0"),
                     at: t(0))
        _ = d.openerReported(.closed, obstructed: false, at: t(0))
        d.openerReported(light: true, remotesLocked: true)
        d.openerSawMotion(at: t(0))
        d.openerCounted(openings: 12)
        XCTAssertNil(d.motion(at: t(0)))
        XCTAssertNil(d.openings)
        var v = try Views(d)
        let record = v.record(at: t(0))
        XCTAssertEqual(record["opener"]?.serialized,
                       #"{"protocol":"secplus1","device":"/dev/ttyS0","state":"connected","remotes_locked":true}"#)
        XCTAssertEqual(record["parts"]?.serialized, #"{"light":"opener","remotes_lock":"opener","obstruction":"opener"}"#)
        XCTAssertEqual(record["light"], .bool(true))

        let hk = try v.homeKitTypes()
        XCTAssertEqual(hk.services, ["3E", "A2", "41", "43"], "the Lightbulb, no MotionSensor, no Battery")
        XCTAssertTrue(hk.characteristics.contains("1D") && hk.characteristics.contains("1E"), "the lock on the door's service")

        XCTAssertEqual(v.discovered, ["door", "last_opened_by", "lockout", "fault", "obstruction", "light", "remotes"])
        XCTAssertEqual(v.retained(at: t(0)), ["lockout", "state", "last_opened_by", "fault", "obstruction", "light", "remotes"])
        XCTAssertTrue(v.ha.withoutEntities.contains("garaged/d/motion"))
        XCTAssertTrue(v.ha.withoutEntities.contains("homeassistant/sensor/d/openings/config"))
        XCTAssertTrue(v.ha.withoutEntities.contains("homeassistant/sensor/d/battery/config"))

        XCTAssertEqual(v.controller.judgeAndAccount(Array("12345Lremotes unlock".utf8), from: owner, at: t(10)).replies, [.ok])
    }

    /// An `auto` door, even once a search found Security+ 2.0: what both wires have, never a
    /// motion sensor, count of openings or battery; while searching the gate refuses every press
    /// naming the search and the device, and the record says so.
    func testAnAutoDoorShowsWhatBothWiresHaveAndRefusesWhileSearching() throws {
        var d = Door(timing: timing, sensing: .reported(by: "the Security+ opener on /dev/ttyAMA0 (found by auto)", kind: .auto, device: "/dev/ttyAMA0"),
                     at: t(0))
        let searching = OpenerIdentity(kind: nil, how: "Security+ 2.0 at 9600 8N1, asked GET_STATUS", device: "/dev/ttyAMA0")
        d.openerIdentified(searching)
        XCTAssertEqual(d.refusal(.open, automatic: false, age: nil), .openerSearching(searching))
        XCTAssertEqual(PressRefusal.openerSearching(searching).reply, .error(.fault))
        XCTAssertTrue(PressRefusal.openerSearching(searching).words.contains("still searching for the wire of the opener on /dev/ttyAMA0"))
        XCTAssertEqual(try Views(d).record(at: t(0))["opener"]?.serialized,
                       #"{"protocol":"auto","device":"/dev/ttyAMA0","state":"searching","found":"searching: Security+ 2.0 at 9600 8N1, asked GET_STATUS","remotes_locked":null}"#)

        d.openerIdentified(OpenerIdentity(kind: .secPlus2, how: "an answer to GET_STATUS", device: "/dev/ttyAMA0"))
        _ = d.openerAnswered(true)
        _ = d.openerReported(.closed, obstructed: false, at: t(0))
        d.openerSawMotion(at: t(0))
        d.openerCounted(openings: 12)
        XCTAssertNil(d.refusal(.open, automatic: false, age: nil))
        let v = try Views(d)
        XCTAssertEqual(v.record(at: t(0))["opener"]?.serialized,
                       #"{"protocol":"secplus2","device":"/dev/ttyAMA0","state":"connected","found":"found by auto: an answer to GET_STATUS","remotes_locked":null}"#)
        XCTAssertEqual(v.record(at: t(0))["parts"]?.serialized, #"{"light":"opener","remotes_lock":"opener","obstruction":"opener"}"#)
        XCTAssertEqual(try v.homeKitTypes().services, ["3E", "A2", "41", "43"], "no MotionSensor, no Battery")
    }

    /// A Security+ 2.0 opener's door has every part, each shown once.
    func testASecurityPlusTwoDoorHasEveryPart() throws {
        var d = Door(timing: timing, sensing: .reported(by: "the Security+ 2.0 opener on /dev/ttyS0", device: "/dev/ttyS0"), at: t(0))
        _ = d.openerReported(.closed, obstructed: false, at: t(0))
        d.openerReported(light: false, remotesLocked: false)
        d.openerCounted(openings: 12)
        let v = try Views(d)
        XCTAssertEqual(v.record(at: t(0))["opener"]?.serialized,
                       #"{"protocol":"secplus2","device":"/dev/ttyS0","state":"connected","remotes_locked":false,"motion":false,"openings":12}"#)
        XCTAssertEqual(try v.homeKitTypes().services, ["3E", "A2", "41", "43", "85", "96"], "its battery's BatteryService too")
        XCTAssertEqual(v.discovered, ["door", "last_opened_by", "lockout", "fault", "obstruction", "light", "remotes", "motion", "openings",
                                      "battery"])
        XCTAssertEqual(v.ha.withoutEntities.filter { !$0.hasSuffix("/config") }, [], "no value to clear: it has every part")
    }

    /// Issue 38, item 2: the opener's backup battery is the door's where its kind has one: in
    /// the status record once said (absent before), HomeKit's BatteryService (level, charging
    /// state, never low: the opener says no more), Home Assistant's sensor; a Security+ 1.0
    /// door ignores it.
    func testTheBackupBatteryIsInEveryViewOnceSaid() throws {
        var v = try Views(Door(timing: timing, sensing: .reported(by: "x", device: "/dev/ttyS0"), at: t(0)))
        _ = v.controller.openerReported(.closed, obstructed: false, at: t(0))
        let unsaid = v.controller.snapshot(at: t(0))
        XCTAssertNil(unsaid.doors[0].opener?.battery)
        XCTAssertNil(v.record(at: t(0))["opener"]?["battery"], "absent until the opener says it")
        XCTAssertFalse(v.retained(at: t(0)).contains("battery"))
        let level = HAPCharacteristic.batteryLevel(door: 0), charging = HAPCharacteristic.chargingState(door: 0)
        let low = HAPCharacteristic.statusLowBattery(door: 0)
        let before = HAPDoorView(unsaid.doors[0])
        XCTAssertEqual([level, charging, low].map { $0.value(in: before) }, [.number(0), .number(2), .number(0)],
                       "not said: no level, not chargeable, not low")

        v.controller.openerReported(battery: .charging, of: 0)
        let said = v.controller.snapshot(at: t(10))
        XCTAssertEqual(v.record(at: t(10))["opener"]?["battery"], .string("charging"))
        XCTAssertEqual(v.ha.retained(from: unsaid, to: said, at: t(10)).map { "\($0.topic)=\($0.value)" }, ["garaged/d/battery=charging"])
        XCTAssertEqual([level, charging, low].map { $0.value(in: HAPDoorView(said.doors[0])) }, [.number(50), .number(1), .number(0)])
        v.controller.openerReported(battery: .full, of: 0)
        let full = HAPDoorView(v.controller.snapshot(at: t(20)).doors[0])
        XCTAssertEqual([level, charging, low].map { $0.value(in: full) }, [.number(100), .number(0), .number(0)])
        v.controller.openerReported(battery: nil, of: 0)
        XCTAssertNil(v.record(at: t(30))["opener"]?["battery"], "it said it does not know: absent again")

        let chars = try XCTUnwrap(JSONParser.parse(v.database.document { _ in .number(0) }.serialized)["accessories"]?.arrayValue?.first?["services"]?
            .arrayValue?.first { $0["type"]?.stringValue == "96" }?["characteristics"]?.arrayValue)
        XCTAssertEqual(chars.compactMap { $0["type"]?.stringValue }, ["68", "8F", "79", "23"])
        XCTAssertEqual(chars[0]["unit"]?.stringValue, "percentage")
        XCTAssertEqual(chars[0]["maxValue"]?.intValue, 100)
        XCTAssertEqual(chars[1]["maxValue"]?.intValue, 2)
        XCTAssertEqual(chars.prefix(3).map { $0["perms"]?.arrayValue?.compactMap(\.stringValue) ?? [] }, [["pr", "ev"], ["pr", "ev"], ["pr", "ev"]])

        var one = Door(timing: timing, sensing: .reported(by: "y", kind: .secPlus1), at: t(0))
        one.openerReported(battery: .full)
        XCTAssertNil(one.battery, "Security+ 1.0 has no battery on its wire")
    }
}

import Foundation
import XCTest

/// A Security+ 2.0 opener's backup battery (issue 38, item 2), on the real binary against
/// Tests/secplus/fakeopener.py: garaged asks GET_BATTERY (nibble 5) once the opener answers, and
/// what the opener says, asked or by itself, is in the status record and `garage-pins status`,
/// HomeKit's BatteryService (read by aiohomekit) and Home Assistant's battery sensor.
final class OpenerBatteryTests: GaragedTestCase {
    /// The one door's BatteryService: BatteryLevel, ChargingState, StatusLowBattery.
    static let level = "1.65", charging = "1.66", low = "1.67"

    func testTheBatteryIsInTheStatusRecordAndGaragePinsSaysIt() throws {
        try initTable()
        try startOpener(["--battery", "charging"])
        let daemon = try startGaragedWithOpener()
        XCTAssertTrue(waitUntil("the opener's battery in the status record", timeout: .seconds(10)) {
            doorStatus(daemon).contains(#""openings":17,"battery":"charging"}"#)
        }, doorStatus(daemon))
        XCTAssertTrue(doorStatus(daemon).contains(#""battery":"opener""#), "the door's parts: \(doorStatus(daemon))")
        let asks = openerPackets().filter { $0.name == "GET_BATTERY" && $0.accepted == true }
        XCTAssertEqual(asks.map(\.nibble), [5], "asked once, as a wall panel asks it")
        XCTAssertTrue(waitUntil("the log line", timeout: .seconds(5)) { daemon.log.contains("opener-battery") && daemon.log.contains("battery=charging") },
                      daemon.log)

        try tell("battery full")
        XCTAssertTrue(waitUntil("full, said by the opener unasked", timeout: .seconds(5)) {
            doorStatus(daemon).contains(#""battery":"full"}"#)
        }, doorStatus(daemon))
        let status = try pins(daemon, ["status"])
        assertExit(status, 0)
        let table = squeezed(status.stdout)
        XCTAssertTrue(table.contains("\nbattery full\n"), status.stdout)
        XCTAssertTrue(table.contains("the opener's backup battery"), "what the door has: \(status.stdout)")
        XCTAssertTrue(table.contains("\nremotes unlocked\n") && table.contains("\nopenings 17\n"), status.stdout)
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// An opener that says nothing of a battery: the record has none, and nothing says one.
    func testAnOpenerWithoutABatteryHasNoneInTheRecord() throws {
        try initTable()
        try startOpener()
        let daemon = try startGaragedWithOpener()
        XCTAssertTrue(waitUntil("the opener connected, its count known and its battery asked", timeout: .seconds(10)) {
            doorStatus(daemon).contains(#""openings":17}"#) && openerPackets().contains { $0.name == "GET_BATTERY" }
        }, doorStatus(daemon))
        XCTAssertFalse(doorStatus(daemon).contains(#""battery":"charging""#) || doorStatus(daemon).contains(#""battery":"full""#))
        XCTAssertFalse(squeezed(try pins(daemon, ["status"]).stdout).contains("\nbattery "))
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    func testHomeKitReadsTheBatteryService() throws {
        _ = try python()  // skipped, not failed, without aiohomekit
        try initTable()
        try startOpener(["--battery", "charging"])
        let daemon = try startGaragedWithOpener(["--homekit", "--homekit-port", "0", "--homekit-bind", "127.0.0.1"],
                                                name: "garaged-opener-homekit")
        XCTAssertTrue(waitUntil("the battery said", timeout: .seconds(10)) { doorStatus(daemon).contains(#""battery":"charging""#) },
                      doorStatus(daemon))
        XCTAssertEqual(try homekitPair(daemon).termination, .exited(0))
        let port = try homekitPort(daemon)

        // Parsed, and so validated, by aiohomekit's model.
        let accessories = try hap(["accessories", "--pairing", pairingFile, "--port", port])
        XCTAssertEqual(accessories.termination, .exited(0), accessories.stdout + accessories.stderr)
        let services = (((json(accessories.stdout) as? [String: Any])?["accessories"] as? [[String: Any]])?.first?["services"] as? [[String: Any]]) ?? []
        let battery = services.first { ($0["type"] as? String)?.uppercased().hasPrefix("00000096") == true || ($0["type"] as? String) == "96" }
        let types = (battery?["characteristics"] as? [[String: Any]] ?? []).compactMap { $0["type"] as? String }
        XCTAssertEqual(types.count, 4, "BatteryLevel, ChargingState, StatusLowBattery, Name: \(services)")

        let read = ["get", "--pairing", pairingFile, "--port", port, "--char", Self.level, "--char", Self.charging, "--char", Self.low]
        let first = try hap(read)
        XCTAssertEqual(homekitValues(first), [Self.level: 50, Self.charging: 1, Self.low: 0], "charging: " + first.stdout + first.stderr)

        let ready = dir + "/watching"
        let watch = try spawn(try python(), [hapctl, "watch", "--pairing", pairingFile, "--port", port, "--char", Self.charging,
                                             "--until", Self.charging + "=0", "--ready-file", ready, "--timeout", "30"],
                              name: "hapctl-watch-battery")
        XCTAssertTrue(waitUntil("the subscription", timeout: .seconds(20)) { FileManager.default.fileExists(atPath: ready) })
        try tell("battery full")
        XCTAssertEqual(watch.waitForExit(timeout: .seconds(30)), .exited(0), "ChargingState's event: " + watch.stdout + watch.stderr)
        XCTAssertEqual(homekitValues(try hap(read)), [Self.level: 100, Self.charging: 0, Self.low: 0], "full")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    func testHomeAssistantHasTheBatterySensor() throws {
        try initTable()
        let broker = try MQTTBroker(self)
        try startOpener(["--battery", "charging"])
        let node = "batterydoor"
        let daemon = try startGaragedWithOpener(["--mqtt", broker.url, "--mqtt-client-id", node], name: "garaged-opener-mqtt")
        let held = broker.waitForRetained(["homeassistant/#", "garaged/\(node)/#"], "the battery sensor and its value") {
            $0["garaged/\(node)/battery"] == "charging" && $0["homeassistant/sensor/\(node)/battery/config"] != nil
        }
        let config = (json(held["homeassistant/sensor/\(node)/battery/config"] ?? "") as? [String: Any]) ?? [:]
        XCTAssertEqual(config["state_topic"] as? String, "garaged/\(node)/battery")
        XCTAssertEqual(config["device_class"] as? String, "enum")
        XCTAssertEqual(config["options"] as? [String], ["charging", "full"])
        try tell("battery full")
        broker.waitForRetained(["garaged/\(node)/battery"], "full") { $0["garaged/\(node)/battery"] == "full" }
        XCTAssertEqual(daemon.stop(), .exited(0))
    }
}

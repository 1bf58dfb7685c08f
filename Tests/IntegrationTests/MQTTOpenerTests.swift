import Foundation
import XCTest

/// Home Assistant's entities for a door a Security+ 2.0 opener reports (issue 31): the
/// obstruction sensor from its photo-eyes, its light, the lock of its remotes, its motion
/// sensor and its count of openings, against a real mosquitto and Tests/secplus/fakeopener.py
/// on a pty; commands go to the opener's wire only with `mqtt-commands`.
final class MQTTOpenerTests: GaragedTestCase {
    private let node = "openerdoor"
    private var base: String { "garaged/\(node)" }
    /// garaged with the opener, announcing it to `broker` as `node`.
    private func garaged(_ broker: MQTTBroker, _ extra: [String]) throws -> GaragedDaemon {
        try startGaragedWithOpener(["--motion-s", "2", "--mqtt", broker.url, "--mqtt-client-id", node] + extra, name: "garaged-opener-mqtt")
    }

    /// The packets the fake opener accepted from garaged.
    private func accepted() -> [OpenerPacket] { openerPackets().filter { $0.accepted == true } }

    private func waitForValue(_ broker: MQTTBroker, _ topic: String, _ value: String, _ what: String) {
        broker.waitForRetained(["\(base)/\(topic)"], what) { $0["\(base)/\(topic)"] == value }
    }

    func testTheOpenersEntitiesAreAnnouncedAndItsLockAndLightAreCommanded() throws {
        try initTable()
        let broker = try MQTTBroker(self)
        try startOpener()
        let daemon = try garaged(broker, ["--mqtt-commands"])
        let held = broker.waitForRetained(["homeassistant/#", "\(base)/#"], "the opener's entities and their values") {
            $0["\(base)/openings"] == "17" && $0["\(base)/remotes"] == "UNLOCKED" && $0["homeassistant/lock/\(node)/remotes/config"] != nil
        }
        func doc(_ topic: String) -> [String: Any] { (json(held[topic] ?? "") as? [String: Any]) ?? [:] }
        let lock = doc("homeassistant/lock/\(node)/remotes/config")
        XCTAssertEqual(lock["command_topic"] as? String, "\(base)/remotes/set")
        XCTAssertEqual(lock["state_topic"] as? String, "\(base)/remotes")
        let light = doc("homeassistant/light/\(node)/light/config")
        XCTAssertEqual(light["command_topic"] as? String, "\(base)/light/set")
        XCTAssertEqual(light["state_topic"] as? String, "\(base)/light")
        XCTAssertEqual(doc("homeassistant/binary_sensor/\(node)/motion/config")["device_class"] as? String, "motion")
        XCTAssertEqual(doc("homeassistant/sensor/\(node)/openings/config")["state_class"] as? String, "total_increasing")
        XCTAssertEqual(doc("homeassistant/binary_sensor/\(node)/obstruction/config")["state_topic"] as? String, "\(base)/obstruction",
                       "the opener's photo-eyes are the door's")
        XCTAssertNil(held["homeassistant/binary_sensor/\(node)/remotes/config"], "no read-only lock beside the lock")
        XCTAssertEqual(held["\(base)/light"], "OFF")
        XCTAssertEqual(held["\(base)/motion"], "OFF")
        XCTAssertEqual(held["\(base)/obstruction"], "OFF")
        XCTAssertEqual(held["\(base)/state"], "closed")

        // LOCK: the opener gets LOCK on (nibble 1), and the lock's state follows its STATUS.
        broker.waitForSubscription(of: node, to: "\(base)/remotes/set")
        try broker.publish("\(base)/remotes/set", "LOCK")
        XCTAssertTrue(waitUntil("LOCK on at the opener", timeout: .seconds(5)) { accepted().contains { $0.name == "LOCK" && $0.nibble == 1 } },
                      "\(accepted())")
        waitForValue(broker, "remotes", "LOCKED", "the remotes locked")
        XCTAssertTrue(waitUntil("the lock in the history, asked by mqtt", timeout: .seconds(5)) {
            daemon.log.contains("source=mqtt") && daemon.log.contains("remotes lock")
        }, daemon.log)
        try broker.publish("\(base)/remotes/set", "UNLOCK")
        waitForValue(broker, "remotes", "UNLOCKED", "the remotes unlocked")
        XCTAssertTrue(accepted().contains { $0.name == "LOCK" && $0.nibble == 0 }, "\(accepted())")

        // The light: on and off, never a toggle (nibble 2), its state from the opener's STATUS.
        try broker.publish("\(base)/light/set", "ON")
        waitForValue(broker, "light", "ON", "the light on")
        try broker.publish("\(base)/light/set", "OFF")
        waitForValue(broker, "light", "OFF", "the light off")
        let lights = accepted().filter { $0.name == "LIGHT" }.map(\.nibble)
        XCTAssertEqual(lights, [1, 0], "LIGHT on, then off")

        // What the opener says by itself: motion for motion-s, its photo-eyes.
        try tell("motion")
        waitForValue(broker, "motion", "ON", "motion")
        waitForValue(broker, "motion", "OFF", "no motion once motion-s passed")
        try tell("obstruct")
        waitForValue(broker, "obstruction", "ON", "the opener's photo-eyes broken")
        try tell("clear")
        waitForValue(broker, "obstruction", "OFF", "clear again")
        // A wall-button open is counted (garaged asks after each move).
        try tell("button")
        waitForValue(broker, "openings", "18", "the count after the wall button's open")

        // A payload the lock does not take: ignored, said once, nothing sent to the opener.
        let locks = accepted().filter { $0.name == "LOCK" }.count
        try broker.publish("\(base)/remotes/set", "lock")
        XCTAssertTrue(waitUntil("the ignored command logged", timeout: .seconds(5)) { daemon.log.contains("not LOCK or UNLOCK") }, daemon.log)
        XCTAssertEqual(accepted().filter { $0.name == "LOCK" }.count, locks)
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// Issue 37 (H1, W1): 10,000 LOCKs published at the remotes' lock were each a kept record and
    /// pushed a guest's opening out of `garage-pins log`, and each one the opener's queue could
    /// not take was a log line. Now a LOCK that changes nothing is an attempt, summarised, and
    /// the log says it once with its count.
    func testALockFloodLeavesTheGuestsOpeningAndOneSummaryLine() throws {
        try initTable()
        // The broker queues the whole flood for garaged (its default drops past 1,000 queued).
        let broker = try MQTTBroker(self, extra: "allow_anonymous true\nmax_queued_messages 20000\n")
        try startOpener()
        let daemon = try garaged(broker, ["--mqtt-commands"])
        XCTAssertTrue(waitUntil("the opener connected, its remotes unlocked", timeout: .seconds(10)) {
            doorStatus(daemon).contains(#""state":"connected","remotes_locked":false"#)
        }, doorStatus(daemon))
        XCTAssertEqual(try daemon.ask("12345Ladd 24680 Guest"), "OK 1")
        XCTAssertEqual(try daemon.ask("24680O=1"), "OK")
        func guestsOpening() throws -> Bool {
            let log = try pins(daemon, ["log", "--json"])
            return (json(log.stdout) as? [[String: Any]] ?? []).contains {
                $0["kind"] as? String == "open" && $0["label"] as? String == "Guest" && $0["detail"] as? String == "pressed"
            }
        }
        XCTAssertTrue(try guestsOpening(), "the guest's opening is in the history to begin with")

        let flood = 10_000
        broker.waitForSubscription(of: node, to: "\(base)/remotes/set")
        try broker.publish("\(base)/remotes/set", "LOCK", options: ["--repeat", String(flood), "--repeat-delay", "0"])
        // Messages reach garaged in the order published: once the UNLOCK that follows the flood
        // reached the opener, every LOCK before it was judged.
        try broker.publish("\(base)/remotes/set", "UNLOCK")
        XCTAssertTrue(waitUntil("the UNLOCK after the flood at the opener", timeout: .seconds(60)) {
            accepted().contains { $0.name == "LOCK" && $0.nibble == 0 }
        }, "\(accepted().filter { $0.name == "LOCK" }.count) LOCK packets")
        let locks = accepted().filter { $0.name == "LOCK" }.map(\.nibble)
        XCTAssertEqual(locks, [1, 0], "the opener is asked to lock once, and to unlock once")

        XCTAssertTrue(try guestsOpening(), "the guest's opening outlives the flood")
        XCTAssertEqual(daemon.stop(timeout: .seconds(10)), .exited(0))
        // Stopped, garaged has said every burst's count.
        let lines = daemon.log.split(separator: "\n")
        let lockLines = lines.filter { $0.contains("remotes lock") || $0.contains("remotes-failed") || $0.contains("remotes=lock") }
        XCTAssertLessThanOrEqual(lockLines.count, 4, "a few lines, not one a LOCK:\n" + lockLines.prefix(10).joined(separator: "\n"))
        let summaries = lockLines.filter { $0.contains("request-repeats") }
        XCTAssertEqual(summaries.count, 1, "one summary line: \(summaries)")
        let more = summaries.first.flatMap { line in line.split(separator: " ").first { $0.hasPrefix("more=") }.flatMap { Int($0.dropFirst(5)) } }
        let inFull = lockLines.filter { $0.contains(" request ") }.count
        print("lock flood: \(flood) LOCKs, \(lockLines.count) log lines about them, \(more ?? -1) folded into one summary:\n"
              + lockLines.joined(separator: "\n"))
        XCTAssertEqual((more ?? 0) + inFull, flood, "every LOCK was judged, and counted: \(lockLines)")
        let kept = readText(pinsPath + ".events")
        XCTAssertLessThanOrEqual(kept.components(separatedBy: "\"kind\":\"remotes\"").count - 1, 2,
                                 "only the two changes are kept")
    }

    /// Issue 37 (W2): on a door whose warning is its opener's light, a guest's phone switched the
    /// light 40 times in 8 s, each a packet with a rolling code. Now a channel changes it as
    /// often as it may start the warning; past that, ERR RATE, logged with why.
    func testALightFloodReachesTheOpenerAFewTimesOnly() throws {
        try initTable()
        let broker = try MQTTBroker(self)
        try startOpener()
        let daemon = try garaged(broker, ["--mqtt-commands"])
        XCTAssertTrue(waitUntil("the opener connected", timeout: .seconds(10)) {
            doorStatus(daemon).contains(#""state":"connected","remotes_locked":false"#)
        }, doorStatus(daemon))
        broker.waitForSubscription(of: node, to: "\(base)/light/set")
        for i in 0..<40 { try broker.publish("\(base)/light/set", i % 2 == 0 ? "ON" : "OFF") }
        // Messages reach garaged in the order published: once the LOCK that follows reached the
        // opener, every light command before it was judged.
        try broker.publish("\(base)/remotes/set", "LOCK")
        XCTAssertTrue(waitUntil("the LOCK after the light flood at the opener", timeout: .seconds(10)) {
            accepted().contains { $0.name == "LOCK" }
        }, "\(accepted().map(\.name))")
        let lights = accepted().filter { $0.name == "LIGHT" }.map(\.nibble)
        print("light flood: 40 commands, \(lights.count) LIGHT packets at the opener")
        XCTAssertEqual(lights, [1, 0, 1], "3 changes, as many as warnings a minute")
        XCTAssertTrue(daemon.log.contains("result=\"ERR RATE\"") && daemon.log.contains("opener's light flashing"), daemon.log)
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// Without `mqtt-commands` the light and the lock are read-only sensors: no command topic is
    /// announced or subscribed, and a LOCK published anyway never reaches the opener.
    func testWithoutCommandsTheLightAndTheLockAreOnlySensors() throws {
        try initTable()
        let broker = try MQTTBroker(self)
        try startOpener()
        let daemon = try garaged(broker, [])
        let held = broker.waitForRetained(["homeassistant/#", "\(base)/#"], "the opener's read-only entities") {
            $0["\(base)/remotes"] == "UNLOCKED" && $0["homeassistant/binary_sensor/\(node)/remotes/config"] != nil
        }
        XCTAssertNil(held["homeassistant/lock/\(node)/remotes/config"])
        XCTAssertNil(held["homeassistant/light/\(node)/light/config"])
        let lock = (json(held["homeassistant/binary_sensor/\(node)/remotes/config"] ?? "") as? [String: Any]) ?? [:]
        XCTAssertEqual(lock["device_class"] as? String, "lock")
        XCTAssertNil(lock["command_topic"])
        XCTAssertEqual((json(held["homeassistant/binary_sensor/\(node)/light/config"] ?? "") as? [String: Any])?["device_class"] as? String, "light")
        try broker.publish("\(base)/remotes/set", "LOCK")
        // Messages reach garaged in the order published: once the birth message that follows
        // the LOCK has, a LOCK that was to arrive has too.
        broker.waitForSubscription(of: node, to: "homeassistant/status")
        try broker.publish("homeassistant/status", "online")
        XCTAssertTrue(waitUntil("the discovery again", timeout: .seconds(10)) { daemon.log.contains("mqtt-discovery") }, daemon.log)
        XCTAssertFalse(accepted().contains { $0.name == "LOCK" }, "commands are off: \(accepted())")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// A wired light (`--light`, a relay door) is a light too, switched by `ON` / `OFF`; the door
    /// has no opener, so no lock, motion nor openings, and their topics are cleared.
    func testAWiredLightIsALightWithoutTheOpenersEntities() throws {
        try initTable()
        let broker = try MQTTBroker(self)
        let daemon = try startDaemon(["--light", "sim:\(dir)/light.trace", "--mqtt", broker.url, "--mqtt-client-id", node,
                                      "--mqtt-commands", "--auto-close-s", "0"])
        let held = broker.waitForRetained(["homeassistant/#", "\(base)/#"], "the wired light") {
            $0["\(base)/light"] == "OFF" && $0["homeassistant/light/\(node)/light/config"] != nil && $0["\(base)/state"] == "closed"
        }
        XCTAssertFalse(held.keys.contains { $0.contains("remotes") || $0.contains("motion") || $0.contains("openings") }, "\(held)")
        broker.waitForSubscription(of: node, to: "\(base)/light/set")
        try broker.publish("\(base)/light/set", "ON")
        waitForValue(broker, "light", "ON", "the wired light on")
        XCTAssertTrue(((try? daemon.ask("12345Lstatus")) ?? "").contains(#""light":true"#))
        try broker.publish("\(base)/light/set", "OFF")
        waitForValue(broker, "light", "OFF", "the wired light off")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }
}

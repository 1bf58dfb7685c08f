import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Home Assistant over MQTT, against a real mosquitto broker each test starts on a free port,
/// checked with mosquitto's own clients.
final class MQTTTests: GaragedTestCase {
    private let node = "testdoor"
    private var base: String { "garaged/\(node)" }

    private func startWithBroker(_ broker: MQTTBroker, _ extra: [String] = [], url: String? = nil) throws -> GaragedDaemon {
        try initTable()
        return try startDaemon(["--mqtt", url ?? broker.url, "--mqtt-client-id", node, "--travel-s", "1", "--auto-close-s", "0"] + extra)
    }

    private func waitForLog(_ daemon: GaragedDaemon, _ text: String, timeout: Duration = .seconds(10)) {
        waitUntil("'\(text)' in the daemon's log", timeout: timeout) { daemon.log.contains(text) }
    }

    func testDiscoveryAvailabilityStateAndEvents() throws {
        let broker = try MQTTBroker(self)
        let daemon = try startWithBroker(broker)
        // Retained: what a Home Assistant that starts later finds (availability, the cover and
        // three sensors, and their five values).
        let byTopic = broker.waitForRetained(["homeassistant/#", "\(base)/#"], "the discovery and the door's values") { $0.count >= 9 }
        XCTAssertEqual(byTopic["\(base)/availability"], "online")
        XCTAssertEqual(byTopic["\(base)/state"], "closed")
        XCTAssertEqual(byTopic["\(base)/lockout"], "none")
        XCTAssertEqual(byTopic["\(base)/fault"], "none")
        let cover = json(byTopic["homeassistant/cover/\(node)/door/config"] ?? "") as? [String: Any]
        XCTAssertEqual(cover?["device_class"] as? String, "garage")
        XCTAssertEqual(cover?["state_topic"] as? String, "\(base)/state")
        XCTAssertEqual(cover?["state_stopped"] as? String, "stopped")
        XCTAssertNil(cover?["command_topic"], "commands are off by default: a read-only cover")
        XCTAssertEqual((cover?["device"] as? [String: Any])?["identifiers"] as? [String], ["garaged_\(node)"])
        for sensor in ["last_opened_by", "lockout", "fault"] {
            let doc = json(byTopic["homeassistant/sensor/\(node)/\(sensor)/config"] ?? "") as? [String: Any]
            XCTAssertEqual(doc?["state_topic"] as? String, "\(base)/\(sensor)", sensor)
        }
        // State changes as the door moves, and the history as a stream of events.
        let follower = try broker.follow(["\(base)/state", "\(base)/event", "\(base)/last_opened_by"], options: ["-R"])
        XCTAssertEqual(try daemon.ask("12345Ladd 24680 Alice"), "OK 1")
        XCTAssertEqual(try daemon.ask("24680O=1"), "OK")
        waitUntil("opening, open, the event and who opened it", timeout: .seconds(10)) {
            let m = messages(follower)
            return m.contains { $0.payload == "open" } && m.contains { $0.topic.hasSuffix("/last_opened_by") && $0.payload == "Alice" }
        }
        let m = messages(follower)
        XCTAssertEqual(m.filter { $0.topic == "\(base)/state" }.map(\.payload), ["opening", "open"])
        let event = m.first { $0.topic == "\(base)/event" && $0.payload.contains("\"kind\":\"open\"") }
        XCTAssertEqual((json(event?.payload ?? "") as? [String: Any])?["label"] as? String, "Alice", "a label, never a PIN")
        XCTAssertFalse(m.contains { $0.payload.contains("24680") }, "never a PIN on the broker")
        XCTAssertFalse(m.contains { $0.topic == "\(base)/event" && $0.retained }, "events are not retained")
        let status = try pins(daemon, ["status"])
        XCTAssertTrue(squeezed(status.stdout).contains("mqtt connected to \(broker.url)"), status.stdout)
        // A clean stop says offline.
        XCTAssertEqual(daemon.stop(), .exited(0))
        XCTAssertEqual(try broker.receive(["\(base)/availability"], count: 1).first?.payload, "offline")
    }

    /// With `[door NAME]` sections, Home Assistant gets a cover per door on the one device, each
    /// with its own topics and sensors; the one door's cover a former config left retained is
    /// cleared; a command on a door's topic presses that door only.
    func testACoverPerDoorAndTheFormerCoverCleared() throws {
        let broker = try MQTTBroker(self)
        // First the one door, as every config was before sections: its cover is retained.
        let single = try startWithBroker(broker)
        broker.waitForRetained(["homeassistant/cover/\(node)/door/config"], "the one door's cover") { $0.count == 1 }
        XCTAssertEqual(single.stop(), .exited(0))
        // Then two doors.
        let left = dir + "/left.trace", gate = dir + "/gate.trace", config = dir + "/doors.conf"
        try write(Array("""
            mqtt = \(broker.url)
            mqtt-client-id = \(node)
            mqtt-commands = true
            [door left]
            relay = sim:\(left)
            [door gate]
            name = Front gate
            relay = sim:\(gate)
            """.utf8), to: config)
        let process = try spawn(try Binaries.path(of: "garaged"), ["--pins", pinsPath, "--socket", socketPath, "--no-ble", "--config", config],
                                name: "garaged-doors")
        let daemon = GaragedDaemon(process: process, pinsPath: pinsPath, socketPath: socketPath, tracePath: left)
        try waitForSocket(daemon)
        // The one door's cover, sensors and values are cleared; the doors' values come last of
        // what garaged publishes at a connect, so with them the rest is there too.
        let former = ["homeassistant/cover/\(node)/door/config", "homeassistant/sensor/\(node)/last_opened_by/config",
                      "homeassistant/sensor/\(node)/fault/config", "\(base)/state", "\(base)/last_opened_by", "\(base)/fault"]
        let byTopic = broker.waitForRetained(["homeassistant/#", "\(base)/#"], "both doors' values, and the one door's topics cleared") { r in
            former.allSatisfy { r[$0] == nil } && ["left", "gate"].allSatisfy { r["\(base)/\($0)/state"] != nil && r["\(base)/\($0)/fault"] != nil }
                && r["\(base)/lockout"] != nil
        }
        for (id, name) in [("left", "left"), ("gate", "Front gate")] {
            let cover = json(byTopic["homeassistant/cover/\(node)/\(id)/config"] ?? "") as? [String: Any]
            XCTAssertEqual(cover?["name"] as? String, name)
            XCTAssertEqual(cover?["state_topic"] as? String, "\(base)/\(id)/state")
            XCTAssertEqual(cover?["command_topic"] as? String, "\(base)/\(id)/command")
            XCTAssertEqual((cover?["device"] as? [String: Any])?["identifiers"] as? [String], ["garaged_\(node)"], "one device")
            XCTAssertEqual(byTopic["\(base)/\(id)/state"], "closed")
            XCTAssertNotNil(byTopic["homeassistant/sensor/\(node)/\(id)_last_opened_by/config"])
            XCTAssertNotNil(byTopic["homeassistant/sensor/\(node)/\(id)_fault/config"])
        }
        XCTAssertEqual(byTopic["\(base)/lockout"], "none", "the lockout is the device's")
        broker.waitForSubscription(of: node, to: "\(base)/gate/command")
        try broker.publish("\(base)/gate/command", "OPEN")
        waitUntil("the gate's press", timeout: .seconds(10)) { presses(in: (try? readTrace(gate)) ?? []).count == 1 }
        waitForLog(daemon, "request source=mqtt command=\"open @gate\" slot=- result=OK")
        XCTAssertEqual(daemon.stop(), .exited(0))
        XCTAssertEqual(presses(in: try readTrace(left)).count, 0, "the left door was not asked")
    }

    /// The photo-eye (`--sensor-obstruction`) is an obstruction sensor on the door's device: its
    /// discovery and its value are retained (OFF), ON arrives when the beam breaks and OFF when
    /// it clears. Started again without a photo-eye, garaged clears the sensor it left retained
    /// and publishes none.
    func testThePhotoEyeIsAnObstructionSensorOnlyWhileOneIsWired() throws {
        let broker = try MQTTBroker(self)
        let eye = dir + "/eye"
        try setSwitch(eye, false)
        let config = "homeassistant/binary_sensor/\(node)/obstruction/config", state = "\(base)/obstruction"
        let cover = "homeassistant/cover/\(node)/door/config"
        // Subscribed before garaged connects: what it publishes there arrives live, in its order.
        let follower = try broker.follow([config, state])
        let daemon = try startWithBroker(broker, ["--sensor-obstruction", "sim:" + eye, "--sensor-debounce-ms", "20"])
        waitUntil("the obstruction sensor's discovery and its value", timeout: .seconds(10)) {
            let m = messages(follower)
            return m.contains { $0.topic == config && !$0.payload.isEmpty } && m.contains { $0.topic == state }
        }
        // Published in one order on one connection: the cover came before the sensor's value.
        let byTopic = try broker.retained([config, state, cover])
        XCTAssertEqual(byTopic[state], "OFF", "the beam is clear")
        let doc = json(byTopic[config] ?? "") as? [String: Any], coverDoc = json(byTopic[cover] ?? "") as? [String: Any]
        XCTAssertEqual(doc?["device_class"] as? String, "problem")
        XCTAssertEqual(doc?["state_topic"] as? String, state)
        XCTAssertEqual(doc?["payload_on"] as? String, "ON")
        XCTAssertEqual(doc?["payload_off"] as? String, "OFF")
        XCTAssertEqual(doc?["unique_id"] as? String, (coverDoc?["unique_id"] as? String ?? "no cover") + "_obstruction")
        XCTAssertEqual(doc?["availability_topic"] as? String, "\(base)/availability")
        XCTAssertEqual((doc?["device"] as? [String: Any])?["identifiers"] as? [String], ["garaged_\(node)"], "the cover's device")

        try setSwitch(eye, true)
        waitUntil("ON on \(state)", timeout: .seconds(10)) { messages(follower).contains { $0.topic == state && $0.payload == "ON" } }
        try setSwitch(eye, false)
        waitUntil("OFF again on \(state)", timeout: .seconds(10)) {
            messages(follower).filter { $0.topic == state }.map(\.payload).last == "OFF"
                && messages(follower).contains { $0.payload == "ON" }
        }
        XCTAssertEqual(messages(follower).filter { $0.topic == state }.map(\.payload), ["OFF", "ON", "OFF"])
        XCTAssertEqual(daemon.stop(), .exited(0))

        // Without a photo-eye: the sensor left retained above is cleared before the cover is
        // published again, and nothing else is published there.
        let again = try broker.follow([config, state, cover])
        let plain = try startDaemon(["--mqtt", broker.url, "--mqtt-client-id", node, "--travel-s", "1", "--auto-close-s", "0"],
                                    socket: dir + "/s2", trace: dir + "/t2")
        waitUntil("the cover's discovery", timeout: .seconds(10)) {
            messages(again).contains { $0.topic == cover && !$0.retained }
        }
        let live = messages(again).filter { !$0.retained && $0.topic != cover }.map { "\($0.topic)=\($0.payload)" }
        XCTAssertEqual(live, ["\(config)=", "\(state)="], "cleared (an empty retained message), never published")
        XCTAssertEqual(try broker.retained([config, state]), [:], "no obstruction sensor without a photo-eye")
        XCTAssertEqual(plain.stop(), .exited(0))
    }

    /// With several doors the photo-eye is its door's: the gate's sensor and value are under the
    /// gate's names and follow the gate's beam; the door without one has no sensor.
    func testAPhotoEyeIsItsOwnDoorsSensor() throws {
        try initTable()
        let broker = try MQTTBroker(self)
        let eye = dir + "/gate-eye", config = dir + "/doors.conf"
        try setSwitch(eye, false)
        try write(Array("""
            mqtt = \(broker.url)
            mqtt-client-id = \(node)
            [door left]
            relay = sim:\(dir)/left.trace
            [door gate]
            name = Front gate
            relay = sim:\(dir)/gate.trace
            sensor-obstruction = sim:\(eye)
            sensor-debounce-ms = 20
            """.utf8), to: config)
        let gateConfig = "homeassistant/binary_sensor/\(node)/gate_obstruction/config", gateState = "\(base)/gate/obstruction"
        let leftConfig = "homeassistant/binary_sensor/\(node)/left_obstruction/config", leftState = "\(base)/left/obstruction"
        let follower = try broker.follow([gateConfig, gateState, leftConfig, leftState])
        let process = try spawn(try Binaries.path(of: "garaged"), ["--pins", pinsPath, "--socket", socketPath, "--no-ble", "--config", config],
                                name: "garaged-doors")
        let daemon = GaragedDaemon(process: process, pinsPath: pinsPath, socketPath: socketPath, tracePath: dir + "/left.trace")
        try waitForSocket(daemon)
        waitUntil("the gate's obstruction sensor and OFF", timeout: .seconds(10)) {
            let m = messages(follower)
            return m.contains { $0.topic == gateConfig && !$0.payload.isEmpty } && m.contains { $0.topic == gateState && $0.payload == "OFF" }
        }
        let doc = json(messages(follower).first { $0.topic == gateConfig }?.payload ?? "") as? [String: Any]
        XCTAssertEqual(doc?["name"] as? String, "Front gate: obstruction")
        XCTAssertEqual(doc?["unique_id"] as? String, "garaged_\(node)_gate_obstruction")
        XCTAssertEqual(doc?["state_topic"] as? String, gateState)
        try setSwitch(eye, true)
        waitUntil("ON on the gate's topic", timeout: .seconds(10)) {
            messages(follower).contains { $0.topic == gateState && $0.payload == "ON" }
        }
        XCTAssertFalse(messages(follower).contains { ($0.topic == leftConfig || $0.topic == leftState) && !$0.payload.isEmpty },
                       "the left door has no photo-eye: nothing but a clear: \(messages(follower))")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// Home Assistant showed the cover as "unknown" after every start of garaged and every
    /// broker restart: the retained state, last opener, lockout and fault were published only
    /// once the door moved. Nothing here touches the door or even the local socket (a
    /// connection to it used to wake the loop and hide the bug): a fresh subscriber finds every
    /// value retained, after the start and again after the broker restarted empty.
    func testTheRetainedValuesFollowEveryConnectWithoutTheDoorMoving() throws {
        try initTable()
        let broker = try MQTTBroker(self)
        let daemon = try launchDaemon(["--mqtt", broker.url, "--mqtt-client-id", node])
        let topics = ["state", "last_opened_by", "lockout", "fault"].map { "\(base)/\($0)" }
        for round in 1...2 {
            waitUntil("connect number \(round)", timeout: .seconds(15)) {
                daemon.log.components(separatedBy: "mqtt-connected").count > round
            }
            let byTopic = broker.waitForRetained(topics, "round \(round)'s four values") { $0.count == 4 }
            XCTAssertEqual(byTopic["\(base)/state"], "closed", "round \(round): \(byTopic)")
            XCTAssertEqual(byTopic["\(base)/last_opened_by"], "nobody yet")
            XCTAssertEqual(byTopic["\(base)/lockout"], "none")
            XCTAssertEqual(byTopic["\(base)/fault"], "none")
            if round == 1 {
                broker.kill()  // persistence off: it comes back with nothing retained
                try broker.restart()
            }
        }
    }

    func testTheLastWillSaysOfflineWhenTheDaemonDies() throws {
        let broker = try MQTTBroker(self)
        let daemon = try startWithBroker(broker)
        waitForLog(daemon, "mqtt-connected")
        XCTAssertEqual(try broker.receive(["\(base)/availability"], count: 1).first?.payload, "online")
        daemon.process.signal(SIGKILL)
        _ = daemon.process.waitForExit(timeout: .seconds(5))
        var last = ""
        waitUntil("the broker to publish the last will", timeout: .seconds(10)) {
            last = (try? broker.receive(["\(base)/availability"], count: 1, seconds: 2).first?.payload) ?? ""
            return last == "offline"
        }
    }

    func testCommandsOpenOnlyWhenOnAndNeverFromARetainedMessage() throws {
        let broker = try MQTTBroker(self)
        // A retained OPEN left on the broker before the daemon starts: never acted on.
        try broker.publish("\(base)/command", "OPEN", retain: true)
        let daemon = try startWithBroker(broker, ["--mqtt-commands"])
        waitForLog(daemon, "mqtt-command-ignored")
        XCTAssertTrue(daemon.log.contains("a retained message"), daemon.log)
        XCTAssertEqual(try daemon.trace().count, 1, "the retained OPEN pressed nothing")
        try broker.publish("\(base)/command", "", retain: true)  // clear it, as the log says to
        // A live OPEN presses, judged like any request; STOP on a door at rest presses nothing.
        try broker.publish("\(base)/command", "OPEN")
        let trace = try waitForTrace(daemon, count: 3, timeout: .seconds(10))
        XCTAssertEqual(trace.map(\.level), [0, 1, 0])
        waitForLog(daemon, "request source=mqtt command=open slot=- result=OK")
        let log = try pins(daemon, ["log", "--json"])
        XCTAssertTrue(log.stdout.contains("\"source\":\"mqtt\""), log.stdout)
        XCTAssertEqual(daemon.stop(), .exited(0))

        // With commands off the cover is read-only and the topic is not even subscribed.
        let readOnly = try startDaemon(["--mqtt", broker.url, "--mqtt-client-id", node], socket: dir + "/s2", trace: dir + "/t2")
        waitForLog(readOnly, "mqtt-connected")
        // The daemon above subscribed with the same client id: this one's is the second.
        broker.waitForSubscription(of: node, to: "homeassistant/status", times: 2)
        try broker.publish("\(base)/command", "OPEN")
        // The broker forwards in the order it received: once Home Assistant's birth message,
        // published after the OPEN, has reached garaged, an OPEN that was to arrive has too.
        try broker.publish("homeassistant/status", "online")
        waitForLog(readOnly, "mqtt-discovery why=\"Home Assistant came online\"")
        XCTAssertEqual(try readOnly.trace().count, 1, "commands are off: nothing pressed")
    }

    /// The broker down for a while: the door keeps opening from the local socket, the daemon
    /// reconnects by itself and publishes everything again.
    func testABrokerRestartIsRiddenOut() throws {
        let broker = try MQTTBroker(self)
        let daemon = try startWithBroker(broker)
        waitForLog(daemon, "mqtt-connected")
        broker.kill()
        waitForLog(daemon, "mqtt-unavailable")
        XCTAssertEqual(try daemon.ask("12345O=1"), "OK", "the local socket does not wait for the broker")
        try waitForTrace(daemon, count: 3)
        let restarted = monotonicNanoseconds()
        try broker.restart()
        waitUntil("a second connect", timeout: .seconds(15)) {
            daemon.log.components(separatedBy: "mqtt-connected").count == 3
        }
        print(String(format: "MQTT reconnect after the broker came back: %.0f ms", Double(monotonicNanoseconds() - restarted) / 1e6))
        // The broker came back empty: whatever it holds was published after the reconnect.
        // The door may still be opening at the reconnect: its value then follows when it is open.
        let retained = broker.waitForRetained(["\(base)/#", "homeassistant/#"], "everything published again, the door open") {
            $0.count >= 9 && $0["\(base)/state"] == "open"
        }
        XCTAssertEqual(retained["\(base)/availability"], "online")
        XCTAssertNotNil(retained["homeassistant/cover/\(node)/door/config"])
        XCTAssertEqual(retained["\(base)/state"], "open", "the state as it is now")
        // Each cause once, not once per retry: the loss, and (when a retry came before the broker
        // was back) that it could not be reached.
        func lines(_ cause: String) -> Int {
            daemon.log.split(separator: "\n").filter { $0.contains("mqtt-unavailable") && $0.contains(cause) }.count
        }
        XCTAssertEqual(lines("the connection to"), 1, daemon.log)
        XCTAssertLessThanOrEqual(lines("cannot reach"), 1, daemon.log)
    }

    func testWrongCredentialsAreOneClearLogLine() throws {
        let passwd = dir + "/passwd"
        let tool = try Binaries.system("mosquitto_passwd", package: "mosquitto")
        let made = try spawn(tool, ["-b", "-c", passwd, "garage", "right-one"], name: "mosquitto_passwd")
        XCTAssertEqual(made.waitForExit(timeout: .seconds(5)), .exited(0), made.stderr)
        let broker = try MQTTBroker(self, extra: "allow_anonymous false\npassword_file \(passwd)\n")
        try write(Array("wrong-one\n".utf8), to: dir + "/pw")
        let daemon = try startWithBroker(broker, ["--mqtt-user", "garage", "--mqtt-password-file", dir + "/pw"])
        waitForLog(daemon, "refused the connection")
        XCTAssertTrue(daemon.log.contains("not authorised"), daemon.log)
        XCTAssertFalse(daemon.log.contains("wrong-one"), "the password never reaches the log")
        XCTAssertEqual(try daemon.ask("12345S"), "S CLOSED")
        XCTAssertNil(daemon.process.poll())
        // The right one connects.
        XCTAssertEqual(daemon.stop(), .exited(0))
        try write(Array("right-one\n".utf8), to: dir + "/pw")
        let good = try startDaemon(["--mqtt", broker.url, "--mqtt-client-id", node, "--mqtt-user", "garage",
                                    "--mqtt-password-file", dir + "/pw"])
        waitForLog(good, "mqtt-connected")
    }

    /// TLS with a CA the test makes itself: trusted, it connects; a CA that did not sign the
    /// broker's certificate is a clear TLS failure.
    func testTLSWithTheTestsOwnCA() throws {
        let certs = try makeCertificates()
        let broker = try MQTTBroker(self, extra: "allow_anonymous true\n" + certs.brokerTLS)
        let tls = "mqtts://127.0.0.1:\(broker.port)"
        let daemon = try startWithBroker(broker, ["--mqtt-ca", certs.ca], url: tls)
        waitForLog(daemon, "mqtt-connected broker=\(tls)")
        let state = try broker.receive(["\(base)/state"], count: 1, options: ["--cafile", certs.ca])
        XCTAssertEqual(state.first?.payload, "closed", "published over TLS")
        XCTAssertEqual(daemon.stop(), .exited(0))
        let wrongCA = try startDaemon(["--mqtt", tls, "--mqtt-client-id", node, "--mqtt-ca", certs.otherCA])
        waitForLog(wrongCA, "mqtt-unavailable")
        XCTAssertFalse(wrongCA.log.contains("mqtt-connected"), wrongCA.log)
        XCTAssertEqual(try wrongCA.ask("12345S"), "S CLOSED", "the door still answers")
    }
}

import Foundation
import XCTest

/// garaged as a HomeKit accessory (issue 21), driven by aiohomekit, Home Assistant's HomeKit
/// controller (nobody here wrote it), through `Tests/homekit/hapctl.py`: pairing with the code
/// and refusing a wrong one, reading the door, an open that presses once, events as the
/// simulated switches move, a close after the warning, a door moved by hand followed, a restart
/// keeping the pairing, and removing it. `scripts/test.sh` installs aiohomekit and says where
/// (GARAGED_HAPCTL_PYTHON).
final class HomeKitTests: GaragedTestCase {
    /// The one door's characteristics in the accessory database.
    static let current = "1.17", target = "1.18", obstruction = "1.19"

    /// Pairing with the code (a wrong code refused first), reading the door, an open that
    /// presses the relay exactly once (a repeated target presses nothing), the pairing kept
    /// across a restart, removing it; the setup code and keys never in the log.
    func testPairOpenRestartAndUnpair() throws {
        var daemon = try homekitDaemon()
        let setup = try homekitInfo(daemon)
        XCTAssertEqual(setup["paired"] as? Bool, false)
        let code = try XCTUnwrap(setup["setup_code"] as? String)
        XCTAssertTrue((setup["setup_uri"] as? String ?? "").hasPrefix("X-HM://"))
        let wrong = code == "111-22-333" ? "111-22-334" : "111-22-333"
        let refused = try homekitPair(daemon, code: wrong)
        XCTAssertEqual(refused.termination, .exited(1), refused.stdout + refused.stderr)
        XCTAssertTrue(refused.stdout.contains("AuthenticationError"), refused.stdout)
        XCTAssertEqual(try homekitInfo(daemon)["failed_setups"] as? Int, 1)

        let paired = try homekitPair(daemon)
        XCTAssertEqual(paired.termination, .exited(0), paired.stdout + paired.stderr)
        XCTAssertEqual(try homekitInfo(daemon)["paired"] as? Bool, true)

        let read = try hap(["get", "--pairing", pairingFile, "--char", HomeKitTests.current, "--char", HomeKitTests.target])
        XCTAssertEqual(homekitValues(read), [HomeKitTests.current: 1, HomeKitTests.target: 1], "closed, and staying closed: " + read.stdout)

        let open = try hap(["put", "--pairing", pairingFile, "--char", HomeKitTests.target + "=0"])
        XCTAssertEqual(open.termination, .exited(0), open.stdout + open.stderr)
        let presses = presses(in: try waitForTrace(daemon, count: 3))
        XCTAssertEqual(presses.count, 1)
        if let p = presses.first { assertWidth(p, 300, "HomeKit's open") }
        let again = try hap(["put", "--pairing", pairingFile, "--char", HomeKitTests.target + "=0"])
        XCTAssertEqual(again.termination, .exited(0), "a repeated target is fine... " + again.stdout)
        XCTAssertEqual(try daemon.trace().count, 3, "...and presses nothing")
        let history = try garagePins(["log", "--json", "--socket", socketPath, "--pin", "12345"])
        XCTAssertTrue(history.stdout.contains("homekit "), "the history names the controller: " + history.stdout)

        XCTAssertEqual(daemon.stop(), .exited(0))
        daemon = try homekitDaemon()
        let afterRestart = try hap(["get", "--pairing", pairingFile, "--port", try homekitPort(daemon), "--char", HomeKitTests.current])
        XCTAssertEqual(afterRestart.termination, .exited(0), "the pairing outlived the restart: " + afterRestart.stdout + afterRestart.stderr)

        let list = try hap(["pairings", "--pairing", pairingFile, "--port", try homekitPort(daemon)])
        XCTAssertTrue(list.stdout.contains("\"admin\": true"), list.stdout)
        let unpaired = try hap(["unpair", "--pairing", pairingFile, "--port", try homekitPort(daemon)])
        XCTAssertEqual(unpaired.termination, .exited(0), unpaired.stdout + unpaired.stderr)
        waitUntil("the pairing gone", timeout: .seconds(5)) { (try? self.homekitInfo(daemon))?["paired"] as? Bool == false }
        for secret in [code] + [String(try String(contentsOfFile: pinsPath + ".homekit", encoding: .utf8).split(separator: "\"")[7])] {
            XCTAssertFalse(daemon.log.contains(secret), "the log holds a secret")
        }
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// Events as the door moves: by hand (the switches alone; TargetDoorState follows, so the
    /// Home app never sticks at "Opening…"), then a close from HomeKit that waits for the whole
    /// warning (CurrentDoorState still Open, TargetDoorState Closed meanwhile) and is seen closed.
    func testEventsFollowTheDoorAndACloseWaitsForTheWarning() throws {
        let daemon = try homekitDaemon(["--auto-close-s", "0"], sensed: true)
        XCTAssertEqual(try homekitPair(daemon).termination, .exited(0))
        let port = try homekitPort(daemon)
        let ready = dir + "/watching"
        let watch = try spawn(try python(), [hapctl, "watch", "--pairing", pairingFile, "--port", port, "--char", HomeKitTests.current,
                                             "--char", HomeKitTests.target, "--until", HomeKitTests.current + "=0", "--ready-file", ready,
                                             "--timeout", "30"], name: "hapctl-watch-open")
        waitUntil("the subscription", timeout: .seconds(20)) { FileManager.default.fileExists(atPath: ready) }
        try move(open: true)  // by its remote
        XCTAssertEqual(watch.waitForExit(timeout: .seconds(30)), .exited(0), watch.stdout + watch.stderr)
        let seen = watch.stdout.split(separator: "\n").compactMap { json(String($0)) as? [String: Any] }
        XCTAssertTrue(seen.contains { $0["iid"] as? Int == 18 && $0["value"] as? Int == 0 }, "the target followed the hand-opened door: \(watch.stdout)")

        // Close from HomeKit: the warning first, and the press only after it; the door is then
        // seen closing and closed by its switches.
        let ready2 = dir + "/watching2"
        let close = try spawn(try python(), [hapctl, "watch", "--pairing", pairingFile, "--port", port, "--char", HomeKitTests.current,
                                             "--char", HomeKitTests.target, "--until", HomeKitTests.current + "=1", "--ready-file", ready2,
                                             "--put", HomeKitTests.target + "=1", "--timeout", "30"], name: "hapctl-watch-close")
        let trace = try waitForTrace(daemon, count: 3, timeout: .seconds(20))
        let warning = try readTrace(warnTrace)
        XCTAssertEqual(Array(warning.map(\.level).prefix(2)), [0, 1], "the warning went on")
        if warning.count >= 2, trace.count >= 2 {
            let lead = Double(trace[1].ns - warning[1].ns) / 1e6
            print("HomeKit close: warning to press \(String(format: "%.1f", lead)) ms (asked 1000)")
            XCTAssertGreaterThanOrEqual(lead, 1000, "the press waited for the whole warning")
        }
        try move(open: false)
        XCTAssertEqual(close.waitForExit(timeout: .seconds(30)), .exited(0), close.stdout + close.stderr)
        let events = close.stdout.split(separator: "\n").compactMap { json(String($0)) as? [String: Any] }
        XCTAssertTrue(events.contains { $0["iid"] as? Int == 18 && $0["value"] as? Int == 1 }, "the target went to Closed: \(close.stdout)")
        try waitForDoor(daemon, "CLOSED")
        let read = try hap(["get", "--pairing", pairingFile, "--port", port, "--char", HomeKitTests.current, "--char", HomeKitTests.target])
        XCTAssertEqual(homekitValues(read), [HomeKitTests.current: 1, HomeKitTests.target: 1], read.stdout)
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// The photo-eye (`--sensor-obstruction`): HomeKit's ObstructionDetected follows the beam by
    /// events; a close from HomeKit while it is broken is refused (207, nothing pressed, no
    /// warning) and TargetDoorState stays Open; the socket's `O=0` gets ERR OBSTRUCTED.
    func testAnObstructionIsShownAndHoldsEveryCloseBack() throws {
        let eye = dir + "/eye"
        try setSwitch(eye, false)
        let daemon = try homekitDaemon(["--auto-close-s", "0", "--sensor-obstruction", "sim:" + eye], sensed: true)
        XCTAssertEqual(try homekitPair(daemon).termination, .exited(0))
        let port = try homekitPort(daemon)
        try move(open: true)
        try waitForDoor(daemon, "OPEN")
        let ready = dir + "/watching"
        let watch = try spawn(try python(), [hapctl, "watch", "--pairing", pairingFile, "--port", port, "--char", HomeKitTests.obstruction,
                                             "--until", HomeKitTests.obstruction + "=true", "--ready-file", ready, "--timeout", "20"],
                              name: "hapctl-watch-eye")
        waitUntil("the subscription", timeout: .seconds(20)) { FileManager.default.fileExists(atPath: ready) }
        try setSwitch(eye, true)
        XCTAssertEqual(watch.waitForExit(timeout: .seconds(20)), .exited(0), "ObstructionDetected went true: " + watch.stdout + watch.stderr)

        let close = try hap(["put", "--pairing", pairingFile, "--port", port, "--char", HomeKitTests.target + "=1"])
        XCTAssertEqual(close.termination, .exited(4), "the close is refused: " + close.stdout + close.stderr)
        XCTAssertTrue(close.stdout.contains("-70402"), close.stdout)
        XCTAssertEqual(try daemon.connect().request("12345O=0"),
                       [#"{"reason":"something breaks the photo-eye's beam across the doorway, so garaged presses nothing that could close the door; clear the doorway and try again"}"#,
                        "ERR OBSTRUCTED"], "the local socket says why, then the code")
        let read = try hap(["get", "--pairing", pairingFile, "--port", port, "--char", HomeKitTests.target, "--char", HomeKitTests.obstruction])
        XCTAssertEqual(homekitValues(read), [HomeKitTests.target: 0, HomeKitTests.obstruction: 1], "still Open, obstructed: " + read.stdout)
        XCTAssertEqual(try daemon.trace().count, 1, "nothing pressed (the trace holds only the released start level)")
        XCTAssertEqual(try readTrace(warnTrace).filter { $0.level == 1 }.count, 0, "no warning for a close that cannot start")

        try setSwitch(eye, false)
        waitUntil("the beam clear in the status", timeout: .seconds(5)) {
            ((try? self.status(daemon))?["sensors"] as? [String: Any])?["obstruction"] as? Bool == false
        }
        XCTAssertEqual(daemon.stop(), .exited(0))
    }


    /// With two doors garaged is a bridge (category 2) with an accessory per door: a write to the
    /// second door's TargetDoorState presses the second door's relay only, for its own pulse. The
    /// configuration number goes up when the database changes (a light added to a door) and
    /// stays across a restart that changes nothing.
    func testTwoDoorsAreABridgeAndTheConfigurationNumberFollowsTheDatabase() throws {
        _ = try python()
        try initTable()
        let left = dir + "/left.trace", gate = dir + "/gate.trace", config = dir + "/doors.conf"
        func start(light: Bool) throws -> GaragedDaemon {
            try write(Array("""
                homekit = on
                homekit-port = 0
                homekit-bind = 127.0.0.1
                [door left]
                relay = sim:\(left)
                auto-close-s = 0
                [door gate]
                name = Front gate
                relay = sim:\(gate)
                pulse-ms = 500
                auto-close-s = 0
                \(light ? "light = sim:" + dir + "/gate-light" : "")
                """.utf8), to: config)
            let process = try spawn(try Binaries.path(of: "garaged"), ["--pins", pinsPath, "--socket", socketPath, "--no-ble", "--config", config],
                                    name: "garaged-bridge")
            let daemon = GaragedDaemon(process: process, pinsPath: pinsPath, socketPath: socketPath, tracePath: left)
            try waitForSocket(daemon)
            return daemon
        }
        var daemon = try start(light: false)
        let first = try homekitInfo(daemon)
        XCTAssertEqual(first["category"] as? Int, 2, "a bridge")
        XCTAssertEqual(try homekitPair(daemon).termination, .exited(0))
        let put = try hap(["put", "--pairing", pairingFile, "--port", try homekitPort(daemon), "--char", "3.18=0"])
        XCTAssertEqual(put.termination, .exited(0), put.stdout + put.stderr)
        waitUntil("the gate's press and release", timeout: .seconds(5)) { ((try? readTrace(gate))?.count ?? 0) >= 3 }
        let pressed = presses(in: try readTrace(gate))
        XCTAssertEqual(pressed.count, 1)
        if let p = pressed.first { assertWidth(p, 500, "the gate, from HomeKit") }
        XCTAssertEqual(presses(in: try readTrace(left)).count, 0, "the other door is not pressed")
        XCTAssertEqual(daemon.stop(), .exited(0))

        daemon = try start(light: false)
        XCTAssertEqual(try homekitInfo(daemon)["config_number"] as? Int, first["config_number"] as? Int, "nothing changed")
        XCTAssertEqual(daemon.stop(), .exited(0))
        daemon = try start(light: true)
        XCTAssertEqual(try homekitInfo(daemon)["config_number"] as? Int, (first["config_number"] as? Int ?? 0) + 1, "a lightbulb added")
        let read = try hap(["get", "--pairing", pairingFile, "--port", try homekitPort(daemon), "--char", "3.33"])
        XCTAssertEqual(read.termination, .exited(0), "the pairing outlived the change: " + read.stdout + read.stderr)
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    // MARK: - The security review of issue 29

    /// A public key for the pairings a test adds: any 32 bytes (nobody verifies with it).
    static let someKey = String(repeating: "ab", count: 32)

    /// `hapctl pair` as the controller `controller` (its pairing id), with the daemon's code.
    func pair(_ daemon: GaragedDaemon, as controller: String) throws -> CommandResult {
        let info = try homekitInfo(daemon)
        return try hap(["pair", "--host", "127.0.0.1", "--port", try homekitPort(daemon), "--code", info["setup_code"] as? String ?? "",
                        "--id", info["id"] as? String ?? "", "--pairing", pairingFile, "--controller-id", controller])
    }

    /// The TLV error an admin's `POST /pairings` met, from hapctl's refusal (exit 4).
    func tlvError(_ result: CommandResult) -> Int? {
        ((json(result.stdout) as? [String: Any])?["detail"] as? [String: Any])?["tlv_error"] as? Int
    }

    /// One add with a 12,000-byte pairing id grew `<table>.homekit` past the 64 KiB garaged reads,
    /// and garaged then refused to start (H3). A pairing id is now 1 to 64 bytes of printable
    /// ASCII, from pair-setup's M5 as from an add, else a TLV error; a 17th pairing is refused;
    /// the file stays small, and the next start finds all 16.
    func testPairingIDsAreBoundedAndTheFileAlwaysLoadsAgain() throws {
        var daemon = try homekitDaemon()
        for bad in [String(repeating: "a", count: 65), "new\nline", "esc\u{1B}[31m", "with space"] {
            let refused = try pair(daemon, as: bad)
            XCTAssertEqual(refused.termination, .exited(1), "\(bad.debugDescription): " + refused.stdout + refused.stderr)
            XCTAssertTrue(refused.stdout.contains("AuthenticationError"), refused.stdout)
        }
        let info = try homekitInfo(daemon)
        XCTAssertEqual(info["paired"] as? Bool, false)
        XCTAssertEqual(info["failed_setups"] as? Int, 0, "the code was right: no wrong code counted")
        let owner = String(repeating: "0", count: 64)
        XCTAssertEqual(try pair(daemon, as: owner).termination, .exited(0), "64 bytes is a pairing id")

        let port = try homekitPort(daemon)
        for bad in [String(repeating: "x", count: 12_000), String(repeating: "x", count: 65), "new\nline", "esc\u{1B}", "with space", ""] {
            let added = try hap(["add", "--pairing", pairingFile, "--port", port, "--controller-id", bad, "--key", HomeKitTests.someKey])
            XCTAssertEqual(added.termination, .exited(4), "\(bad.prefix(12).debugDescription): " + added.stdout + added.stderr)
            XCTAssertEqual(tlvError(added), 1, added.stdout)
        }
        let others = (1...15).map { "controller-\($0)" }
        let added = try hap(["add", "--pairing", pairingFile, "--port", port, "--key", HomeKitTests.someKey]
                            + others.flatMap { ["--controller-id", $0] })
        XCTAssertEqual(added.termination, .exited(0), added.stdout + added.stderr)
        let full = try hap(["add", "--pairing", pairingFile, "--port", port, "--controller-id", "controller-16", "--key", HomeKitTests.someKey])
        XCTAssertEqual(tlvError(full), 5, "a 17th pairing is MaxPeers: " + full.stdout)
        XCTAssertLessThan(readBytes(pinsPath + ".homekit")?.count ?? .max, 8 * 1024)

        XCTAssertEqual(daemon.stop(), .exited(0))
        daemon = try homekitDaemon()
        XCTAssertEqual(try homekitInfo(daemon)["pairings"] as? Int, 16, "every pairing is read back")
        let read = try hap(["get", "--pairing", pairingFile, "--port", try homekitPort(daemon), "--char", HomeKitTests.current])
        XCTAssertEqual(read.termination, .exited(0), read.stdout + read.stderr)
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// A `<table>.homekit` garaged cannot read stopped it from starting: the door went dark on
    /// every channel (H3). Now HomeKit alone stays off, said as an error naming the file and what
    /// to do; the door opens from the socket, and the file is left as it was.
    func testAHomeKitFileThatCannotBeReadTurnsOffOnlyHomeKit() throws {
        try initTable()
        let file = pinsPath + ".homekit"
        for (i, bytes) in [Array("{\"id\": 1}\n".utf8), [UInt8](repeating: 0x20, count: 64 * 1024 + 1)].enumerated() {
            try write(bytes, to: file)
            let trace = dir + "/relay\(i).trace"
            let daemon = try startDaemon(["--homekit", "--homekit-port", "0", "--homekit-bind", "127.0.0.1", "--auto-close-s", "0"],
                                         socket: dir + "/s\(i)", trace: trace)
            waitUntil("the error in the log", timeout: .seconds(5)) { daemon.log.contains("ERROR homekit-off file=\(file) ") }
            XCTAssertTrue(daemon.log.contains("remove it to make a new accessory"), daemon.log)
            XCTAssertEqual(try daemon.ask("12345O=1"), "OK", "the door still opens")
            try waitForTrace(daemon, count: 3)
            let shown = try pins(daemon, ["homekit"])
            assertExit(shown, 1)
            XCTAssertTrue(shown.stderr.contains("HomeKit is off") && shown.stderr.contains("homekit-off"), shown.stderr)
            XCTAssertEqual(readBytes(file), bytes, "the file is left as it was")
            XCTAssertEqual(daemon.stop(), .exited(0))
        }
    }

    /// A pairing id with a newline and an ESC, written into `<table>.homekit` by hand before
    /// start, and a controller that pair-verifies as it and opens the door: the log printed the
    /// id raw (a forged line), and so did `garage-pins status`, `log` and `homekit pairings` (a
    /// terminal sequence) (W2). Every value is now printed with its control characters escaped.
    func testControlCharactersInANameAreEscapedInTheLogAndTheOwnersOutput() throws {
        var daemon = try homekitDaemon()
        XCTAssertEqual(try homekitPair(daemon).termination, .exited(0))
        XCTAssertEqual(daemon.stop(), .exited(0))
        let evil = "evil\nINFO forged=1 \u{1B}[31mred"
        let escaped = "evil\\nINFO forged=1 \\x1b[31mred"
        // A second pairing with the same key under the evil id, and the controller's file as it.
        let path = pinsPath + ".homekit"
        var kept = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        var pairings = try XCTUnwrap(kept["pairings"] as? [[String: Any]])
        pairings.append(["id": evil, "public_key": pairings[0]["public_key"] ?? "", "admin": false])
        kept["pairings"] = pairings
        try write(Array(try JSONSerialization.data(withJSONObject: kept)), to: path)
        var controller = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: pairingFile))) as? [String: Any])
        controller["iOSPairingId"] = evil
        let evilFile = dir + "/evil.json"
        try write(Array(try JSONSerialization.data(withJSONObject: controller)), to: evilFile)

        daemon = try homekitDaemon()
        let open = try hap(["put", "--pairing", evilFile, "--port", try homekitPort(daemon), "--char", HomeKitTests.target + "=0"])
        XCTAssertEqual(open.termination, .exited(0), open.stdout + open.stderr)
        try waitForTrace(daemon, count: 3)
        waitUntil("the request in the log", timeout: .seconds(5)) { daemon.log.contains("source=\"homekit \(escaped)\"") }
        func clean(_ text: String, _ what: String) {
            XCTAssertFalse(text.contains("\u{1B}"), "\(what) holds an ESC: \(text)")
            XCTAssertFalse(text.split(separator: "\n").contains { $0.hasPrefix("INFO forged") }, "\(what) holds a forged line: \(text)")
        }
        clean(daemon.log, "the log")
        for args in [["status"], ["log"], ["homekit", "pairings"], ["log", "--json"], ["homekit", "pairings", "--json"]] {
            let out = try pins(daemon, args)
            assertExit(out, 0, args.joined(separator: " "))
            clean(out.stdout, args.joined(separator: " "))
            XCTAssertTrue(out.stdout.contains(args.last == "--json" ? escaped.replacingOccurrences(of: "\\", with: "\\\\") : escaped),
                          "\(args.joined(separator: " ")) shows the id escaped: \(out.stdout)")
        }
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// HomeKit pairings added and removed, wrong setup codes and resets were only in the log
    /// (W9). Each is now a history event saying who did it, shown by `garage-pins log`; wrong
    /// codes once per burst, with the count when it ends, as wrong PINs are.
    func testPairingsWrongCodesAndResetsAreInTheHistory() throws {
        let daemon = try homekitDaemon()
        let code = try XCTUnwrap(try homekitInfo(daemon)["setup_code"] as? String)
        let wrong = code == "111-22-333" ? "111-22-334" : "111-22-333"
        for _ in 0..<2 { XCTAssertEqual(try homekitPair(daemon, code: wrong).termination, .exited(1)) }
        XCTAssertEqual(try pair(daemon, as: "owner-phone").termination, .exited(0))
        let port = try homekitPort(daemon)
        let add = try hap(["add", "--pairing", pairingFile, "--port", port, "--controller-id", "guest-phone", "--key", HomeKitTests.someKey])
        XCTAssertEqual(add.termination, .exited(0), add.stdout + add.stderr)
        let remove = try hap(["remove", "--pairing", pairingFile, "--port", port, "--controller-id", "guest-phone"])
        XCTAssertEqual(remove.termination, .exited(0), remove.stdout + remove.stderr)
        assertExit(try pins(daemon, ["homekit", "reset"]), 0)

        var records: [[String: Any]] = []
        waitUntil("the reset in the history", timeout: .seconds(5)) {
            records = (try? self.pins(daemon, ["log", "--json"])).flatMap { json($0.stdout) as? [[String: Any]] } ?? []
            return records.contains { $0["kind"] as? String == "homekit-reset" }
        }
        func the(_ kind: String) -> [[String: Any]] { records.filter { $0["kind"] as? String == kind } }
        let wrongCodes = the("wrong-setup-code")
        XCTAssertEqual(wrongCodes.count, 1, "one record for the burst: \(records)")
        XCTAssertTrue((wrongCodes.first?["source"] as? String ?? "").hasPrefix("homekit 127.0.0.1:"), "\(wrongCodes)")
        XCTAssertEqual(wrongCodes.first?["detail"] as? String, "1 of 100 tries")
        let pairs = the("pair").map { [$0["label"] as? String ?? "?", $0["source"] as? String ?? "?", $0["detail"] as? String ?? "?"] }
        XCTAssertEqual(pairs.count, 2, "\(records)")
        if pairs.count == 2 {
            XCTAssertEqual(pairs[0][0], "owner-phone")
            XCTAssertTrue(pairs[0][1].hasPrefix("homekit 127.0.0.1:"), "paired by pair-setup from its address: \(pairs[0])")
            XCTAssertEqual(pairs[0][2], "admin")
            XCTAssertEqual(pairs[1], ["guest-phone", "homekit owner-phone", "user"], "added by the admin")
        }
        let unpairs = the("unpair")
        XCTAssertEqual(unpairs.map { $0["label"] as? String }, ["guest-phone"])
        XCTAssertEqual(unpairs.first?["source"] as? String, "homekit owner-phone")
        let reset = the("homekit-reset")
        XCTAssertEqual(reset.first?["detail"] as? String, "1 pairing forgotten, a new setup code")
        XCTAssertTrue((reset.first?["source"] as? String ?? "").hasPrefix("local "), "\(reset)")
        let table = try pins(daemon, ["log"])
        for kind in ["wrong-setup-code", "pair", "unpair", "homekit-reset"] { XCTAssertTrue(table.stdout.contains(kind), table.stdout) }

        XCTAssertEqual(daemon.stop(), .exited(0))
        let attempts = readText(pinsPath + ".events.attempts")
        XCTAssertTrue(attempts.contains("\"kind\":\"wrong-setup-code\"") && attempts.contains("\"count\":1"),
                      "the burst's count when garaged stopped: \(attempts)")
    }

    /// On a full disk a wrong setup code was not counted (the count was saved before it was
    /// kept, and the save failed), so the 100-try limit never came (W10). The count is now kept
    /// in memory first, and pair-setup is refused (Backoff) while it cannot be saved; once it
    /// can, it is saved and pair-setup opens again. The table's folder taken away makes every
    /// save fail, as in `testAChangeThatCannotBeSavedIsNotMade`.
    func testAWrongSetupCodeCountsEvenWhileItCannotBeSaved() throws {
        let tableDir = dir + "/table"
        XCTAssertEqual(mkdir(tableDir, 0o755), 0)
        let pins = tableDir + "/pins"
        try initTable(path: pins)
        _ = try python()
        let daemon = try startDaemon(["--homekit", "--homekit-port", "0", "--homekit-bind", "127.0.0.1", "--auto-close-s", "0"], pins: pins)
        let code = try XCTUnwrap(try homekitInfo(daemon)["setup_code"] as? String)
        let wrong = code == "111-22-333" ? "111-22-334" : "111-22-333"
        try FileManager.default.removeItem(atPath: tableDir)
        let refused = try homekitPair(daemon, code: wrong)
        XCTAssertTrue(refused.stdout.contains("AuthenticationError"), refused.stdout)
        XCTAssertEqual(try homekitInfo(daemon)["failed_setups"] as? Int, 1, "counted though it could not be saved")
        let held = try homekitPair(daemon)
        XCTAssertEqual(held.termination, .exited(1))
        XCTAssertTrue(held.stdout.contains("BackoffError"), "no code is tried while a failure is unsaved: " + held.stdout)
        waitUntil("the failed save in the log", timeout: .seconds(5)) { daemon.log.contains("ERROR homekit-save-failed what=\"failed pair-setup\"") }

        XCTAssertEqual(mkdir(tableDir, 0o755), 0)
        let paired = try homekitPair(daemon)
        XCTAssertEqual(paired.termination, .exited(0), paired.stdout + paired.stderr)
        let info = try homekitInfo(daemon)
        XCTAssertEqual(info["failed_setups"] as? Int, 1)
        XCTAssertEqual(info["paired"] as? Bool, true)
        XCTAssertTrue(readText(pins + ".homekit").contains("\"failed_setups\":1"), readText(pins + ".homekit"))
        XCTAssertEqual(daemon.stop(), .exited(0))
    }
}

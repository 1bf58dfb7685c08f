import Foundation
import XCTest

/// `[door NAME]` sections and `--door.NAME.KEY` flags (issue 20's config): a door's settings
/// come from its section, every mistake stops garaged naming the file and line (or the flag),
/// and a config without sections means what it always meant.
final class DoorSectionsTests: GaragedTestCase {
    private func writeConfig(_ text: String, name: String = "doors.conf") throws -> String {
        let path = "\(dir)/\(name)"
        try write(Array(text.utf8), to: path)
        return path
    }

    /// garaged with only the global flags (the harness's own `--relay` is a door's setting,
    /// refused once doors are declared).
    private func launch(_ extra: [String], trace: String) throws -> GaragedDaemon {
        let process = try spawn(try Binaries.path(of: "garaged"),
                                ["--pins", pinsPath, "--socket", socketPath, "--no-ble"] + extra, name: "garaged-doors")
        return GaragedDaemon(process: process, pinsPath: pinsPath, socketPath: socketPath, tracePath: trace)
    }

    /// Starts garaged with `extra` and expects it to stop at once, its message holding every
    /// string in `naming`, with no socket made and no line claimed.
    private func assertRefused(_ extra: [String], naming: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let daemon = try launch(extra, trace: tracePath)
        XCTAssertEqual(daemon.process.waitForExit(timeout: .seconds(5)), .exited(1), file: file, line: line)
        for e in naming { XCTAssertTrue(daemon.log.contains(e), "stderr should name '\(e)': \(daemon.log)", file: file, line: line) }
        XCTAssertFalse(fileExists(socketPath), "no socket for a daemon that cannot start", file: file, line: line)
        XCTAssertFalse(fileExists(dir + "/a.trace") || fileExists(dir + "/b.trace"), "no line claimed", file: file, line: line)
    }

    /// One section is one door, with that section's timing; a `--door.NAME.KEY` flag wins over it.
    func testASectionSetsItsDoorAndAFlagWinsOverIt() throws {
        try initTable()
        let trace = dir + "/a.trace"
        let config = try writeConfig("""
            # the settings for all doors
            ble = false
            [door left]
            auto-close-s = 0
            relay = sim:\(trace)
            pulse-ms = 120
            travel-s = 1
            """)
        for (flags, width) in [([String](), 120.0), (["--door.left.pulse-ms", "150"], 150.0)] {
            try? FileManager.default.removeItem(atPath: trace)
            let daemon = try launch(["--config", config] + flags, trace: trace)
            try waitForSocket(daemon)
            XCTAssertEqual(try daemon.ask("12345O=1"), "OK")
            try waitForTrace(daemon, count: 3)
            XCTAssertEqual(daemon.stop(), .exited(0))
            let press = try XCTUnwrap(presses(in: try daemon.trace()).first)
            assertWidth(press, width, "pulse-ms from [door left]" + (flags.isEmpty ? "" : " and --door.left.pulse-ms"))
        }
    }

    /// Every mistake a file with sections can hold stops garaged at start, naming the file,
    /// the line and what to do.
    func testEveryMistakeInASectionedFileIsRefusedNamingItsLine() throws {
        try initTable()
        let cases: [(String, [String])] = [
            ("pulse-ms = 200\n[door a]\nrelay = sim:\(dir)/a.trace\n", [":1:", "'pulse-ms' is a door's own setting", "[door a] on line 2"]),
            ("[door a]\nmqtt = mqtt://localhost\n", [":2:", "'mqtt' is a setting for all doors", "above the first [door] section"]),
            ("[door a]\npulse-ms = 100\npulse-ms = 200\n", [":3:", "'pulse-ms' is set twice in [door a] (first on line 2)"]),
            ("[door a]\n[door a]\n", [":2:", "door 'a' is declared twice (first on line 1)"]),
            ("[door Left]\n", [":1:", "'Left' is not a door name", "a-z, 0-9 and '-'"]),
            ("[door a-very-long-door-name]\n", [":1:", "is not a door name"]),
            ("[door 12]\n", [":1:", "'12' is not a door name: digits alone are a door's number"]),
            ("[door]\n", [":1:", "'[door]' is not a section header", "[door NAME]"]),
            ("[gate a]\n", [":1:", "'[gate a]' is not a section header"]),
            ((1...9).map { "[door d\($0)]\nrelay = sim:\(dir)/d\($0).trace\n" }.joined(), [":17:", "[door d9] would be door 9", "at most 8 doors"]),
            ("[door a]\nrelay = sim:\(dir)/a.trace\n[door b]\nrelay = sim:\(dir)/a.trace\n",
             [":4:", "is already door a's relay", ":2:", "door b's relay needs a line of its own"]),
            ("[door a]\nrelay = sim:\(dir)/a.trace\nsensor-closed = sim:\(dir)/a.trace\n",
             [":3:", "is already the relay", "door a's closed switch needs a line of its own"]),
            ("[door a]\n[door b]\n", [":2: door b has no relay set (the default)", "is already door a's relay", "door b's relay needs a line of its own"]),
        ]
        for (i, (text, naming)) in cases.enumerated() {
            let config = try writeConfig(text, name: "case\(i).conf")
            try assertRefused(["--config", config], naming: ["case\(i).conf"] + naming)
        }
    }

    /// The flags' own mistakes: a door's setting as a plain flag once doors are declared, a
    /// setting for all doors given for one door, a bad name, a door flag given twice.
    func testDoorFlagsAreCheckedLikeTheFile() throws {
        try initTable()
        try assertRefused(["--door.a.relay", "sim:\(dir)/a.trace", "--pulse-ms", "200"],
                          naming: ["--pulse-ms 200", "pulse-ms is a door's own setting", "--door.NAME.pulse-ms"])
        try assertRefused(["--door.a.mqtt", "mqtt://localhost"], naming: ["--door.a.mqtt", "a setting for all doors", "give it as --mqtt"])
        try assertRefused(["--door.A.relay", "sim:\(dir)/a.trace"], naming: ["--door.A.relay", "'A' is not a door name"])
        try assertRefused(["--door.a", "x"], naming: ["--door.a", "--door.NAME.KEY"])
        try assertRefused(["--door.a.pulse-ms", "100", "--door.a.pulse-ms", "200"], naming: ["--door.a.pulse-ms is given twice"])
        let config = try writeConfig("pulse-ms = 200\n", name: "top.conf")
        try assertRefused(["--config", config, "--door.a.relay", "sim:\(dir)/a.trace"],
                          naming: ["top.conf:1: pulse-ms = 200", "doors are declared (--door.a.*)"])
    }

    /// `garaged doctor` checks every door's lines, each named by its door.
    func testDoctorChecksEveryDoorsLines() throws {
        try initTable()
        let config = try writeConfig("""
            [door left]
            relay = sim:\(dir)/a.trace
            [door gate]
            relay = sim:\(dir)/b.trace
            warn = gpiochip-none:3
            """)
        let child = try spawn(try Binaries.path(of: "garaged"),
                              ["doctor", "--pins", pinsPath, "--socket", socketPath, "--no-ble", "--config", config], name: "doctor")
        XCTAssertNotNil(child.waitForExit(timeout: .seconds(15)))
        for expected in ["left relay", "gate relay", "gate warning", "gpiochip-none", "left sensors", "gate sensors"] {
            XCTAssertTrue(child.stdout.contains(expected), "doctor should report '\(expected)':\n\(child.stdout)")
        }
    }
}

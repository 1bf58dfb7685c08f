import Foundation
import XCTest

/// `--config FILE`: settings from the file, flags winning over it, and bad settings stopping the
/// daemon with a message that names them.
final class ConfigTests: GaragedTestCase {
    private func writeConfig(_ text: String, name: String = "garaged.conf") throws -> String {
        let path = "\(dir)/\(name)"
        try write(Array(text.utf8), to: path)
        return path
    }

    /// Opens once and returns the press, after a clean stop (so the trace is complete).
    private func pressOnce(_ daemon: GaragedDaemon, file: StaticString = #filePath, line: UInt = #line) throws -> Press? {
        XCTAssertEqual(try daemon.ask("12345O=1"), "OK", file: file, line: line)
        try waitForTrace(daemon, count: 3, file: file, line: line)
        XCTAssertEqual(daemon.stop(), .exited(0), file: file, line: line)
        let trace = try daemon.trace()
        XCTAssertEqual(trace.map(\.level), [0, 1, 0], file: file, line: line)
        return presses(in: trace).first
    }

    func testPulseMsFromTheConfigFile() throws {
        try initTable()
        let config = try writeConfig("""
            # garaged settings
            pulse-ms = 120   # a short press

            travel-s=1
            """)
        let daemon = try startDaemon(["--config", config])
        if let press = try pressOnce(daemon) { assertWidth(press, 120, "pulse-ms = 120 from --config") }
        // The start-up summary (logged just after the socket starts listening) agrees.
        XCTAssertTrue(daemon.log.contains("pulse_ms=120 travel_s=1"), daemon.log)
    }

    func testAFlagOverridesTheConfigFile() throws {
        try initTable()
        let config = try writeConfig("pulse-ms = 120\n")
        let daemon = try startDaemon(["--config", config, "--pulse-ms", "200"])
        if let press = try pressOnce(daemon) { assertWidth(press, 200, "--pulse-ms 200 over pulse-ms = 120") }
    }

    /// Every path the daemon uses can come from the file alone.
    func testPathsFromTheConfigFile() throws {
        try initTable()
        let config = try writeConfig("""
            pins = \(pinsPath)
            socket = \(socketPath)
            relay = sim:\(tracePath)
            ble = false
            auto-close-s = 0
            """)
        let garaged = try Binaries.path(of: "garaged")
        let process = try spawn(garaged, ["--config", config], name: "garaged-config-only")
        let daemon = GaragedDaemon(process: process, pinsPath: pinsPath, socketPath: socketPath, tracePath: tracePath)
        try waitForSocket(daemon)
        if let press = try pressOnce(daemon) { assertWidth(press, 300, "default pulse, paths from --config") }
        XCTAssertTrue(daemon.log.contains("auto_close_s=off ble=off"), daemon.log)
    }

    /// Starting must fail (exit 1) before anything is touched, with `expect` in the message.
    private func assertRefusesToStart(_ extra: [String], naming expect: [String],
                                      file: StaticString = #filePath, line: UInt = #line) throws {
        let table = readBytes(pinsPath)
        let daemon = try launchDaemon(extra)
        XCTAssertEqual(daemon.process.waitForExit(timeout: .seconds(5)), .exited(1), file: file, line: line)
        for e in expect {
            XCTAssertTrue(daemon.log.contains(e), "stderr should name '\(e)': \(daemon.log)", file: file, line: line)
        }
        XCTAssertFalse(fileExists(socketPath), "no socket for a daemon that cannot start", file: file, line: line)
        XCTAssertFalse(fileExists(tracePath), "no relay claimed for a daemon that cannot start", file: file, line: line)
        XCTAssertEqual(readBytes(pinsPath), table, file: file, line: line)
    }

    func testAnUnknownKeyStopsTheDaemonNamingIt() throws {
        try initTable()
        let config = try writeConfig("pulse-ms = 120\npluse-ms = 120\n")
        try assertRefusesToStart(["--config", config], naming: ["pluse-ms", "unknown", config])
    }

    func testOutOfRangeValuesStopTheDaemonNamingThem() throws {
        try initTable()
        try assertRefusesToStart(["--pulse-ms", "10"], naming: ["pulse-ms", "50", "5000", "10"])
        try assertRefusesToStart(["--pulse-ms", "5001"], naming: ["pulse-ms", "5001"])
        try assertRefusesToStart(["--travel-s", "301"], naming: ["travel-s", "301"])
        let range = try writeConfig("auto-close-s = 90000\n", name: "range.conf")
        try assertRefusesToStart(["--config", range], naming: ["auto-close-s", "90000"])
        let notNumber = try writeConfig("pulse-ms = fast\n", name: "nan.conf")
        try assertRefusesToStart(["--config", notNumber], naming: ["pulse-ms", "fast"])
        let twice = try writeConfig("pulse-ms = 100\npulse-ms = 200\n", name: "twice.conf")
        try assertRefusesToStart(["--config", twice], naming: ["pulse-ms", "twice"])
        try assertRefusesToStart(["--config", dir + "/no-such.conf"], naming: [dir + "/no-such.conf"])
    }
}

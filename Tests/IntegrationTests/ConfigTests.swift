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
              # a short press
            pulse-ms = 120

            travel-s=1
            """)
        let daemon = try startDaemon(["--config", config])
        if let press = try pressOnce(daemon) { assertWidth(press, 120, "pulse-ms = 120 from --config") }
        // The start-up summary (logged just after the socket starts listening) agrees.
        waitUntil("the start line", timeout: .seconds(5)) { daemon.log.contains("pulse_ms=120 travel_s=1") }
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
        waitUntil("the start line", timeout: .seconds(5)) { daemon.log.contains("auto_close_s=off ble=off") }
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

    /// `opener` takes `secplus2:DEVICE` or `secplus1:DEVICE`, and the refusal says which.
    func testAnOpenerGaragedDoesNotSpeakIsRefusedSayingWhatIsAccepted() throws {
        try initTable()
        try assertRefusesToStart(["--opener", "secplus3:/dev/ttyAMA0"], naming: ["--opener secplus3:/dev/ttyAMA0", "secplus2:DEVICE", "secplus1:DEVICE"])
        try assertRefusesToStart(["--opener", "secplus2:"], naming: ["--opener", "needs the serial device"])
    }

    /// A door with an opener has no relay: a relay set beside it stops garaged naming both keys,
    /// on the command line and in a door's section.
    func testARelayBesideAnOpenerIsRefusedNamingBoth() throws {
        try initTable()
        // launchDaemon always passes --relay sim:TRACE.
        try assertRefusesToStart(["--opener", "secplus2:\(dir)/tty"], naming: ["--relay sim:", "--opener secplus2:", "both a relay and an opener"])
        let config = try writeConfig("""
            [door side]
            relay = sim:\(dir)/side.trace
            opener = secplus2:\(dir)/tty
            """)
        // Without the harness's --relay, which doors in sections refuse at the top.
        let garaged = try spawn(try Binaries.path(of: "garaged"), ["--pins", pinsPath, "--socket", socketPath, "--no-ble", "--config", config],
                                name: "garaged-relay-and-opener")
        XCTAssertEqual(garaged.waitForExit(timeout: .seconds(5)), .exited(1))
        for e in ["\(config):2", "\(config):3", "door side cannot have both a relay and an opener"] {
            XCTAssertTrue(garaged.stderr.contains(e), "stderr should name '\(e)': \(garaged.stderr)")
        }
        XCTAssertFalse(fileExists("\(dir)/side.trace"), "no relay claimed")
    }

    func testAnUnknownKeyStopsTheDaemonNamingIt() throws {
        try initTable()
        let config = try writeConfig("pulse-ms = 120\npluse-ms = 120\n")
        try assertRefusesToStart(["--config", config], naming: ["pluse-ms", "unknown", config])
    }

    /// Issue 32: a typo in a setting's name, in the file or as a flag (a door's too), says which
    /// setting was meant; a name like none lists them all.
    func testATypoInASettingsNameSaysWhichWasMeant() throws {
        try initTable()
        let typo = try writeConfig("relya = gpiochip0:17\n", name: "typo.conf")
        try assertRefusesToStart(["--config", typo], naming: ["typo.conf:1: unknown setting 'relya'; did you mean 'relay'?"])
        try assertRefusesToStart(["--relya", "gpiochip0:17"], naming: ["unknown option --relya (did you mean --relay?)"])
        try assertRefusesToStart(["--door.gate.sensor-close", "gpiochip0:27"],
                                 naming: ["unknown option --door.gate.sensor-close (did you mean --door.gate.sensor-closed?)"])
        let unlike = try writeConfig("colour = red\n", name: "unlike.conf")
        try assertRefusesToStart(["--config", unlike], naming: ["unknown setting 'colour'; known: active-low,"])
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

    /// What the review found slipping through: each is now refused with the key (or line) named.
    func testValuesThatWouldSilentlyChangeAreRefused() throws {
        try initTable()
        // An empty socket path would bind an abstract socket any local user can reach.
        let emptyFlag = try launchDaemon([], socket: "")
        XCTAssertEqual(emptyFlag.process.waitForExit(timeout: .seconds(5)), .exited(1))
        XCTAssertTrue(emptyFlag.log.contains("--socket '': empty"), emptyFlag.log)
        let emptySocket = try writeConfig("socket =\n", name: "empty.conf")
        try assertRefusesToStart(["--config", emptySocket], naming: ["'socket'", "no value"])
        // A '#' inside a value used to cut it ("Door #2" became "Door").
        let hash = try writeConfig("ble-name = Door #2\n", name: "hash.conf")
        try assertRefusesToStart(["--config", hash], naming: ["'ble-name'", "#", "quote it"])
        let trailing = try writeConfig("pulse-ms = 300   # 50-5000\n", name: "trailing.conf")
        try assertRefusesToStart(["--config", trailing], naming: ["'pulse-ms'", "comments go on lines of their own"])
        // A directory is not a config file (it used to start with every default).
        try assertRefusesToStart(["--config", dir], naming: [dir, "not a regular file"])
        // Bytes that are not UTF-8 used to become U+FFFD.
        let latin1 = "\(dir)/latin1.conf"
        try write(Array("ble-name = Gar".utf8) + [0xE7, 0x0A], to: latin1)
        try assertRefusesToStart(["--config", latin1], naming: ["latin1.conf:1", "UTF-8"])
    }

    func testAQuotedValueKeepsItsHash() throws {
        try initTable()
        let config = try writeConfig(#"ble-name = "Door #2""# + "\n")
        let daemon = try startDaemon(["--config", config, "--att-socket", attSocketPath])
        // The GAP device name, read over the ATT seam (Read By Type 0x2A00).
        let bearer = try connectBearer(daemon)
        XCTAssertEqual(try bearer.exchange("08 01 00 FF FF 00 2A"), "09 09 03 00 " + attHex(Array("Door #2".utf8)))
        XCTAssertNil(daemon.process.poll())
    }

    /// The shipped example is a config garaged accepts as written (its hardware paths replaced
    /// by flags, which win).
    func testTheExampleConfigIsAccepted() throws {
        try initTable()
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let daemon = try startDaemon(["--config", repo + "/packaging/garaged.conf.example"])
        XCTAssertEqual(try daemon.ask("12345S"), "S CLOSED")
        waitUntil("the start line with the example's timing", timeout: .seconds(3)) {
            daemon.log.contains("pulse_ms=300 travel_s=12 auto_close_s=30")
        }
    }

    /// Every setting `garaged --help` lists (from the catalog) is in the configuration reference
    /// (docs/configuration.md, which `garaged settings-reference` makes from the same catalog and
    /// scripts/generate-docs.sh writes: the committed page must be what the code makes) and
    /// shown in the example config, so a new setting cannot be left out of either.
    func testEverySettingIsInTheReferenceAndTheExampleConfig() throws {
        let help = try spawn(try Binaries.path(of: "garaged"), ["--help"], name: "garaged-help")
        XCTAssertEqual(help.waitForExit(timeout: .seconds(5)), .exited(0))
        let keys = help.stdout.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("--"), line.contains(": ") else { return nil }
            let flag = line.dropFirst(2).prefix { $0 != " " && $0 != ":" }
            return String(flag.hasPrefix("[no-]") ? flag.dropFirst(5) : flag)
        }
        XCTAssertGreaterThan(keys.count, 15, help.stdout)
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let reference = readText(repo + "/docs/configuration.md"), example = readText(repo + "/packaging/garaged.conf.example")
        let generated = try spawn(try Binaries.path(of: "garaged"), ["settings-reference"], name: "garaged-reference")
        XCTAssertEqual(generated.waitForExit(timeout: .seconds(5)), .exited(0), generated.stderr)
        XCTAssertEqual(generated.stdout, reference, "docs/configuration.md is out of date: run scripts/generate-docs.sh")
        for key in keys {
            XCTAssertTrue(reference.contains("| `\(key)` |"), "docs/configuration.md lacks \(key)")
            XCTAssertTrue(example.contains("\n\(key) = ") || example.contains("# \(key) = "), "the example config lacks \(key)")
        }
    }
}

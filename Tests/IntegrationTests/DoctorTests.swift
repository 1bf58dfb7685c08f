import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `garaged doctor`: one line per finding that says what to fix, exit 1 only for what would
/// stop the daemon, and nothing changed by looking. (Its GPIO checks on a real chip run in the
/// kernel: system-test/scenarios/50-second-daemon-busy.sh.)
final class DoctorTests: GaragedTestCase {
    private func lines(_ out: String, _ level: String, _ subject: String) -> [String] {
        out.split(separator: "\n").map(String.init).filter { $0.hasPrefix(level) && $0.contains(" \(subject): ") }
    }

    func testAReadyMachineIsWellAndNothingIsChangedByLooking() throws {
        try initTable()
        let before = readBytes(pinsPath)
        let r = try doctor([])
        XCTAssertEqual(r.termination, .exited(0), r.stdout)
        XCTAssertTrue(lines(r.stdout, "FAIL", "").isEmpty, r.stdout)
        XCTAssertEqual(lines(r.stdout, "ok", "table").count, 1, r.stdout)
        XCTAssertTrue(r.stdout.contains("1 of 16 slots used"), r.stdout)
        XCTAssertTrue(r.stdout.hasSuffix("garaged can start.\n") || r.stdout.hasSuffix("warning(s) to read.\n"), r.stdout)
        XCTAssertEqual(readBytes(pinsPath), before, "the doctor changed the table")
        XCTAssertFalse(fileExists(socketPath), "the doctor created the socket")
        XCTAssertFalse(fileExists(tracePath), "the doctor claimed the (simulated) relay")
    }

    func testEachProblemIsOneLineThatSaysWhatToDo() throws {
        // No table: create it.
        var r = try doctor([])
        XCTAssertEqual(r.termination, .exited(1))
        XCTAssertEqual(lines(r.stdout, "FAIL", "table"), ["FAIL  table: \(pinsPath) does not exist; create it (it asks for the master PIN): garage-pins init --pins \(pinsPath)"])

        // A table others can read: chmod.
        try initTable()
        chmod(pinsPath, 0o644)
        r = try doctor([])
        XCTAssertEqual(r.termination, .exited(1))
        XCTAssertEqual(lines(r.stdout, "FAIL", "table"), ["FAIL  table: \(pinsPath) has mode 644: other users can read the PINs; sudo chmod 600 \(pinsPath)"])
        chmod(pinsPath, 0o600)

        // A socket in a directory that is not there: mkdir.
        r = try doctor([], socket: dir + "/missing/garaged.sock")
        XCTAssertEqual(r.termination, .exited(1))
        XCTAssertEqual(lines(r.stdout, "FAIL", "socket"), ["FAIL  socket: \(dir)/missing does not exist; create it (mkdir -p \(dir)/missing) or choose another --socket"])

        // A typo in the config: the settings line says which key.
        try write(Array("pulse-ms = 300\npuls-ms = 300\n".utf8), to: dir + "/garaged.conf")
        r = try doctor(["--config", dir + "/garaged.conf"])
        XCTAssertEqual(r.termination, .exited(1))
        let settings = lines(r.stdout, "FAIL", "settings")
        XCTAssertEqual(settings.count, 1, r.stdout)
        XCTAssertTrue(settings.first?.contains("puls-ms") == true, r.stdout)

        // A chip that is not there: the line says so and where to look.
        r = try doctor([], relay: "gpiochip99:17")
        XCTAssertEqual(r.termination, .exited(1))
        let relay = lines(r.stdout, "FAIL", "relay")
        XCTAssertEqual(relay.count, 1, r.stdout)
        XCTAssertTrue(relay.first?.contains("gpiodetect") == true, r.stdout)

        // An automatic close with no warning output: works, but a warning says why it matters.
        r = try doctor(["--auto-close-s", "300"])
        XCTAssertEqual(r.termination, .exited(0), r.stdout)
        XCTAssertTrue(lines(r.stdout, "warn", "auto-close").contains { $0.contains("16 CFR 1211.14") }, r.stdout)
    }

    /// Issue 32: the first line names the system (a bookworm arm64 Pi is warned that the
    /// package needs trixie: SystemReleaseTests), even when the settings are wrong.
    func testTheFirstLineNamesTheSystem() throws {
        try initTable()
        var u = utsname()
        XCTAssertEqual(uname(&u), 0)
        let machine = withUnsafeBytes(of: u.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let release = readText("/etc/os-release")
        let pretty = release.split(separator: "\n").first { $0.hasPrefix("PRETTY_NAME=") }
            .map { $0.dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        for extra in [[], ["--pulse-ms", "1"]] {
            let r = try doctor(extra)
            let first = r.stdout.split(separator: "\n").first.map(String.init) ?? ""
            XCTAssertTrue(first.hasPrefix("ok    system: ") || first.hasPrefix("warn  system: "), r.stdout)
            XCTAssertTrue(first.contains(", \(machine)"), "names the machine \(machine): \(first)")
            if let pretty { XCTAssertTrue(first.contains(pretty), "names \(pretty): \(first)") }
        }
    }

    func testBesideTheRunningDaemonItSaysSoAndPasses() throws {
        try initTable()
        let daemon = try startDaemon()
        let r = try doctor([])
        XCTAssertEqual(r.termination, .exited(0), r.stdout)
        XCTAssertEqual(lines(r.stdout, "ok", "table").last, "ok    table: in use by a running garaged (pid \(daemon.process.pid))")
        XCTAssertTrue(lines(r.stdout, "ok", "socket").contains("ok    socket: \(socketPath): a garaged answers on it"), r.stdout)
        XCTAssertEqual(try daemon.trace().map(\.level), [0], "the doctor moved the relay")
    }

    func testTheBrokerIsTriedForReal() throws {
        try initTable()
        let broker = try MQTTBroker(self)
        var r = try doctor(["--mqtt", broker.url])
        XCTAssertEqual(lines(r.stdout, "ok", "mqtt"), ["ok    mqtt: \(broker.url) accepts connections"], r.stdout)
        broker.kill()
        r = try doctor(["--mqtt", broker.url])
        XCTAssertEqual(r.termination, .exited(0), "a broker that is down does not stop garaged: \(r.stdout)")
        let warn = lines(r.stdout, "warn", "mqtt")
        XCTAssertEqual(warn.count, 1, r.stdout)
        XCTAssertTrue(warn.first?.contains("Connection refused") == true, r.stdout)
    }

    /// HomeKit on a machine without avahi-daemon (here: a system bus that is not there, so the
    /// host's own bus plays no part): a warning that iPhones will not find the accessory, and the
    /// fix. (With avahi running: HomeKitDiscoveryTests.)
    func testHomeKitWithoutAvahiSaysIPhonesWillNotFindIt() throws {
        try initTable()
        let child = try spawn(try Binaries.path(of: "garaged"),
                              ["doctor", "--pins", pinsPath, "--socket", socketPath, "--relay", "sim:\(tracePath)", "--no-ble", "--homekit"],
                              environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(dir)/no-bus"], name: "doctor-homekit")
        XCTAssertEqual(child.waitForExit(timeout: .seconds(15)), .exited(0), "garaged still starts: \(child.stdout)")
        XCTAssertEqual(lines(child.stdout, "warn", "homekit"), [
            "warn  homekit: avahi-daemon is not running: iPhones will not find the accessory (HomeKit still serves on port 51826, to a controller given the address); sudo apt install avahi-daemon, then sudo systemctl enable --now avahi-daemon",
        ], child.stdout)
    }

    /// Issue 39: `sudo garaged doctor`, as the postinst says it, reads the default file when no
    /// --config is given (GARAGED_CONFIG here stands for /etc/garaged.conf) and says so; it
    /// checks the file's relay, not the built-in simulated one. The daemon reads it too and says
    /// so at start. Without the file, both say they run on the built-in defaults.
    func testWithoutConfigTheDefaultFileIsReadAndSaid() throws {
        try initTable()
        let conf = dir + "/garaged.conf", fileTrace = dir + "/from-file.trace", events = dir + "/from-file.events"
        try write(Array("pins = \(pinsPath)\nsocket = \(socketPath)\nrelay = sim:\(fileTrace)\nble = false\nevents = \(events)\n".utf8), to: conf)
        let child = try spawn(try Binaries.path(of: "garaged"), ["doctor"], environment: ["GARAGED_CONFIG": conf], name: "doctor-default")
        XCTAssertEqual(child.waitForExit(timeout: .seconds(15)), .exited(0), child.stdout)
        XCTAssertEqual(lines(child.stdout, "ok", "settings"), ["ok    settings: \(conf) (no --config given: the default file) and the flags: every key known, every value valid"], child.stdout)
        XCTAssertTrue(lines(child.stdout, "ok", "relay").contains { $0.contains(fileTrace) }, "the file's relay is checked: \(child.stdout)")

        let missing = try spawn(try Binaries.path(of: "garaged"), ["doctor", "--pins", pinsPath, "--socket", socketPath, "--no-ble"],
                                environment: ["GARAGED_CONFIG": dir + "/no-such.conf"], name: "doctor-none")
        XCTAssertEqual(missing.waitForExit(timeout: .seconds(15)), .exited(0), missing.stdout)
        XCTAssertEqual(lines(missing.stdout, "ok", "settings"), ["ok    settings: the built-in defaults and the flags (no --config given, and no \(dir)/no-such.conf): every key known, every value valid"], missing.stdout)

        let daemon = try spawn(try Binaries.path(of: "garaged"), [], environment: ["GARAGED_CONFIG": conf], name: "garaged-default")
        defer { kill(daemon.pid, SIGTERM); _ = daemon.waitForExit(timeout: .seconds(5)) }
        waitUntil("the start line", timeout: .seconds(10)) { daemon.stderr.contains(" start ") }
        XCTAssertTrue(daemon.stderr.contains("config file=\(conf) how=\"the default file: no --config given\""), daemon.stderr)
        XCTAssertTrue(daemon.stderr.contains("events=\(events)"), "the file's settings are in force: \(daemon.stderr)")
    }
}

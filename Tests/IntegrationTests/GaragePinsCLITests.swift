import Foundation
import XCTest

/// `garage-pins`, the owner's shell tool, as a subprocess: its output and its documented exit
/// codes (0 done, 1 refused, 2 usage, 3 daemon unreachable).
final class GaragePinsCLITests: GaragedTestCase {
    func testOpenCloseAndStatusWithThePINFromTheEnvironment() throws {
        try initTable()
        let daemon = try startDaemon(["--travel-s", "0", "--auto-close-s", "0"])
        let env = ["GARAGE_PIN": "12345"]
        let socket = ["--socket", daemon.socketPath]

        let status = try garagePins(["status"] + socket, environment: env)
        XCTAssertEqual(status.termination, .exited(0), status.stderr)
        XCTAssertEqual(doorState(status.stdout), "CLOSED", status.stdout)

        let open = try garagePins(["open"] + socket, environment: env)
        XCTAssertEqual(open.termination, .exited(0), open.stderr)
        XCTAssertEqual(open.stdout, "OK\n")
        try waitForTrace(daemon, count: 3)
        try waitForStatus(daemon, "S OPEN") { $0 == "S OPEN" }
        let opened = try garagePins(["status"] + socket, environment: env).stdout
        XCTAssertEqual(doorState(opened), "OPEN")
        XCTAssertTrue(squeezed(opened).contains("opened by master PIN"), "who opened it, from the status: \(opened)")

        let close = try garagePins(["close"] + socket, environment: env)
        XCTAssertEqual(close.termination, .exited(0), close.stderr)
        XCTAssertEqual(close.stdout, "OK\n")
        let trace = try waitForTrace(daemon, count: 5)
        XCTAssertEqual(trace.map(\.level), [0, 1, 0, 1, 0])
        reportWidths(presses(in: trace), "garage-pins open and close")

        // --pin wins over GARAGE_PIN.
        let flag = try garagePins(["status", "--pin", "12345"] + socket, environment: ["GARAGE_PIN": "99999"])
        XCTAssertEqual(flag.termination, .exited(0), flag.stderr)
    }

    func testAWrongPINExitsOneWithTheDaemonsReason() throws {
        try initTable()
        let daemon = try startDaemon()
        let result = try garagePins(["open", "--socket", daemon.socketPath], environment: ["GARAGE_PIN": "99999"])
        XCTAssertEqual(result.termination, .exited(1))
        XCTAssertTrue(result.stderr.contains("ERR PIN"), result.stderr)
        XCTAssertTrue(result.stderr.contains("wrong PIN"), result.stderr)
        XCTAssertEqual(result.stdout, "")
        XCTAssertEqual(try daemon.trace().count, 1, "nothing pressed")

        // A refusal of another kind carries its own reason.
        XCTAssertEqual(try daemon.ask("12345O=1"), "OK")
        let busy = try garagePins(["close", "--socket", daemon.socketPath], environment: ["GARAGE_PIN": "12345"])
        XCTAssertEqual(busy.termination, .exited(1))
        XCTAssertTrue(busy.stderr.contains("ERR BUSY"), busy.stderr)
    }

    /// Issue 32: `light on` at a door with no light wired said "the daemon does not know that
    /// command (ERR CMD)"; it says that no light is wired and which setting wires one.
    func testLightWithoutALightSaysWhichSettingWiresOne() throws {
        try initTable()
        let daemon = try startDaemon()
        let env = ["GARAGE_PIN": "12345"]
        let result = try garagePins(["light", "on", "--socket", daemon.socketPath], environment: env)
        XCTAssertEqual(result.termination, .exited(1))
        // garaged's own words, from the door's table of parts (issue 38).
        XCTAssertEqual(result.stderr, "garage-pins: garaged refused: the door has no light wired; garaged switches a light only on the line its setting names: light = CHIP:LINE (e.g. light = gpiochip0:24) in garaged's config or the door's [door NAME] section, or --light (--door.NAME.light); then restart garaged (ERR CMD)\n")
        let named = try garagePins(["light", "off", "--door", "1", "--socket", daemon.socketPath], environment: env)
        XCTAssertEqual(named.termination, .exited(1))
        XCTAssertTrue(named.stderr.contains("has no light wired") && named.stderr.contains("--door.NAME.light"), named.stderr)
        XCTAssertFalse(named.stderr.contains("does not know that command"), named.stderr)
        XCTAssertEqual(try daemon.trace().count, 1, "nothing switched, nothing pressed")

        // With a light the same command works.
        XCTAssertEqual(daemon.stop(), .exited(0))
        let lit = try startDaemon(["--light", "sim:\(dir)/light.trace"])
        let on = try garagePins(["light", "on", "--socket", lit.socketPath], environment: env)
        XCTAssertEqual(on.termination, .exited(0), on.stderr)
        XCTAssertEqual(on.stdout, "light on\n")
    }

    /// Issue 32: a typo in the command ("Unexpected argument 'opne'", or with options after it
    /// "Unknown option '--socket'") and an option before the command ("Unknown option '--pin'")
    /// say what was wrong and what to type; usage errors exit 2 as before.
    func testATypoInTheCommandSaysWhichCommandWasMeant() throws {
        let socket = ["--socket", dir + "/none.sock", "--pin", "12345"]
        let typo = try garagePins(["opne"] + socket)
        XCTAssertEqual(typo.termination, .exited(2))
        XCTAssertEqual(typo.stderr, "garage-pins: there is no command 'opne'; did you mean 'open'? (garage-pins --help lists the commands)\n")
        let capital = try garagePins(["Status"])
        XCTAssertEqual(capital.termination, .exited(2))
        XCTAssertTrue(capital.stderr.contains("did you mean 'status'?"), capital.stderr)
        let nothingLike = try garagePins(["garage"])
        XCTAssertEqual(nothingLike.termination, .exited(2))
        XCTAssertEqual(nothingLike.stderr, "garage-pins: there is no command 'garage' (garage-pins --help lists the commands)\n")
        let before = try garagePins(["--pin", "12345", "open"])
        XCTAssertEqual(before.termination, .exited(2))
        XCTAssertEqual(before.stderr, "garage-pins: the command comes first, then its options: garage-pins open --pin... (garage-pins --help lists the commands)\n")
        XCTAssertFalse(before.stderr.contains("12345"), "the PIN is not echoed")
        // The root's own options still work.
        XCTAssertEqual(try garagePins(["--help"]).termination, .exited(0))
        XCTAssertEqual(try garagePins(["help", "open"]).termination, .exited(0))
    }

    func testNoDaemonExitsThreeNamingTheSocket() throws {
        let missing = dir + "/no-daemon.sock"
        let result = try garagePins(["status", "--socket", missing], environment: ["GARAGE_PIN": "12345"])
        XCTAssertEqual(result.termination, .exited(3))
        XCTAssertTrue(result.stderr.contains(missing), result.stderr)

        // A socket file nobody listens on (a killed daemon's) is unreachable too.
        try initTable()
        let daemon = try startDaemon()
        daemon.process.signal(SIGKILL)
        XCTAssertNotNil(daemon.process.waitForExit(timeout: .seconds(5)))
        let stale = try garagePins(["open", "--socket", socketPath], environment: ["GARAGE_PIN": "12345"])
        XCTAssertEqual(stale.termination, .exited(3))
        XCTAssertTrue(stale.stderr.contains(socketPath), stale.stderr)
    }

    func testNoPINExitsTwo() throws {
        try initTable()
        let daemon = try startDaemon()
        let none = try garagePins(["open", "--socket", daemon.socketPath])
        XCTAssertEqual(none.termination, .exited(2))
        XCTAssertTrue(none.stderr.contains("GARAGE_PIN"), none.stderr)

        let bad = try garagePins(["open", "--socket", daemon.socketPath, "--pin", "12 45"])
        XCTAssertEqual(bad.termination, .exited(2), bad.stderr)
        XCTAssertEqual(try daemon.trace().count, 1, "nothing pressed")
    }

    func testInitRefusesToOverwriteWithoutForce() throws {
        try initTable()
        let original = readBytes(pinsPath)
        XCTAssertEqual(original, expectedImage(slots()))

        let again = try garagePins(["init", "--pins", pinsPath, "--master", "54321"])
        XCTAssertEqual(again.termination, .exited(1))
        XCTAssertTrue(again.stderr.contains("--force"), again.stderr)
        XCTAssertTrue(again.stderr.contains(pinsPath), again.stderr)
        XCTAssertEqual(readBytes(pinsPath), original, "the table must be untouched")

        let forced = try garagePins(["init", "--pins", pinsPath, "--master", "54321", "--slots", "4", "--force"])
        XCTAssertEqual(forced.termination, .exited(0), forced.stderr)
        XCTAssertEqual(readBytes(pinsPath), expectedImage(slots(capacity: 4, master: "54321")))
        XCTAssertEqual(permissions(pinsPath), 0o600)

        let badSlots = try garagePins(["init", "--pins", dir + "/other", "--master", "54321", "--slots", "171"])
        XCTAssertEqual(badSlots.termination, .exited(2), badSlots.stderr)
        XCTAssertFalse(fileExists(dir + "/other"))
    }

    /// Issue 32: after a hand install there is no /var/lib/garaged, and init said "cannot open
    /// ….lock: No such file or directory"; it names the folder and the command that makes it.
    func testInitIntoAMissingFolderSaysToCreateIt() throws {
        let folder = dir + "/var/lib/garaged"
        let result = try garagePins(["init", "--pins", folder + "/pins.eeprom", "--master", "12345"])
        XCTAssertEqual(result.termination, .exited(1))
        XCTAssertEqual(result.stderr, "garage-pins: the folder \(folder) does not exist; create it first (the package makes /var/lib/garaged): sudo install -d -m 700 \(folder)\n")
        XCTAssertFalse(fileExists(folder))
    }

    func testInitRefusesWhileADaemonHoldsTheTable() throws {
        try initTable()
        let daemon = try startDaemon()
        let original = readBytes(pinsPath)
        let result = try garagePins(["init", "--pins", pinsPath, "--master", "54321", "--force"])
        XCTAssertNotEqual(result.termination, .exited(0))
        XCTAssertTrue(result.stderr.contains("process \(daemon.pid)"), "must name pid \(daemon.pid): \(result.stderr)")
        XCTAssertEqual(readBytes(pinsPath), original)
        XCTAssertEqual(try daemon.ask("12345S"), "S CLOSED", "the daemon is unaffected")
    }
}

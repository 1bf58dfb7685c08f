import DoorCore
@testable import GaragedKit
import XCTest

/// The settings garaged runs with, from a config file and the flags, in process: what each
/// source sets, which wins, and the refusals' exact words (a refusal is all an owner sees of a
/// mistake before the daemon stops).
final class SettingsParsingTests: XCTestCase {
    /// A flag wins over the file; what only the file sets stays; an unset key keeps its default.
    func testTheFileSetsWhatTheFlagsLeaveAndAFlagWins() throws {
        let dir = try TempFolder()
        let conf = try dir.write("garaged.conf", """
            # the owner's file
            pulse-ms = 300
            travel-s = 5
            ble-name = "Door #2"

            """)
        let s = try settings(["--config", conf, "--pulse-ms", "100", "--no-ble"])
        XCTAssertEqual(s.doors.count, 1)
        XCTAssertNil(s.door.id)
        XCTAssertEqual(s.door.timing.pulse, .milliseconds(100), "the flag wins over the file's 300")
        XCTAssertEqual(s.door.timing.travel, .seconds(5), "from the file")
        XCTAssertEqual(s.door.timing.autoClose, .seconds(30), "the default")
        XCTAssertEqual(s.bleName, "Door #2", "a quoted value keeps its #")
        XCTAssertFalse(s.ble)
    }

    /// The warning of a door with an opener and no warn output is the opener's light flashing,
    /// so DoorCore limits that light as it limits the warning (issue 37); with a warn output of
    /// its own, or on a relay, the light is not the warning.
    func testTheWarningIsTheOpenersLightOnlyWithoutAWarnOutput() throws {
        XCTAssertTrue(try settings(["--opener", "secplus2:/dev/ttyS9", "--no-ble"]).door.timing.warningFlashesLight)
        XCTAssertFalse(try settings(["--opener", "secplus2:/dev/ttyS9", "--warn", "sim:/tmp/w.trace", "--no-ble"]).door.timing.warningFlashesLight)
        XCTAssertFalse(try settings(["--relay", "sim:/tmp/r.trace", "--light", "sim:/tmp/l.trace", "--no-ble"]).door.timing.warningFlashesLight)
    }

    /// `[door NAME]` sections make the doors in file order, each with its own settings, and
    /// `--door.NAME.KEY` adds a door the file does not name.
    func testSectionsAndDoorFlagsMakeTheDoorsInOrder() throws {
        let dir = try TempFolder()
        let conf = try dir.write("garaged.conf", """
            socket = \(dir.file("s.sock"))
            [door left]
            relay = sim:\(dir.file("left.trace"))
            [door right]
            relay = sim:\(dir.file("right.trace"))
            pulse-ms = 200

            """)
        let s = try settings(["--config", conf, "--door.gate.relay", "sim:\(dir.file("gate.trace"))", "--door.gate.pulse-ms", "150"])
        XCTAssertEqual(s.doors.map(\.id), ["left", "right", "gate"])
        XCTAssertEqual(s.doors.map(\.timing.pulse), [.milliseconds(300), .milliseconds(200), .milliseconds(150)])
        XCTAssertEqual(s.socket, dir.file("s.sock"))
    }

    /// A relay beside `opener = secplus2:...` is refused, naming both lines of the file.
    func testARelayBesideAnOpenerIsRefusedNamingBoth() throws {
        let dir = try TempFolder()
        let conf = try dir.write("garaged.conf", "relay = sim:/tmp/r.trace\nopener = secplus2:/dev/ttyS9\n")
        let why = "cannot have both a relay and an opener; an opener is moved on its own wire, so remove relay (or remove opener to press a relay)"
        // From the file, the same from the command line, and for a named door.
        assertRefusals([
            (["--config", conf], "\(conf):1: relay = sim:/tmp/r.trace and \(conf):2: opener = secplus2:/dev/ttyS9: the door \(why)"),
            (["--relay", "sim:/tmp/r.trace", "--opener", "secplus2:/dev/ttyS9"],
             "--relay sim:/tmp/r.trace and --opener secplus2:/dev/ttyS9: the door \(why)"),
            (["--door.gate.relay", "sim:/tmp/r.trace", "--door.gate.opener", "secplus2:/dev/ttyS9"],
             "--door.gate.relay sim:/tmp/r.trace and --door.gate.opener secplus2:/dev/ttyS9: door gate \(why)"),
        ])
    }

    /// An unknown key is refused with the setting it was probably meant to be, in the file and
    /// on the command line.
    func testAnUnknownKeySaysWhichWasMeant() throws {
        let dir = try TempFolder()
        let conf = try dir.write("garaged.conf", "travel-s = 5\npuls-ms = 300\n")
        assertRefusals([
            (["--config", conf], "\(conf):2: unknown setting 'puls-ms'; did you mean 'pulse-ms'? (garaged --help lists every setting)"),
            (["--puls-ms", "300"], "unknown option --puls-ms (did you mean --pulse-ms?); garaged --help lists the settings"),
            (["--door.gate.puls-ms", "300"], "unknown option --door.gate.puls-ms (did you mean --door.gate.pulse-ms?); garaged --help lists the settings"),
        ])
    }

    /// What could silently leave a default in force is refused, naming the line: a trailing
    /// comment, a repeated key, a door's key outside every section once there are sections.
    func testWhatWouldLeaveADefaultInForceIsRefused() throws {
        let dir = try TempFolder()
        let comment = try dir.write("a.conf", "pulse-ms = 100 # shorter\n")
        XCTAssertEqual(refusal(["--config", comment]),
                       "\(comment):1: 'pulse-ms' has a '#' in its value ('100 # shorter'); comments go on lines of their own. If the '#' belongs to the value, quote it: pulse-ms = \"100 # shorter\"")
        let twice = try dir.write("b.conf", "pulse-ms = 100\n\npulse-ms = 200\n")
        XCTAssertEqual(refusal(["--config", twice]), "\(twice):3: 'pulse-ms' is set twice (first on line 1)")
        let outside = try dir.write("c.conf", "pulse-ms = 100\n[door left]\nrelay = sim:/tmp/l.trace\n")
        XCTAssertEqual(refusal(["--config", outside]),
                       "\(outside):1: 'pulse-ms' is a door's own setting, but it is outside every [door] section; with sections, each door's settings go in its section (the first is [door left] on line 2)")
    }
}

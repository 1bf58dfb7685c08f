@testable import GaragedKit
import XCTest

/// Which config file garaged and `garaged doctor` read without `--config`: /etc/garaged.conf
/// when it is there (the package's, so `sudo garaged doctor` checks what the service runs
/// with), another named by GARAGED_CONFIG, or none when that is empty; `--config` always wins.
final class ConfigChoiceTests: XCTestCase {
    func testWithoutConfigTheDefaultFileIsReadWhenItExists() {
        let there: (String) -> Bool = { $0 == "/etc/garaged.conf" }
        XCTAssertEqual(ConfigChoice(given: nil, environment: nil, exists: there), .byDefault("/etc/garaged.conf"))
        XCTAssertEqual(ConfigChoice(given: nil, environment: nil, exists: { _ in false }), .none(looked: "/etc/garaged.conf"))
        XCTAssertEqual(ConfigChoice(given: "/srv/g.conf", environment: nil, exists: there), .given("/srv/g.conf"), "--config wins")
        XCTAssertEqual(ConfigChoice(given: "/srv/g.conf", environment: "", exists: there), .given("/srv/g.conf"))
        XCTAssertEqual(ConfigChoice(given: nil, environment: "", exists: there), .none(looked: nil), "GARAGED_CONFIG empty: no file")
        XCTAssertEqual(ConfigChoice(given: nil, environment: "/tmp/x.conf", exists: { $0 == "/tmp/x.conf" }), .byDefault("/tmp/x.conf"))
        XCTAssertEqual(ConfigChoice(given: nil, environment: "/tmp/x.conf", exists: there), .none(looked: "/tmp/x.conf"),
                       "GARAGED_CONFIG replaces /etc/garaged.conf, it does not add to it")
    }

    /// The default file's settings are the ones in force, flags still winning; the words for
    /// the log and doctor say which file was read and why.
    func testTheDefaultFilesSettingsAreInForce() throws {
        let dir = try TempFolder()
        let conf = try dir.write("garaged.conf", "relay = sim:\(dir.file("from-file.trace"))\npulse-ms = 777\ntravel-s = 9\n")
        let options = try SettingsOptions.parse(["--travel-s", "4", "--no-ble"])
        let choice = ConfigChoice(given: options.config, environment: conf)
        XCTAssertEqual(choice, .byDefault(conf))
        let s = try options.settings(from: choice)
        XCTAssertEqual(s.door.relay, .simulated(path: dir.file("from-file.trace")), "the file's relay, not the simulated default")
        XCTAssertEqual(s.door.timing.pulse, .milliseconds(777))
        XCTAssertEqual(s.door.timing.travel, .seconds(4), "a flag still wins")
        XCTAssertEqual(choice.words, "\(conf) (no --config given: the default file) and the flags")
        XCTAssertEqual(ConfigChoice.none(looked: "/etc/garaged.conf").words,
                       "the built-in defaults and the flags (no --config given, and no /etc/garaged.conf)")
    }

    /// A mistake in a file nobody named says why it was read and how to read another.
    func testAnErrorInTheDefaultFileSaysWhyItWasRead() throws {
        let dir = try TempFolder()
        let conf = try dir.write("garaged.conf", "puls-ms = 300\n")
        let options = try SettingsOptions.parse([])
        XCTAssertThrowsError(try options.settings(from: .byDefault(conf))) { error in
            XCTAssertEqual((error as? ConfigError)?.description,
                           "\(conf):1: unknown setting 'puls-ms'; did you mean 'pulse-ms'? (garaged --help lists every setting) (\(conf) is read because no --config was given: fix it, run as a user who can read it (sudo), or give --config FILE)")
        }
        XCTAssertThrowsError(try options.settings(from: .given(conf))) { error in
            XCTAssertFalse((error as? ConfigError)?.description.contains("no --config") ?? true, "named on the command line: nothing to explain")
        }
    }
}

import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Managing who may open the door with `garage-pins` against the real daemon: list, add, edit,
/// delete and label, the labels sidecar, and every refusal with its documented exit code.
final class GaragePinsManageTests: GaragedTestCase {
    var labelsPath: String { pinsPath + ".labels" }

    func testAddListLabelEditAndDeleteKeepTableAndLabelsTogether() throws {
        try initTable()
        let daemon = try startDaemon()

        let alice = try pins(daemon, ["add", "24680", "--label", "Alice"])
        assertExit(alice, 0)
        XCTAssertEqual(alice.stdout, "stored in slot 1 (Alice)\n")
        assertExit(try pins(daemon, ["add", "13579"]), 0)
        let named = try pins(daemon, ["label", "2", "Bob Builder"])
        assertExit(named, 0)
        XCTAssertEqual(named.stdout, "slot 2 is Bob Builder\n")

        let list = try pins(daemon, ["list"])
        assertExit(list, 0)
        XCTAssertEqual(list.stdout, """
            SLOT  PIN    LABEL
            1     24680  Alice
            2     13579  Bob Builder

            """)
        let listed = json(try pins(daemon, ["list", "--json"]).stdout) as? [[String: Any]]
        XCTAssertEqual(listed?.count, 2)
        XCTAssertEqual(listed?.first?["label"] as? String, "Alice")
        XCTAssertEqual(listed?.last?["pin"] as? String, "13579")
        XCTAssertEqual(readBytes(pinsPath), expectedImage(slots([1: "24680", 2: "13579"])))
        XCTAssertEqual(readText(labelsPath).split(separator: "\n").filter { !$0.hasPrefix("#") }, ["1\tAlice", "2\tBob Builder"])
        XCTAssertEqual(permissions(labelsPath), 0o600)

        // edit keeps the label (same person, new PIN); delete takes it along.
        assertExit(try pins(daemon, ["edit", "1", "11111"]), 0)
        XCTAssertTrue(try pins(daemon, ["list"]).stdout.contains("1     11111  Alice"))
        assertExit(try pins(daemon, ["delete", "1"]), 0)
        XCTAssertEqual(readBytes(pinsPath), expectedImage(slots([2: "13579"])))
        XCTAssertFalse(readText(labelsPath).contains("Alice"))
        // A new PIN in the freed slot does not inherit the old name.
        XCTAssertEqual(try pins(daemon, ["add", "22222"]).stdout, "stored in slot 1\n")
        XCTAssertTrue(try pins(daemon, ["list"]).stdout.contains("1     22222  -"))
        assertExit(try pins(daemon, ["label", "2", ""]), 0)
        XCTAssertTrue(try pins(daemon, ["list"]).stdout.contains("2     13579  -"))

        // Labels survive a restart; the door still opens with the new PINs.
        assertExit(try pins(daemon, ["label", "1", "Carol"]), 0)
        XCTAssertEqual(daemon.stop(), .exited(0))
        let again = try startDaemon()
        XCTAssertTrue(try pins(again, ["list"]).stdout.contains("1     22222  Carol"))
        assertExit(try pins(again, ["open"], pin: "22222"), 0)
    }

    func testAMissingLabelsFileIsNotAnError() throws {
        try initTable()
        XCTAssertEqual(unlink(labelsPath), 0, "init writes an empty sidecar")
        let daemon = try startDaemon()
        XCTAssertEqual(try pins(daemon, ["list"]).stdout.hasPrefix("no PINs stored"), true)
        assertExit(try pins(daemon, ["add", "24680", "--label", "Alice"]), 0)
        XCTAssertTrue(readText(labelsPath).contains("1\tAlice"))
    }

    func testRefusalsPrintTheDaemonsReasonAndExitOne() throws {
        try initTable(slots: 3)
        let daemon = try startDaemon()
        assertExit(try pins(daemon, ["add", "11111", "--label", "A"]), 0)
        assertExit(try pins(daemon, ["add", "22222"]), 0)

        let cases: [([String], String, String)] = [
            (["add", "33333"], "ERR FULL", "full"),
            (["add", "33333", "--label", "C"], "ERR FULL", "full, with a label"),
            (["edit", "9", "33333"], "ERR SLOT", "unknown slot"),
            (["delete", "9"], "ERR SLOT", "unknown slot"),
            (["label", "9", "Nobody"], "ERR SLOT", "unknown slot"),
            (["edit", "1", "22222"], "ERR DUP", "duplicate"),
        ]
        for (args, record, what) in cases {
            let r = try pins(daemon, args)
            assertExit(r, 1, what)
            XCTAssertEqual(quotedRecord(r.stderr), record, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("garage-pins: garaged refused: "), r.stderr)
            XCTAssertEqual(r.stdout, "", what)
        }
        // A stored PIN that is not the master may not manage.
        let masterOnly: [[String]] = [["list"], ["add", "33333"], ["edit", "2", "33333"], ["label", "1", "X"], ["delete", "1"],
                                      ["log"], ["who"], ["log", "--follow"]]
        for args in masterOnly {
            let r = try pins(daemon, args, pin: "11111")
            assertExit(r, 1, "\(args)")
            XCTAssertEqual(quotedRecord(r.stderr), "ERR PIN", "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("wrong PIN"), r.stderr)
        }
        // An unknown PIN may not even open, close or ask.
        let anyPIN: [[String]] = [["open"], ["close"], ["status"], ["status", "--follow"]]
        for args in anyPIN {
            let r = try pins(daemon, args, pin: "99999")
            assertExit(r, 1, "\(args)")
            XCTAssertEqual(quotedRecord(r.stderr), "ERR PIN", "\(args): \(r.stderr)")
        }
        XCTAssertEqual(try daemon.trace().count, 1, "nothing pressed")
        XCTAssertEqual(readBytes(pinsPath), expectedImage(slots(capacity: 3, [1: "11111", 2: "22222"])), "nothing changed")
        XCTAssertTrue(readText(labelsPath).contains("1\tA"))
        XCTAssertFalse(readText(labelsPath).contains("X"))
    }

    func testALockedOutClientIsRefusedWithTheSecondsLeftButTheOwnerIsNot() throws {
        try initTable()
        let daemon = try startDaemonOpenToNobody()
        for _ in 1...5 { assertExit(try pins(daemon, ["list"], pin: "99999", asNobody: true), 1) }
        // Every command, even with the right PIN, is refused with the seconds left. The first
        // lock lasts 1 s: should it run out on a slow machine, one more wrong PIN locks again
        // (for longer). The commands are ones that would change nothing if they got through.
        let commands: [[String]] = [["list"], ["add", "12345"], ["edit", "9", "24680"], ["delete", "9"],
                                    ["label", "9", "A"], ["log"], ["who"], ["status"], ["close"]]
        for args in commands {
            let locked = try whileLocked({ try pins(daemon, args, asNobody: true) },
                                         relock: { _ = try pins(daemon, ["status"], pin: "99999", asNobody: true) },
                                         until: { (quotedRecord($0.stderr) ?? "").hasPrefix("ERR LOCKED ") })
            assertExit(locked, 1, "\(args)")
            XCTAssertEqual(quotedRecord(locked.stderr)?.hasPrefix("ERR LOCKED "), true, "\(args): \(locked.stderr)")
            XCTAssertTrue(locked.stderr.contains("too many wrong PINs"), locked.stderr)
        }
        XCTAssertEqual(try daemon.trace().count, 1, "nothing pressed while locked")

        // status names the lockout; the owner at the shell is never locked out.
        // The lock may have run out during the commands above: one more wrong PIN locks again.
        let status = try whileLocked({ try pins(daemon, ["status"]) },
                                     relock: { _ = try pins(daemon, ["status"], pin: "99999", asNobody: true) },
                                     until: { $0.stdout.contains("locked for") })
        assertExit(status, 0)
        XCTAssertTrue(status.stdout.contains("locked for"), status.stdout)
        assertExit(try pins(daemon, ["add", "24680", "--label", "Alice"]), 0)
    }

    func testEveryDaemonCommandExitsThreeWhenTheDaemonIsStopped() throws {
        try initTable()
        let daemon = try startDaemon()
        XCTAssertEqual(daemon.stop(), .exited(0))
        for args in [["list"], ["add", "24680"], ["edit", "1", "24680"], ["delete", "1"], ["label", "1", "A"],
                     ["open"], ["close"], ["status"], ["status", "--follow"], ["log"], ["log", "--follow"], ["who", "--today"]] {
            let r = try pins(daemon, args)
            assertExit(r, 3, "\(args)")
            XCTAssertTrue(r.stderr.contains(daemon.socketPath), "names the socket tried: \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("--socket"), "says what to do: \(r.stderr)")
        }
    }

    func testUsageErrorsExitTwoAndSendNothing() throws {
        try initTable()
        let daemon = try startDaemon()
        let cases: [[String]] = [
            ["add", "123"], ["add", "24680", "--label", String(repeating: "x", count: 33)], ["edit", "0", "24680"],
            ["label", "1", "tab\there"], ["log", "--since", "last tuesday"], ["who", "--today", "--since", "1h"],
            ["frobnicate"],
        ]
        for args in cases {
            let r = try pins(daemon, args)
            assertExit(r, 2, "\(args)")
            XCTAssertFalse(r.stderr.isEmpty, "\(args) explains itself")
        }
        XCTAssertEqual(readBytes(pinsPath), expectedImage(slots()))
        // --help teaches: the subcommands and the exit codes.
        let help = try garagePins(["--help"])
        assertExit(help, 0)
        for word in ["import-eeprom", "who", "Exit codes", "GARAGE_PIN"] { XCTAssertTrue(help.stdout.contains(word), word) }
    }
}

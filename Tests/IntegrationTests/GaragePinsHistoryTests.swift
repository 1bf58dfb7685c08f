import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The event history through the real daemon: what is recorded, `log` and `who`, the followers
/// (`status --follow`, `log --follow`), and the file surviving a restart and a kill -9.
final class GaragePinsHistoryTests: GaragedTestCase {
    var eventsPath: String { pinsPath + ".events" }

    /// The `log --json` records of the daemon.
    private func events(_ daemon: GaragedDaemon, _ extra: [String] = []) throws -> [[String: Any]] {
        let r = try pins(daemon, ["log", "--json"] + extra)
        assertExit(r, 0)
        return json(r.stdout) as? [[String: Any]] ?? []
    }

    private func kinds(_ records: [[String: Any]]) -> [String] { records.compactMap { $0["kind"] as? String } }

    func testLogRecordsOpensChangesWrongPINsAndStartStopAndWhoNamesPeople() throws {
        try initTable()
        let daemon = try startDaemon(["--travel-s", "0", "--auto-close-s", "0"])
        assertExit(try pins(daemon, ["add", "24680", "--label", "Alice"]), 0)
        assertExit(try pins(daemon, ["add", "13579", "--label", "Bob"]), 0)
        assertExit(try pins(daemon, ["open"], pin: "24680"), 0)
        try waitForStatus(daemon, "OPEN") { $0 == "S OPEN" }
        assertExit(try pins(daemon, ["close"], pin: "13579"), 0)
        try waitForStatus(daemon, "CLOSED") { $0 == "S CLOSED" }
        assertExit(try pins(daemon, ["open"], pin: "13579"), 0)
        assertExit(try pins(daemon, ["open"], pin: "99999"), 1)
        assertExit(try pins(daemon, ["delete", "2"]), 0)

        let records = try events(daemon)
        XCTAssertEqual(kinds(records), ["start", "add", "add", "open", "close", "open", "wrong-pin", "delete"])
        let open = records[3]
        XCTAssertEqual(open["label"] as? String, "Alice")
        XCTAssertEqual(open["slot"] as? Int, 1)
        XCTAssertEqual(open["detail"] as? String, "pressed")
        XCTAssertEqual(open["source"] as? String, "local uid=\(getuid())")
        XCTAssertEqual(records[7]["label"] as? String, "Bob", "a deleted slot's event still names who it was")
        XCTAssertNil(records[6]["slot"], "a wrong PIN has no slot")
        let now = Date().timeIntervalSince1970 * 1000
        for r in records { XCTAssertEqual(Double(r["time"] as? Int ?? 0), now, accuracy: 60_000, "wall-clock ms") }
        // Never a PIN in the history, on the wire or on disk.
        let table = try pins(daemon, ["log"]).stdout
        for secret in ["24680", "13579", "99999", "12345"] {
            XCTAssertFalse(table.contains(secret), table)
            XCTAssertFalse(readText(eventsPath).contains(secret), "the event file holds a PIN")
        }
        XCTAssertTrue(table.hasPrefix("TIME "), table)
        XCTAssertTrue(table.contains("open       Alice"), table)

        let who = try pins(daemon, ["who", "--today"])
        assertExit(who, 0)
        let lines = who.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 3, who.stdout)
        XCTAssertTrue(lines[1].hasPrefix("Alice  1     1 "), who.stdout)
        XCTAssertTrue(lines[2].hasPrefix("Bob    2     1 "), who.stdout)
        let whoJSON = json(try pins(daemon, ["who", "--since", "1h", "--json"]).stdout) as? [[String: Any]]
        XCTAssertEqual(whoJSON?.map { $0["who"] as? String }, ["Alice", "Bob"])

        // --since filters; the history survives a restart with a stop and a new start.
        XCTAssertEqual(try events(daemon, ["--since", "2999-01-01"]).count, 0)
        XCTAssertEqual(daemon.stop(), .exited(0))
        let again = try startDaemon()
        XCTAssertEqual(kinds(try events(again)).suffix(3), ["delete", "stop", "start"])
    }

    func testAutoCloseAndLockoutsAreRecorded() throws {
        try initTable()
        let daemon = try startDaemonOpenToNobody(["--travel-s", "0", "--auto-close-s", "1"])
        assertExit(try pins(daemon, ["open"]), 0)
        try waitUntil("the auto-close event", timeout: .seconds(5)) { kinds(try events(daemon)).contains("auto-close") }
        for _ in 1...5 { assertExit(try pins(daemon, ["open"], pin: "99999", asNobody: true), 1) }
        let records = try events(daemon)
        XCTAssertEqual(kinds(records).filter { $0 == "wrong-pin" }.count, 1, "the first of a burst, at once")
        let lockout = records.first { $0["kind"] as? String == "lockout" }
        XCTAssertEqual(lockout?["source"] as? String, "local uid=65534")
        XCTAssertEqual(lockout?["detail"] as? String, "1 s after 5 wrong PINs")
        // The rest of the burst is one record with a count, written when the burst ends (after
        // a quiet minute, or at the latest when the daemon stops).
        XCTAssertEqual(daemon.stop(), .exited(0))
        let again = try startDaemon()
        let all = try events(again)
        let summary = all.first { $0["kind"] as? String == "wrong-pin" && $0["count"] != nil }
        XCTAssertEqual(summary?["count"] as? Int, 4, "\(all)")
        XCTAssertEqual(summary?["source"] as? String, "local uid=65534")
    }

    func testStatusFollowPrintsEachChangeUntilTheDaemonStops() throws {
        try initTable()
        let daemon = try startDaemon(["--travel-s", "1", "--auto-close-s", "0"])
        let follower = try startFollower(daemon, ["status", "--follow", "--json"], name: "follow-status")
        var doors: [String] = []
        func seen() -> [String] {
            follower.stdout.split(separator: "\n").compactMap { (json(String($0)) as? [String: Any])?["door"] as? String }
        }
        waitUntil("the first status", timeout: .seconds(5)) { seen() == ["CLOSED"] }
        assertExit(try pins(daemon, ["open"]), 0)
        waitUntil("OPENING then OPEN (seen \(doors))", timeout: .seconds(5)) { doors = seen(); return doors == ["CLOSED", "OPENING", "OPEN"] }
        assertExit(try pins(daemon, ["close"]), 0)
        waitUntil("CLOSING then CLOSED (seen \(doors))", timeout: .seconds(5)) {
            doors = seen(); return doors == ["CLOSED", "OPENING", "OPEN", "CLOSING", "CLOSED"]
        }
        XCTAssertEqual(daemon.stop(), .exited(0))
        XCTAssertEqual(follower.waitForExit(timeout: .seconds(5)), .exited(3), follower.stderr)
        XCTAssertTrue(follower.stderr.contains("closed the connection"), follower.stderr)
    }

    func testLogFollowPrintsEventsAsTheyHappen() throws {
        try initTable()
        let daemon = try startDaemon(["--travel-s", "0", "--auto-close-s", "0"])
        let follower = try startFollower(daemon, ["log", "--follow"], name: "follow-log")
        // The follower is connected once the daemon's log shows its request.
        waitUntil("the follow request", timeout: .seconds(5)) { daemon.log.contains("command=\"follow log\"") }
        assertExit(try pins(daemon, ["add", "24680", "--label", "Alice"]), 0)
        assertExit(try pins(daemon, ["open"], pin: "24680"), 0)
        waitUntil("two events on the follower (got: \(follower.stdout))", timeout: .seconds(5)) {
            let lines = follower.stdout.split(separator: "\n")
            return lines.count == 2 && lines[0].contains("add  Alice") && lines[1].contains("open  Alice")
        }
        XCTAssertTrue(follower.isRunning)

        // With --since, the history first, then what happens next, in one stream.
        let late = try startFollower(daemon, ["log", "--follow", "--since", "1h", "--json"], name: "follow-late")
        waitUntil("the history on the late follower", timeout: .seconds(5)) { late.stdout.split(separator: "\n").count == 3 }
        assertExit(try pins(daemon, ["label", "1", "Alice B"]), 0)
        var kinds: [String] = []
        waitUntil("history then the new event (got \(kinds))", timeout: .seconds(5)) {
            kinds = late.stdout.split(separator: "\n").compactMap { (json(String($0)) as? [String: Any])?["kind"] as? String }
            return kinds == ["start", "add", "open", "label"]
        }
    }

    func testAFollowerThatStopsReadingIsDropped() throws {
        try initTable()
        let daemon = try startDaemon()
        // A raw follower that never reads.
        let stuck = try daemon.connect()
        try stuck.sendLine(Array("12345Lfollow log".utf8))
        // Flood events that are always recorded (PIN changes) until the stuck one is dropped.
        let flood = try daemon.connect()
        var sent = 0
        try waitUntil("the stuck follower to be dropped", timeout: .seconds(30)) {
            try flood.sendLines(Array(repeating: ["12345Aabcde", "12345D1"], count: 50).flatMap { $0 })
            for _ in 0..<100 { _ = try flood.readRecord() }
            sent += 100
            return daemon.log.contains("stopped reading what it follows")
        }
        XCTAssertEqual(try daemon.ask("12345S"), "S CLOSED")
        print("events until a non-reading follower was dropped: \(sent)")
    }

    /// Users other than the owner may hold 16 followers; the 17th is told why it was refused
    /// (ERR LIMIT, not "the PIN table is full"), and the owner is never crowded out.
    func testOtherUsersFollowersNeverCrowdOutTheOwner() throws {
        try initTable()
        let daemon = try startDaemonOpenToNobody()
        assertExit(try pins(daemon, ["add", "24680", "--label", "Guest"]), 0)
        let setpriv = try Binaries.system("setpriv", package: "util-linux")
        let tool = try Binaries.path(of: "garage-pins")
        var guests: [ChildProcess] = []
        for i in 0..<16 {
            guests.append(try spawn(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", tool, "status", "--follow",
                                              "--socket", daemon.socketPath], environment: ["GARAGE_PIN": "24680"], name: "guest\(i)"))
        }
        waitUntil("16 guest followers", timeout: .seconds(10)) { guests.allSatisfy { !$0.stdout.isEmpty } }
        let refused = try pins(daemon, ["status", "--follow"], pin: "24680", asNobody: true)
        assertExit(refused, 1)
        XCTAssertTrue(refused.stderr.contains("too many clients already follow"), refused.stderr)
        XCTAssertEqual(quotedRecord(refused.stderr), "ERR LIMIT")
        let owner = try startFollower(daemon, ["status", "--follow", "--json"], name: "owner-follow")
        waitUntil("the owner's follower gets the status", timeout: .seconds(5)) { owner.stdout.contains("\"door\":\"CLOSED\"") }
        XCTAssertNil(owner.poll(), "the owner's follower is still running")
    }

    func testATornLastRecordAfterKill9IsSkippedNeverFatal() throws {
        try initTable()
        let daemon = try startDaemon(["--travel-s", "0", "--auto-close-s", "0"])
        // A burst of events, and kill -9 in the middle of it (appends are in flight).
        let flood = try daemon.connect()
        try flood.sendLines(Array(repeating: ["12345Aabcde", "12345D1"], count: 1000).flatMap { $0 })
        waitUntil("some events on disk", timeout: .seconds(10)) { readText(eventsPath).split(separator: "\n").count > 50 }
        daemon.process.signal(SIGKILL)
        XCTAssertEqual(daemon.process.waitForExit(timeout: .seconds(5)), .signaled(SIGKILL))
        // Whatever the kill left, add a torn record the way a power cut mid-append would.
        // Whole records end with LF; a record the kill tore (if any) joins the torn one below.
        let whole = (readBytes(eventsPath) ?? []).filter { $0 == 0x0A }.count
        let fd = open(eventsPath, O_WRONLY | O_APPEND)
        XCTAssertGreaterThanOrEqual(fd, 0)
        let torn = Array("deadbeef {\"time\":17,\"kind\":\"op".utf8)
        XCTAssertEqual(Glibc.write(fd, torn, torn.count), torn.count)
        close(fd)

        let again = try startDaemon(["--travel-s", "0", "--auto-close-s", "0"])
        waitUntil("the restarted daemon to report the torn record", timeout: .seconds(5)) {
            again.log.contains("events-skipped") && again.log.contains("records=1")
        }
        assertExit(try pins(again, ["open"]), 0)
        let records = try events(again)
        XCTAssertEqual(records.count, whole + 2, "every whole record, the new start and the open")
        XCTAssertEqual(kinds(records).suffix(2), ["start", "open"])
        XCTAssertEqual(kinds(records).filter { $0 == "add" || $0 == "delete" }.count, whole - 1)
        // The record after the torn one starts on a line of its own and reads back after a restart.
        XCTAssertEqual(again.stop(), .exited(0))
        let third = try startDaemon()
        XCTAssertEqual(kinds(try events(third)).suffix(4), ["start", "open", "stop", "start"])
    }
}

import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A request that waited in the kernel while the daemon was stalled (`kill -STOP`, a slow SD
/// card) used to be performed when the daemon moved again: `garage-pins open` had given up
/// with "cannot reach garaged", and then the door opened. The kernel stamps every packet on
/// arrival; one older than 2 s when it is judged is refused (`ERR STALE`) and logged.
final class StaleRequestTests: GaragedTestCase {
    func testAnOpenSentWhileTheDaemonWasStoppedIsRefusedNotPerformed() throws {
        try initTable()
        let daemon = try startDaemon()
        let client = try daemon.connect()
        XCTAssertEqual(try client.ask("12345S"), "S CLOSED", "accepted (the kernel stamps only an accepted connection's packets)")
        try stalled(daemon) { try client.sendLine(Array("12345O=1".utf8)) }
        let reason = try client.readRecord()
        XCTAssertTrue(reason.hasPrefix(#"{"reason":"it waited "#) && reason.contains("send it again"), "the local socket says why first: \(reason)")
        XCTAssertEqual(try client.readRecord(), "ERR STALE")
        XCTAssertEqual(try daemon.trace().count, 1, "nothing pressed")
        // The log says why, with the age; the history records it; a fresh request works.
        waitUntil("the refusal in the log", timeout: .seconds(3)) {
            daemon.log.contains("result=\"ERR STALE\"") && daemon.log.contains("between arriving and being judged")
        }
        XCTAssertEqual(try client.ask("12345O=1"), "OK")
        try waitForTrace(daemon, count: 3)
        let log = try pins(daemon, ["log", "--json"])
        let kinds = (json(log.stdout) as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }
        XCTAssertTrue(kinds.contains("stale"), log.stdout)
    }

    /// `garage-pins open` against a stopped daemon gives up after 5 s (exit 3, its message), and
    /// the door must not open when the daemon comes back.
    func testTheCLIGivingUpMeansTheDoorStaysShut() throws {
        try initTable()
        let daemon = try startDaemon()
        daemon.process.signal(SIGSTOP)
        let open = try pins(daemon, ["open"])
        daemon.process.signal(SIGCONT)
        assertExit(open, 3)
        XCTAssertTrue(open.stderr.contains("no answer within 5 s"), open.stderr)
        waitUntil("the daemon to refuse what waited", timeout: .seconds(3)) {
            daemon.log.contains("ERR STALE") && daemon.log.contains("it gave up waiting")
        }
        XCTAssertEqual(try daemon.ask("12345S"), "S CLOSED")
        XCTAssertEqual(try daemon.trace().count, 1, "the door never moved")
    }

    /// A phone's write during the stall: refused the same way, over the ATT bearer.
    func testAPhoneWriteDuringAStallIsRefused() throws {
        let daemon = try startATTDaemon()
        let phone = try connectBearer(daemon)
        XCTAssertEqual(try phone.enableNotifications(), "13")
        try stalled(daemon) { try phone.writeCommand("12345O=1") }
        XCTAssertEqual(try phone.notification(), "ERR STALE")
        XCTAssertEqual(try daemon.trace().count, 1, "nothing pressed")
        try phone.writeCommand("12345O=1")
        XCTAssertEqual(try phone.notification(), "OK")
        try waitForTrace(daemon, count: 3)
    }
}

import Foundation
import XCTest

/// `garage-pins remotes lock|unlock` (issue 31): the master PIN locks a Security+ 2.0 opener's
/// own remotes and keypads with its LOCK command; the status record shows the opener's word and
/// the history who asked. Against Tests/secplus/fakeopener.py on a pty.
final class SecPlus2RemotesTests: GaragedTestCase {
    /// The LOCK packets the fake opener accepted, by their nibble (1 lock, 0 unlock).
    private func lockNibbles() -> [Int] {
        openerPackets().filter { $0.name == "LOCK" && $0.accepted == true }.compactMap(\.nibble)
    }

    /// The history's `remotes` records, from `garage-pins log --json`.
    private func remotesRecords(_ daemon: GaragedDaemon) throws -> [[String: Any]] {
        let result = try pins(daemon, ["log", "--json"])
        assertExit(result, 0, "log")
        return (json(result.stdout) as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "remotes" }
    }

    func testLockAndUnlockReachTheOpenerItsStatusAndTheHistory() throws {
        try initTable()
        try startOpener()
        let daemon = try startGaragedWithOpener()
        XCTAssertTrue(waitUntil("the opener connected, its remotes unlocked", timeout: .seconds(5)) {
            doorStatus(daemon).contains(#""state":"connected","remotes_locked":false"#)
        }, doorStatus(daemon))

        let lock = try pins(daemon, ["remotes", "lock"])
        assertExit(lock, 0, "remotes lock")
        XCTAssertEqual(lock.stdout, "remotes locked\n")
        XCTAssertTrue(waitUntil("a LOCK packet with nibble 1 at the opener", timeout: .seconds(5)) { lockNibbles() == [1] },
                      "\(lockNibbles())")
        XCTAssertTrue(waitUntil("remotes_locked in the status, as the opener says", timeout: .seconds(5)) {
            doorStatus(daemon).contains(#""remotes_locked":true"#)
        }, doorStatus(daemon))
        var records = try remotesRecords(daemon)
        XCTAssertEqual(records.count, 1, "\(records)")
        XCTAssertEqual(records.first?["detail"] as? String, "OK: locked")
        XCTAssertEqual(records.first?["slot"] as? Int, 0, "the master PIN asked: \(records)")
        XCTAssertTrue((records.first?["source"] as? String)?.hasPrefix("local uid=") ?? false, "who asked: \(records)")

        let unlock = try pins(daemon, ["remotes", "unlock"])
        assertExit(unlock, 0, "remotes unlock")
        XCTAssertEqual(unlock.stdout, "remotes unlocked\n")
        XCTAssertTrue(waitUntil("a LOCK packet with nibble 0", timeout: .seconds(5)) { lockNibbles() == [1, 0] }, "\(lockNibbles())")
        XCTAssertTrue(waitUntil("remotes_locked false again", timeout: .seconds(5)) {
            doorStatus(daemon).contains(#""remotes_locked":false"#)
        }, doorStatus(daemon))
        records = try remotesRecords(daemon)
        XCTAssertEqual(records.map { $0["detail"] as? String }, ["OK: locked", "OK: unlocked"], "\(records)")

        // Another PIN may open, but not lock the family's remotes.
        XCTAssertEqual(try daemon.ask("12345A24680"), "OK 1")
        let other = try pins(daemon, ["remotes", "lock"], pin: "24680")
        assertExit(other, 1, "remotes lock with a user's PIN")
        XCTAssertEqual(quotedRecord(other.stderr), "ERR PIN", other.stderr)
        XCTAssertEqual(lockNibbles(), [1, 0], "nothing more asked of the opener")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    func testADoorOnARelayHasNoRemotesToLockAndSaysSo() throws {
        try initTable()
        let daemon = try startDaemon()
        let result = try pins(daemon, ["remotes", "lock"])
        assertExit(result, 1, "remotes lock on a relay door")
        XCTAssertTrue(result.stderr.contains("has no opener") && result.stderr.contains("opener = secplus2:DEVICE"), result.stderr)
        XCTAssertEqual(quotedRecord(result.stderr), "ERR CMD", result.stderr)
        let bad = try pins(daemon, ["remotes", "on"])
        assertExit(bad, 2, "a word other than lock or unlock")
        XCTAssertTrue(bad.stderr.contains("say lock or unlock"), bad.stderr)
        XCTAssertEqual(daemon.stop(), .exited(0))
    }
}

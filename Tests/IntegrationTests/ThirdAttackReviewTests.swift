import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The third attack review's findings (issue 29), each replayed on the real binary the way an
/// attacker on the home network would: an on-path relay, floods of strangers, stalls (SIGSTOP).
/// Each failed before its fix.
final class ThirdAttackReviewTests: GaragedTestCase {
    // MARK: - C1: plaintext behind pair-verify

    /// An on-path relay appended a request in the clear to the segment carrying an iPhone's
    /// pair-verify M3: garaged ran it as that verified controller (an open pressed the relay; a
    /// `POST /pairings` made the attacker an admin). Now the connection closes at the change of
    /// keys, and nothing behind M3 is run.
    func testBytesInTheClearBehindPairVerifyAreNeverRunAsTheController() throws {
        let daemon = try homekitDaemon()
        XCTAssertEqual(try homekitPair(daemon).termination, .exited(0))
        let port = try homekitPort(daemon)
        let before = try daemon.trace().count
        for kind in ["open", "pair-add"] {
            let portFile = dir + "/onpath-\(kind)"
            let relay = try spawn(try python(), [hapraw, "onpath", "--port", port, "--port-file", portFile, "--inject", kind],
                                  name: "onpath-\(kind)")
            waitUntil("the relay's port", timeout: .seconds(10)) { fileExists(portFile) }
            let relayPort = try String(contentsOfFile: portFile, encoding: .utf8)
            _ = try hap(["get", "--pairing", pairingFile, "--port", relayPort, "--char", HomeKitTests.current, "--timeout", "15"])
            XCTAssertEqual(relay.waitForExit(timeout: .seconds(60)), .exited(0), relay.stderr)
            XCTAssertTrue(relay.stdout.contains("\"injected\": true"), "M3 went through the relay: " + relay.stdout)
            XCTAssertTrue(relay.stdout.contains("\"closed_by\": \"accessory\""), "garaged closed the connection: " + relay.stdout)
        }
        waitUntil("both closes in the log", timeout: .seconds(5)) {
            daemon.log.components(separatedBy: "bytes in the clear came behind pair-verify").count - 1 >= 1
        }
        XCTAssertEqual(try daemon.trace().count, before, "the injected open pressed nothing")
        let kept = try String(contentsOfFile: pinsPath + ".homekit", encoding: .utf8)
        XCTAssertFalse(kept.contains("attacker"), "the injected pairing was not added: " + kept)
        // The real controller's next session is unharmed.
        let read = try hap(["get", "--pairing", pairingFile, "--port", port, "--char", HomeKitTests.current])
        XCTAssertEqual(read.termination, .exited(0), read.stdout + read.stderr)
        XCTAssertEqual(daemon.stop(), .exited(0))
    }
}

extension ThirdAttackReviewTests {
    // MARK: - H2: rights read when used

    /// An admin demoted while its session stayed open kept its admin rights there (copied in
    /// at pair-verify) and removed the owner's pairing. Now the session reads its rights from
    /// the pairings at each request: the demoted controller is refused.
    func testADemotedAdminHasNoAdminRightsInItsOpenSession() throws {
        let daemon = try homekitDaemon()
        XCTAssertEqual(try homekitPair(daemon).termination, .exited(0))
        let port = try homekitPort(daemon)
        let other = dir + "/other.json"
        let shared = try hap(["share", "--pairing", pairingFile, "--port", port, "--to", other, "--admin", "1"])
        XCTAssertEqual(shared.termination, .exited(0), shared.stdout + shared.stderr)
        let owner = try XCTUnwrap((json(try String(contentsOfFile: pairingFile, encoding: .utf8)) as? [String: Any])?["iOSPairingId"] as? String)
        let ready = dir + "/held", go = dir + "/go"
        let held = try spawn(try python(), [hapctl, "hold", "--pairing", other, "--port", port, "--ready-file", ready, "--go-file", go,
                                            "--remove", owner], name: "hapctl-hold")
        waitUntil("the other admin's session", timeout: .seconds(20)) { fileExists(ready) }
        let demoted = try hap(["share", "--pairing", pairingFile, "--port", port, "--to", other, "--admin", "0"])
        XCTAssertEqual(demoted.termination, .exited(0), demoted.stdout + demoted.stderr)
        try write(Array("go".utf8), to: go)
        XCTAssertEqual(held.waitForExit(timeout: .seconds(30)), .exited(4), "refused: " + held.stdout + held.stderr)
        let kept = try String(contentsOfFile: pinsPath + ".homekit", encoding: .utf8)
        XCTAssertTrue(kept.contains(owner), "the owner's pairing stays")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }
}

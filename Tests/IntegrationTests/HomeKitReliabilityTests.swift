import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// HomeKit under what a home network and its strangers do: bytes no controller sends, eight
/// controllers at once, one that stops reading, and a stranger flooding the port. Whatever
/// happens there, the door keeps answering and pressing, and paired controllers keep their
/// sessions.
final class HomeKitReliabilityTests: GaragedTestCase {
    /// Each malformed request gets a refusal (and, where the stream cannot be trusted any more,
    /// a closed connection); the door still opens afterwards and pairing still works.
    func testMalformedRequestsAreRefusedAndTheDoorKeepsServing() throws {
        let daemon = try homekitDaemon()
        let port = try homekitPort(daemon)
        let probe = try spawn(try python(), [hapraw, "malformed", "--port", port], name: "hapraw-malformed")
        XCTAssertEqual(probe.waitForExit(timeout: .seconds(60)), .exited(0), probe.stderr)
        var seen: [String: (status: Int?, closed: Bool, body: String)] = [:]
        for line in probe.stdout.split(separator: "\n") {
            guard let o = json(String(line)) as? [String: Any], let name = o["case"] as? String else { continue }
            seen[name] = (o["status"] as? Int, o["closed"] as? Bool ?? false, o["body"] as? String ?? "")
        }
        // Refused and closed: the stream cannot be read on from there.
        let closing: [String: Int] = ["not-http": 400, "binary": 400, "huge-header": 431, "huge-body": 413, "bad-length": 400,
                                      "chunked": 501, "http-2": 505]
        for (name, status) in closing {
            XCTAssertEqual(seen[name]?.status, status, "\(name): \(String(describing: seen[name]))")
            XCTAssertEqual(seen[name]?.closed, true, "\(name) closes the connection")
        }
        // Answered within the protocol; the connection stays.
        XCTAssertEqual(seen["truncated-tlv"]?.status, 200)
        XCTAssertTrue(seen["truncated-tlv"]?.body.hasPrefix("060102") == true && seen["truncated-tlv"]?.body.contains("0701") == true,
                      "a TLV error at state 2: \(String(describing: seen["truncated-tlv"]))")
        XCTAssertEqual(seen["setup-out-of-order"]?.body, "060104070101", "M3 before M1: Unknown at state 4")
        XCTAssertEqual(seen["verify-out-of-order"]?.status, 200)
        XCTAssertTrue(seen["verify-out-of-order"]?.body.contains("0701") == true, "a TLV error: \(String(describing: seen["verify-out-of-order"]))")
        XCTAssertEqual(seen["unpaired-read"]?.status, 470, "nothing but pairing before pair-verify")
        XCTAssertEqual(seen["unpaired-write"]?.status, 470)
        XCTAssertEqual(seen.count, 12, probe.stdout)

        // Forty requests in one write are each answered, though the socket has nothing more to
        // read once the first turn took them in.
        let piped = try spawn(try python(), [hapraw, "pipeline", "--port", port, "--count", "40"], name: "hapraw-pipeline")
        XCTAssertEqual(piped.waitForExit(timeout: .seconds(20)), .exited(0), piped.stderr)
        XCTAssertEqual((json(piped.stdout) as? [String: Any])?["answers"] as? Int, 40, piped.stdout)

        XCTAssertEqual(try daemon.connect().request("12345O=1"), ["OK"], "the door still answers")
        XCTAssertEqual(presses(in: try waitForTrace(daemon, count: 3)).count, 1)
        let paired = try homekitPair(daemon)
        XCTAssertEqual(paired.termination, .exited(0), "pairing still works: " + paired.stdout + paired.stderr)
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// Eight controllers hold sessions at once and each is told of a door moved by hand; a ninth
    /// that stops reading (stopped with SIGSTOP) and a stranger pipelining requests it never
    /// reads hold up none of them: the stranger is dropped, and the door answers and presses
    /// meanwhile.
    func testEightControllersAtOnceAndNoneHeldUpByOneThatStopsReading() throws {
        let daemon = try homekitDaemon(["--auto-close-s", "0"], sensed: true)
        XCTAssertEqual(try homekitPair(daemon).termination, .exited(0))
        let port = try homekitPort(daemon)
        var watchers: [ChildProcess] = []
        for i in 0..<9 {
            watchers.append(try spawn(try python(), [hapctl, "watch", "--pairing", pairingFile, "--port", port,
                                                     "--char", HomeKitTests.current, "--until", HomeKitTests.current + "=0",
                                                     "--ready-file", dir + "/ready-\(i)", "--timeout", "90"], name: "hapctl-watch-\(i)"))
        }
        waitUntil("nine subscribed sessions", timeout: .seconds(80)) {
            (0..<9).allSatisfy { FileManager.default.fileExists(atPath: self.dir + "/ready-\($0)") }
        }
        let stalled = watchers.removeLast()
        stalled.signal(SIGSTOP)
        defer { stalled.signal(SIGCONT); _ = stalled.terminate(grace: .milliseconds(100)) }

        let flood = try spawn("/usr/bin/python3", [hapraw, "flood", "--port", port, "--ready-file", dir + "/flooding"], name: "hapraw-flood")
        defer { _ = flood.terminate(grace: .milliseconds(100)) }
        waitUntil("the stranger dropped for not reading", timeout: .seconds(60)) { daemon.log.contains("stopped reading") }

        let rss = readText("/proc/\(daemon.pid)/status").split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        print("garaged with 9 HomeKit sessions: \(rss.map(String.init) ?? "?")")
        let asked = ContinuousClock.now
        XCTAssertEqual(try daemon.connect().request("12345S"), ["S CLOSED"], "the door answers while all that goes on")
        print("local S answered in \(ContinuousClock.now - asked)")

        try move(open: true)  // by hand
        for (i, w) in watchers.enumerated() {
            XCTAssertEqual(w.waitForExit(timeout: .seconds(60)), .exited(0), "controller \(i) was told the door opened: " + w.stdout + w.stderr)
        }
        XCTAssertEqual(try daemon.connect().request("12345O=0"), ["OK"], "a close is warned...")
        XCTAssertEqual(presses(in: try waitForTrace(daemon, count: 3, timeout: .seconds(10))).count, 1, "...and pressed, on time")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }
}

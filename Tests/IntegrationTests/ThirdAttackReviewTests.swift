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

extension ThirdAttackReviewTests {
    // MARK: - C2: strangers never outrank the owner, a phone or a verified session

    /// A stranger's TCP connection to the HomeKit port, left half-open, sending one byte of a
    /// request that never ends whenever asked; -1 when even the connect failed.
    private func strangerConnection(port: UInt16) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let r = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if r < 0 && errno != EINPROGRESS { close(fd); return -1 }
        return fd
    }

    /// Unproven HomeKit connections ranked as the owner: ~140 idle strangers pushed out the
    /// phones' ATT links and the iPhones' sessions, and strangers kept fresh made the owner's
    /// own `S` fail. Now strangers only ever push out strangers, and the local socket's places
    /// are counted apart: 200 strangers kept fresh, 30 of the owner's `S` all answered, the
    /// phone's link and the verified session untouched.
    func testStrangersNeverPushOutTheOwnerAPhoneOrAVerifiedSession() throws {
        _ = try python()
        let daemon = try startATTDaemon(["--homekit", "--homekit-port", "0", "--homekit-bind", "127.0.0.1", "--auto-close-s", "0"])
        XCTAssertEqual(try homekitPair(daemon).termination, .exited(0))
        let port = try homekitPort(daemon)
        let phone = try connectBearer(daemon)
        XCTAssertTrue(try phone.exchangeMTU(247).hasPrefix("03"), "the phone's link works")
        let ready = dir + "/watching"
        let watch = try spawn(try python(), [hapctl, "watch", "--pairing", pairingFile, "--port", port, "--char", HomeKitTests.current,
                                             "--until", HomeKitTests.current + "=2", "--ready-file", ready, "--timeout", "120"],
                              name: "hapctl-watch-session")
        waitUntil("the verified session's subscription", timeout: .seconds(20)) { fileExists(ready) }

        var strangers = (0..<200).map { _ in strangerConnection(port: UInt16(port)!) }
        defer { for fd in strangers where fd >= 0 { close(fd) } }
        // Every stranger says something (fresher than the idle phone and session); one the
        // daemon dropped is replaced by a new one.
        func refresh() {
            for (i, fd) in strangers.enumerated() {
                if fd < 0 || send(fd, "G", 1, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) < 0 && errno != EAGAIN && errno != ENOTCONN {
                    if fd >= 0 { close(fd) }
                    strangers[i] = strangerConnection(port: UInt16(port)!)
                }
            }
        }
        // The listen backlog lets them in a few at a time: wait until the remote places are full.
        waitUntil("the remote places full", timeout: .seconds(30)) {
            refresh()
            return daemon.log.contains("connection-evicted") || daemon.log.contains("connection-refused")
        }
        var answered = 0
        for _ in 0..<30 {
            refresh()
            if (try? daemon.ask("12345S")) == "S CLOSED" { answered += 1 }
        }
        XCTAssertEqual(answered, 30, "every one of the owner's S was answered")
        XCTAssertTrue(try phone.exchangeMTU(247).hasPrefix("03"), "the phone's link outlived the flood")
        XCTAssertEqual(try daemon.ask("12345O=1"), "OK")
        XCTAssertEqual(watch.waitForExit(timeout: .seconds(30)), .exited(0), watch.stdout + watch.stderr)
        XCTAssertFalse(watch.stderr.contains("reconnected"), "the verified session was never dropped: " + watch.stderr)
        XCTAssertEqual(daemon.stop(), .exited(0))
    }
}

extension ThirdAttackReviewTests {
    // MARK: - H1, H5: every request carries its arrival time

    /// True once the kernel holds unread bytes for an established TCP connection to `port`
    /// (the daemon's end): what a peer sent has arrived, whether or not the daemon runs.
    private func tcpBytesWaiting(toPort port: String) -> Bool {
        guard let p = Int(port) else { return false }
        let hex = String(format: "%04X", p)
        return readText("/proc/net/tcp").split(separator: "\n").dropFirst().contains { line in
            let f = line.split(separator: " ")
            guard f.count > 4, f[1].hasSuffix(":" + hex), f[3] == "01" else { return false }
            let queues = f[4].split(separator: ":")
            return queues.count == 2 && (Int(queues[1], radix: 16) ?? 0) > 0
        }
    }

    /// A HomeKit write that waited in the socket while garaged was stalled was pressed as soon
    /// as it resumed (judged with age zero). Now it carries the kernel's stamp: refused, stale.
    func testAHomeKitWriteThatWaitedOutAStallIsRefused() throws {
        let daemon = try homekitDaemon()
        XCTAssertEqual(try homekitPair(daemon).termination, .exited(0))
        let port = try homekitPort(daemon)
        let ready = dir + "/held", go = dir + "/go"
        let held = try spawn(try python(), [hapctl, "hold", "--pairing", pairingFile, "--port", port, "--ready-file", ready,
                                            "--go-file", go, "--put", HomeKitTests.target + "=0"], name: "hapctl-hold-put")
        waitUntil("the verified session", timeout: .seconds(20)) { fileExists(ready) }
        try stalled(daemon, for: 3) {
            try write(Array("go".utf8), to: go)
            waitUntil("the write in the daemon's socket", timeout: .seconds(5)) { self.tcpBytesWaiting(toPort: port) }
        }
        XCTAssertEqual(held.waitForExit(timeout: .seconds(30)), .exited(4), "refused: " + held.stdout + held.stderr)
        XCTAssertEqual(try daemon.trace().count, 1, "nothing pressed")
        waitUntil("the refusal in the log", timeout: .seconds(3)) { daemon.log.contains("ERR STALE") }
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// A request on a connection accepted only after a stall was judged fresh (its age counted
    /// from the accept): connect while garaged is stopped, send O=1, resume, and it pressed.
    /// Now what a connection sent before it was accepted counts from when the listener was
    /// last seen empty: refused, on the local socket and on an ATT bearer alike.
    func testARequestOnAConnectionMadeDuringAStallIsRefused() throws {
        let daemon = try startATTDaemon(["--auto-close-s", "0"])
        var client: SocketClient?
        var phone: ATTBearer?
        try stalled(daemon, for: 3) {
            client = try SocketClient(path: daemon.socketPath)
            try client?.sendLine(Array("12345O=1".utf8))
            phone = try ATTBearer(path: attSocketPath)
            try phone?.send("12 0F 00 01 00")
            try phone?.writeCommand("12345O=1")
        }
        XCTAssertTrue(try client?.readRecord().contains("send it again") ?? false, "the local socket says why first")
        XCTAssertEqual(try client?.readRecord(), "ERR STALE", "the local socket")
        XCTAssertEqual(try phone?.receive(), "13")
        XCTAssertEqual(try phone?.notification(), "ERR STALE", "the ATT bearer")
        XCTAssertEqual(try daemon.trace().count, 1, "nothing pressed")
        // A connection made now is fresh: its request is performed.
        XCTAssertEqual(try daemon.ask("12345O=1"), "OK")
        try waitForTrace(daemon, count: 3)
        XCTAssertEqual(daemon.stop(), .exited(0))
    }
}

extension ThirdAttackReviewTests {
    // MARK: - H4, W1, W6: what strangers repeat at will

    /// Runs `hapraw burst` and returns its JSON.
    private func burst(_ port: String, _ kind: String, count: Int, connections: Int = 1) throws -> [String: Any] {
        let run = try spawn(try python(), [hapraw, "burst", "--port", port, "--kind", kind, "--count", String(count),
                                           "--connections", String(connections)], name: "hapraw-burst-\(kind)")
        XCTAssertEqual(run.waitForExit(timeout: .seconds(60)), .exited(0), run.stderr)
        return try XCTUnwrap(json(run.stdout) as? [String: Any], run.stdout)
    }

    private func lines(_ log: String, _ prefix: String) -> Int {
        log.split(separator: "\n").filter { $0.contains(prefix) }.count
    }

    /// One `connection-dropped` line per malformed connection and one per unpaired identify:
    /// thousands a second, enough to bury the presses under journald's rate limit. Now each is
    /// logged once per burst, under one key for every remote peer, with a count at its end.
    func testStrangersCannotFloodTheLog() throws {
        let daemon = try homekitDaemon()
        let port = try homekitPort(daemon)
        _ = try burst(port, "garbage", count: 300)
        let identified = try burst(port, "identify", count: 300, connections: 3)
        XCTAssertEqual(identified["answers"] as? Int, 300)
        XCTAssertEqual(try daemon.ask("12345O=1"), "OK")
        waitUntil("the open in the log", timeout: .seconds(5)) { daemon.log.contains("command=open") }
        XCTAssertLessThanOrEqual(lines(daemon.log, "WARN connection-dropped "), 2, daemon.log.suffix(2_000).description)
        XCTAssertLessThanOrEqual(lines(daemon.log, "INFO identify "), 2, daemon.log.suffix(2_000).description)
        XCTAssertEqual(daemon.stop(), .exited(0))
        XCTAssertTrue(daemon.log.contains("connection-dropped-repeats"), "the count comes at the burst's end")
    }

    /// While unpaired, anyone sounded the warning without limit through `/identify`. Now
    /// identify spends the warning allowance, one for every unpaired peer together: 3 a minute.
    func testUnpairedIdentifySoundsTheWarningThreeTimesAMinuteAtMost() throws {
        try initTable()
        let warn = dir + "/warn.trace"
        let daemon = try startDaemon(["--homekit", "--homekit-port", "0", "--homekit-bind", "127.0.0.1", "--auto-close-s", "0",
                                      "--warn", "sim:" + warn])
        let port = try homekitPort(daemon)
        func sounded() -> [Int] { ((try? readTrace(warn)) ?? []).map(\.level) }
        for n in 1...3 {
            _ = try burst(port, "identify", count: 1)
            waitUntil("identify \(n) sounded and ended", timeout: .seconds(10)) {
                let levels = sounded()
                return levels.filter { $0 == 1 }.count == n && levels.last == 0
            }
        }
        _ = try burst(port, "identify", count: 1)
        waitUntil("the fourth refused", timeout: .seconds(5)) { daemon.log.contains("result=\"ERR RATE\"") }
        XCTAssertEqual(sounded().filter { $0 == 1 }.count, 3, "the warning went on 3 times, not 4")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// Pair-verify M1 (an X25519 exchange and an Ed25519 signature) had no limit: one client
    /// pipelining M1s on 30 connections held up the owner's answers. Now strangers' exchanges
    /// come from a budget, 16 at once and 8 a second per address: the rest are answered Busy
    /// with no crypto.
    func testPairVerifyStartsAreBudgeted() throws {
        let daemon = try homekitDaemon()
        let port = try homekitPort(daemon)
        let result = try burst(port, "verify", count: 120, connections: 30)
        let exchanged = try XCTUnwrap(result["exchanged"] as? Int), busy = try XCTUnwrap(result["busy"] as? Int)
        let seconds = try XCTUnwrap(result["seconds"] as? Double)
        XCTAssertEqual(exchanged + busy, 120, "every M1 answered: \(result)")
        XCTAssertLessThanOrEqual(Double(exchanged), 16 + 8 * seconds.rounded(.up), "16 at once, then 8 a second: \(result)")
        XCTAssertGreaterThan(busy, 0)
        XCTAssertEqual(try daemon.ask("12345S"), "S CLOSED")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }
}

import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Issue 40 item 5: an idle daemon sleeps. The loop woke every 500 ms so that a listener's empty
/// mark, which dates what a connection sent before it was accepted, was never old. Now a Unix
/// socket's connections are dated by the kernel's connect time (the socket file's access time,
/// `ConnectTimes`), so with nothing open the loop does not wake, and the arrival-time rule holds:
/// a request sent at once on a new connection after a long sleep is fresh, one sent during a
/// stall after it is stale, and times the daemon did not set are not believed.
final class IdleLoopTests: GaragedTestCase {
    /// The door loop's thread's context switches: each wake from its wait is one.
    private func loopSwitches(_ daemon: GaragedDaemon) -> Int? {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.pid)/task")) ?? []
        for tid in tasks where readText("/proc/\(daemon.pid)/task/\(tid)/comm").hasPrefix("door-loop") {
            let lines = readText("/proc/\(daemon.pid)/task/\(tid)/status").split(separator: "\n").filter { $0.contains("ctxt_switches:") }
            return lines.compactMap { Int($0.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") }.reduce(0, +)
        }
        return nil
    }

    /// Waits until the loop has not woken for `quiet` (each wake would show in its switches).
    @discardableResult
    private func waitUntilAsleep(_ daemon: GaragedDaemon, for quiet: Duration = .milliseconds(2500),
                                 file: StaticString = #filePath, line: UInt = #line) -> Bool {
        var last = loopSwitches(daemon), since = monotonicNanoseconds()
        return waitUntil("the door loop asleep for \(quiet) (its context switches unchanged)", timeout: .seconds(15), file: file, line: line) {
            let now = loopSwitches(daemon)
            if now != last { (last, since) = (now, monotonicNanoseconds()) }
            return now != nil && monotonicNanoseconds() - since >= quiet.totalNanoseconds
        }
    }

    /// The test's folder must keep relatime access times, as /run does; elsewhere the loop looks
    /// every 500 ms as before (and says nothing: that is the mount's choice).
    private func requireRelatime() throws {
        var fs = statvfs()
        guard statvfs(dir, &fs) == 0, fs.f_flag & 4096 != 0, fs.f_flag & 1024 == 0 else {
            throw XCTSkip("\(dir) is not on a relatime mount: the loop keeps looking there")
        }
    }

    /// With nothing open, the loop does not wake (no watchdog here, no door deadline, no channel).
    func testAnIdleLoopDoesNotWake() throws {
        try requireRelatime()
        let daemon = try startATTDaemon()
        waitUntilAsleep(daemon)
    }

    /// A request sent at once on a new connection after the loop slept longer than 2 s is
    /// judged fresh, on the local socket and over a new ATT bearer: it counts from its connect.
    func testARequestSentAtOnceAfterALongSleepIsFresh() throws {
        try requireRelatime()
        let daemon = try startATTDaemon()
        waitUntilAsleep(daemon)
        XCTAssertEqual(try daemon.ask("12345S"), "S CLOSED")
        waitUntilAsleep(daemon)
        let phone = try ATTBearer(path: attSocketPath)
        try phone.send("12 0F 00 01 00")
        try phone.writeCommand("12345S")
        XCTAssertEqual(try phone.receive(), "13")
        XCTAssertEqual(try phone.notification(), "S CLOSED")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// A connection made while the daemon is stopped after a long sleep counts from its connect,
    /// before the stall: its request is stale, on the local socket and over ATT alike.
    func testARequestOnAConnectionMadeDuringAStallAfterALongSleepIsRefused() throws {
        try requireRelatime()
        let daemon = try startATTDaemon(["--auto-close-s", "0"])
        waitUntilAsleep(daemon)
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
        XCTAssertEqual(try daemon.ask("12345O=1"), "OK")
        try waitForTrace(daemon, count: 3)
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// A PIN lockout ending changes the status with time alone: the loop, asleep with a phone
    /// and a follower connected (both stamped, neither needs its looks), wakes when it ends, and
    /// the follower hears it then.
    func testALockoutEndingIsToldWhenItEnds() throws {
        let daemon = try startATTDaemon(["--travel-s", "0", "--auto-close-s", "0"])
        let follower = try startFollower(daemon, ["status", "--follow", "--json"], name: "follow-status")
        func locks() -> [Int] {
            follower.stdout.split(separator: "\n").compactMap { (json(String($0)) as? [String: Any])?["locked_s"] as? Int }
        }
        waitUntil("the first status", timeout: .seconds(5)) { locks() == [0] }
        let phone = try connectBearer(daemon)
        XCTAssertEqual(try phone.enableNotifications(), "13")
        for attempt in 1...5 {
            XCTAssertEqual(try phone.writeRequest("99999O=1"), "13", "attempt \(attempt)")
            XCTAssertEqual(try phone.notification(), "ERR PIN", "attempt \(attempt)")
        }
        waitUntil("the lockout, then its end (seen \(locks()))", timeout: .seconds(5)) { locks().contains { $0 > 0 } && locks().last == 0 }
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// HomeKit: while the accessory is unpaired its listener asks for looks (`POST /identify`
    /// may be a connection's first request, judged for its age); once paired it does not, and
    /// the loop sleeps; a controller's open connection does (TCP merges what waits unread, so its
    /// requests count from its empty mark), and once it closes the loop sleeps again.
    func testHomeKitNeedsLooksOnlyWhileUnpairedOrConnected() throws {
        try requireRelatime()
        let daemon = try homekitDaemon()
        let unpaired = loopSwitches(daemon) ?? 0
        waitUntil("the loop to look while unpaired", timeout: .seconds(3)) { (loopSwitches(daemon) ?? 0) >= unpaired + 2 }
        XCTAssertEqual(try homekitPair(daemon).termination, .exited(0))
        waitUntilAsleep(daemon)

        let ready = dir + "/held", go = dir + "/go"
        let held = try spawn(try python(), [hapctl, "hold", "--pairing", pairingFile, "--port", try homekitPort(daemon), "--ready-file", ready,
                                            "--go-file", go, "--put", HomeKitTests.target + "=1"], name: "hapctl-hold")
        waitUntil("the verified session", timeout: .seconds(20)) { fileExists(ready) }
        let open = loopSwitches(daemon) ?? 0
        waitUntil("the loop to look while a controller is connected", timeout: .seconds(3)) { (loopSwitches(daemon) ?? 0) >= open + 2 }
        try write(Array("go".utf8), to: go)
        XCTAssertEqual(held.waitForExit(timeout: .seconds(30)), .exited(0), held.stdout + held.stderr)
        waitUntilAsleep(daemon)
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// Anyone who may connect may also touch the socket file. Times the daemon did not set are
    /// not believed: the next request counts from the loop's last look (the sleep's start, so it
    /// is refused), the log says why once, and from then on the loop looks every 500 ms, so the
    /// request sent again is fresh.
    func testSocketFileTimesSetBySomeoneElseAreNotBelieved() throws {
        try requireRelatime()
        try initTable()
        let daemon = try startDaemon()
        waitUntilAsleep(daemon)
        XCTAssertEqual(utimensat(AT_FDCWD, daemon.socketPath, nil, 0), 0, "touch \(daemon.socketPath)")
        let refused = try daemon.explained("12345S")
        XCTAssertEqual(refused.record, "ERR STALE")
        XCTAssertTrue(refused.reason?.contains("send it again") ?? false, refused.reason ?? "no reason")
        waitUntil("the log to say why", timeout: .seconds(3)) {
            daemon.log.contains("connect-times-off") && daemon.log.contains("changed by someone else")
        }
        XCTAssertEqual(try daemon.ask("12345S"), "S CLOSED")
        let before = loopSwitches(daemon) ?? 0
        waitUntil("the loop to look again", timeout: .seconds(3)) { (loopSwitches(daemon) ?? 0) >= before + 2 }
        XCTAssertEqual(daemon.log.components(separatedBy: "connect-times-off").count - 1, 1, "said once")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }
}

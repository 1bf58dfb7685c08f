import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// PIN guessing is slowed down for everyone but the owner at the shell. The daemon exempts uid 0
/// and its own uid, so the guesser here is a real unprivileged process: garage-pins run as uid
/// 65534 through setpriv, on a socket opened up to it with chmod 0666.
final class ThrottleLockoutTests: GaragedTestCase {
    private func startOpenToNobody(_ extra: [String]) throws -> GaragedDaemon {
        try initTable()
        return try startDaemonOpenToNobody(extra)
    }

    /// garage-pins as uid 65534.
    private func nobody(_ command: String, pin: String, _ daemon: GaragedDaemon) throws -> CommandResult {
        try garagePins([command, "--socket", daemon.socketPath, "--pin", pin], asNobody: true)
    }

    /// The `ERR …` record garage-pins quotes in its refusal message (`… (ERR LOCKED 1)`).
    private func quotedRecord(_ result: CommandResult) -> String? {
        guard let open = result.stderr.range(of: "(ERR"),
              let close = result.stderr[open.upperBound...].firstIndex(of: ")") else { return nil }
        return String(result.stderr[result.stderr.index(after: open.lowerBound)..<close])
    }

    private func lockSeconds(_ record: String?) -> Int? {
        guard let record, record.hasPrefix("ERR LOCKED ") else { return nil }
        return Int(record.dropFirst("ERR LOCKED ".count))
    }

    func testFiveWrongPINsLockOutOthersButNotRoot() throws {
        let daemon = try startOpenToNobody(["--travel-s", "0", "--auto-close-s", "0"])

        // The unprivileged client can use the daemon at all (so the refusals below are the throttle).
        let ok = try nobody("status", pin: "12345", daemon)
        XCTAssertEqual(ok.termination, .exited(0), ok.stderr)
        XCTAssertEqual(doorState(ok.stdout), "CLOSED", ok.stdout)

        for attempt in 1...5 {
            let wrong = try nobody("open", pin: "99999", daemon)
            XCTAssertEqual(wrong.termination, .exited(1), "attempt \(attempt)")
            XCTAssertEqual(quotedRecord(wrong), "ERR PIN", "attempt \(attempt): \(wrong.stderr)")
        }
        // Locked now: even the right PIN is refused, and nothing is pressed.
        let locked = try nobody("open", pin: "12345", daemon)
        XCTAssertEqual(locked.termination, .exited(1))
        let seconds = lockSeconds(quotedRecord(locked))
        XCTAssertNotNil(seconds, "expected ERR LOCKED <n>, got: \(locked.stderr)")
        XCTAssertGreaterThanOrEqual(seconds ?? 0, 1)
        XCTAssertEqual(try daemon.trace().count, 1, "a locked-out open must not press")

        // Root at the shell is never locked out, and its mistakes do not count.
        let root = try daemon.connect()
        XCTAssertEqual(try root.ask("99999S"), "ERR PIN")
        XCTAssertEqual(try root.ask("12345O=1"), "OK")
        let opened = try waitForTrace(daemon, count: 3)
        XCTAssertEqual(opened.map(\.level), [0, 1, 0])
        reportWidths(presses(in: opened), "root during a lockout")
        try waitForStatus(daemon, "S OPEN") { $0 == "S OPEN" }

        // When the lock expires the right PIN works again: status (which presses nothing) is
        // refused while locked, and answered once the lock has run out.
        var last: CommandResult?
        waitUntil("the lockout to expire (last: \(last?.stderr ?? ""))", timeout: .seconds(5)) {
            last = try? nobody("status", pin: "12345", daemon)
            return last?.termination == .exited(0)
        }
        XCTAssertEqual(last.flatMap { doorState($0.stdout) }, "OPEN")
        let close = try nobody("close", pin: "12345", daemon)
        XCTAssertEqual(close.termination, .exited(0), close.stderr)
        XCTAssertEqual(close.stdout, "OK\n")
        let closed = try waitForTrace(daemon, count: 5)
        XCTAssertEqual(closed.map(\.level), [0, 1, 0, 1, 0], "the unlocked close presses")
        reportWidths(presses(in: closed).suffix(1), "unprivileged close after the lockout")
    }

    /// After the first lockout a further wrong PIN doubles the delay (1 s, then 2 s); attempts
    /// refused while locked neither count nor extend it.
    func testTheDelayDoublesWithEachFurtherWrongPIN() throws {
        let daemon = try startOpenToNobody([])
        for _ in 1...5 { _ = try nobody("status", pin: "99999", daemon) }
        // Each lock's length as the daemon logs it when the lock starts: a query afterwards
        // could come after a 1 s lock already ran out on a busy machine.
        waitUntil("the first lock, of 1 s, in the log (seen: \(lockLengths(daemon)))", timeout: .seconds(5)) { lockLengths(daemon) == [1] }

        // Wait out the first lock with wrong PINs: refused as LOCKED until it ends, then judged,
        // counted, and the lock is back for 2 s; none of the refused ones started a lock.
        var record: String?
        try waitUntil("a wrong PIN to be judged again (last: \(record ?? "-"))", timeout: .seconds(5)) {
            record = quotedRecord(try nobody("status", pin: "99999", daemon))
            return record == "ERR PIN"
        }
        waitUntil("the second lock, of 2 s, in the log (seen: \(lockLengths(daemon)))", timeout: .seconds(5)) { lockLengths(daemon) == [1, 2] }
    }

    /// The length in seconds of each lockout the daemon logged, in order.
    private func lockLengths(_ daemon: GaragedDaemon) -> [Int] {
        daemon.log.split(separator: "\n").filter { $0.contains("lockout source=") }.compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("seconds=") }.flatMap { Int($0.dropFirst("seconds=".count)) }
        }
    }

    /// A stranger keeping a channel locked used to hold every phone out until a restart. Now
    /// each channel has its own budget, the owner sees the lockout in `status` and `log`, and
    /// `garage-pins unlock` ends it.
    func testTheOwnerSeesTheLockoutAndEndsItAndOtherChannelsAreUntouched() throws {
        let daemon = try startOpenToNobody(["--att-socket", attSocketPath, "--travel-s", "0", "--auto-close-s", "0"])
        for _ in 1...5 { _ = try nobody("status", pin: "99999", daemon) }
        XCTAssertEqual(lockSeconds(quotedRecord(try nobody("status", pin: "12345", daemon))), 1)

        // Bluetooth is another channel: its phones are not locked out by a local guesser.
        let phone = try connectBearer(daemon)
        XCTAssertEqual(try phone.enableNotifications(), "13")
        try phone.writeCommand("12345S")
        XCTAssertEqual(try phone.notification(), "S CLOSED")

        // The owner sees it, and which channel it is on. The first lock lasts 1 s: should it have
        // run out by now on a slow machine, one more wrong PIN locks again (for longer).
        let status = try whileLocked({ try garagePins(["status", "--socket", daemon.socketPath, "--pin", "12345"]) },
                                     relock: { _ = try nobody("status", pin: "99999", daemon) },
                                     until: { $0.stdout.contains("local locked for") })
        XCTAssertEqual(status.termination, .exited(0), status.stderr)
        XCTAssertTrue(status.stdout.contains("local locked for"), status.stdout)
        XCTAssertFalse(status.stdout.contains("remote"), status.stdout)
        let log = try garagePins(["log", "--json", "--socket", daemon.socketPath, "--pin", "12345"])
        XCTAssertTrue(log.stdout.contains("\"kind\":\"lockout\""), log.stdout)

        // And ends it: the right PIN works at once, and the unlock is in the history.
        let unlock = try garagePins(["unlock", "local", "--socket", daemon.socketPath, "--pin", "12345"])
        XCTAssertEqual(unlock.termination, .exited(0), unlock.stderr)
        XCTAssertEqual(unlock.stdout, "unlocked the local channel\n")
        let after = try nobody("status", pin: "12345", daemon)
        XCTAssertEqual(after.termination, .exited(0), after.stderr)
        let log2 = try garagePins(["log", "--json", "--socket", daemon.socketPath, "--pin", "12345"])
        XCTAssertTrue(log2.stdout.contains("\"kind\":\"unlock\""), log2.stdout)
        // A guest PIN cannot unlock.
        _ = try daemon.ask("12345A24680")
        let refused = try nobody("unlock", pin: "24680", daemon)
        XCTAssertEqual(refused.termination, .exited(1))
        XCTAssertEqual(quotedRecord(refused), "ERR PIN")
    }
}

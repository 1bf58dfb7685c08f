import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// PIN guessing is slowed down for everyone but the owner at the shell. The daemon exempts uid 0
/// and its own uid, so the guesser here is a real unprivileged process: garage-pins run as uid
/// 65534 through setpriv, on a socket opened up to it with chmod 0666.
final class ThrottleLockoutTests: GaragedTestCase {
    /// Starts the daemon where uid 65534 can reach its socket.
    private func startOpenToNobody(_ extra: [String]) throws -> GaragedDaemon {
        try XCTSkipUnless(getuid() == 0, "needs root: setpriv must switch to uid 65534, and a non-root test runner's own uid is exempt anyway")
        // mkdtemp made the folder 0700: nobody could not even reach the socket inside it.
        XCTAssertEqual(chmod(dir, 0o755), 0)
        try initTable()
        let daemon = try startDaemon(extra)
        XCTAssertEqual(permissions(daemon.socketPath), 0o660, "the daemon creates its socket 0660")
        XCTAssertEqual(chmod(daemon.socketPath, 0o666), 0)
        return daemon
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
        XCTAssertEqual(lockSeconds(quotedRecord(try nobody("status", pin: "12345", daemon))), 1)

        // Wait out the first lock with wrong PINs: refused as LOCKED until it ends, then judged,
        // counted, and the lock is back for 2 s.
        var record: String?
        try waitUntil("a wrong PIN to be judged again (last: \(record ?? "-"))", timeout: .seconds(5)) {
            record = quotedRecord(try nobody("status", pin: "99999", daemon))
            return record == "ERR PIN"
        }
        XCTAssertEqual(lockSeconds(quotedRecord(try nobody("status", pin: "12345", daemon))), 2)
    }
}

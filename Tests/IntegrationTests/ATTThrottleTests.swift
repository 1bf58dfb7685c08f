import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// An ATT bearer is a remote channel: PIN guessing through it is throttled, whoever owns the
/// socket at the other end (here root), while root on the local socket never is.
final class ATTThrottleTests: GaragedTestCase {
    func testFiveWrongPINsLockTheBearerOutButNotRootLocally() throws {
        let daemon = try startATTDaemon(["--travel-s", "0", "--auto-close-s", "0"])
        let phone = try connectBearer(daemon)
        XCTAssertEqual(try phone.enableNotifications(), "13")

        for attempt in 1...5 {
            XCTAssertEqual(try phone.writeRequest("99999O=1"), "13", "attempt \(attempt)")
            XCTAssertEqual(try phone.notification(), "ERR PIN", "attempt \(attempt)")
        }
        // Locked: even the master PIN is refused, with the seconds left, as a notification.
        XCTAssertEqual(try phone.writeRequest("12345O=1"), "13")
        let locked = try phone.notification()
        let seconds = locked.hasPrefix("ERR LOCKED ") ? Int(locked.dropFirst("ERR LOCKED ".count)) : nil
        XCTAssertNotNil(seconds, "expected ERR LOCKED <n>, got '\(locked)'")
        XCTAssertGreaterThanOrEqual(seconds ?? 0, 1)
        print("ATT lockout after 5 wrong PINs: \(locked)")
        XCTAssertEqual(try daemon.trace().count, 1, "a locked-out open must not press")

        // Root on the local socket (uid 0, like the daemon's own uid, is never throttled) still
        // opens, during the lockout. The bearer's peer is root too: the seam is throttled anyway.
        let root = try daemon.connect()
        XCTAssertEqual(try root.ask("12345O=1"), "OK")
        if let press = try waitForNextPress(daemon) { assertWidth(press, 300, "root locally during an ATT lockout") }
        // Root's reply went to root only; the phone is told the door's new state (a push to
        // every phone that enabled notifications), nothing else.
        try phone.send("0A 03 00")
        var pushed: [String] = []
        while true {
            let pdu = attBytes(try phone.receive())
            if pdu.first == 0x0B { break }
            pushed.append(String(decoding: pdu.dropFirst(3), as: UTF8.self))
        }
        XCTAssertFalse(pushed.isEmpty, "the phone is told the door moved")
        XCTAssertTrue(pushed.allSatisfy { $0.hasPrefix("S OPEN") }, "only state pushes, never root's reply: \(pushed)")
        waitUntil("the lockout in the daemon's log", timeout: .seconds(3)) {
            daemon.log.contains("lockout source=\"att-socket uid=\(getuid())\"")
        }
    }
}

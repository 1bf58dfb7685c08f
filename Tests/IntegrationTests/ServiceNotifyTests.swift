import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// garaged under a `Type=notify` unit, with a socket standing in for systemd's: READY=1 only
/// once a request would be served, a readable STATUS= that follows the door, WATCHDOG=1 at half
/// of WATCHDOG_USEC, STOPPING=1 on the way out, and the reason when it cannot start.
final class ServiceNotifyTests: GaragedTestCase {
    func testReadyWhenTheSocketAcceptsThenStatusWatchdogAndStopping() throws {
        try initTable()
        let notify = try NotifySocket(path: dir + "/notify")
        let daemon = try launchDaemon(environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "200000"])
        guard let ready = notify.wait(for: { $0.contains("READY=1") }) else {
            return XCTFail("no READY=1 within 10 s; got \(notify.messages.map(\.text)); log:\n\(daemon.log)")
        }
        // What READY promises: the socket accepts and the relay is held at rest, right now.
        let client = try SocketClient(path: daemon.socketPath)
        XCTAssertTrue(try client.ask("12345P").hasPrefix("OK"), "READY=1 was sent before a request is served")
        XCTAssertEqual(try daemon.trace().map(\.level), [0], "the relay must be held inactive and untouched")
        let status = NotifySocket.value("STATUS", in: ready.text) ?? ""
        XCTAssertTrue(status.contains("door CLOSED (believed: no sensors)"), status)
        XCTAssertTrue(status.contains("lockout none"), status)
        XCTAssertFalse(notify.messages[..<ready.index].contains { $0.text.contains("WATCHDOG=1") },
                       "a watchdog ping before READY=1")

        // The door loop pings every 100 ms (half of 200 ms) for as long as it runs.
        var pings: [UInt64] = []
        var from = ready.index + 1
        while pings.count < 6, let ping = notify.wait(for: { $0 == "WATCHDOG=1" }, after: from, timeout: .seconds(5)) {
            pings.append(notify.messages[ping.index].at)
            from = ping.index + 1
        }
        XCTAssertEqual(pings.count, 6, "the watchdog pings stopped; got \(notify.messages.map(\.text))")
        let gaps = zip(pings.dropFirst(), pings).map { Double($0 - $1) / 1e6 }.sorted()
        if !gaps.isEmpty { print("watchdog ping interval: median \(String(format: "%.1f", gaps[gaps.count / 2])) ms (asked: 100 ms)") }

        // The status line follows the door.
        XCTAssertEqual(try client.ask("12345O=1"), "OK")
        XCTAssertNotNil(notify.wait(for: { NotifySocket.value("STATUS", in: $0)?.hasPrefix("door OPENING") == true }, after: from),
                        "no STATUS= for the opening door; got \(notify.messages.map(\.text))")

        daemon.process.signal(SIGTERM)
        XCTAssertNotNil(notify.wait(for: { $0.contains("STOPPING=1") }, after: from), "no STOPPING=1 after SIGTERM")
        XCTAssertEqual(daemon.process.waitForExit(timeout: .seconds(5)), .exited(0))
    }

    /// A table that is missing: no READY=1, and `systemctl status` would show why.
    func testAStartThatFailsSaysWhyAndIsNeverReady() throws {
        let notify = try NotifySocket(path: dir + "/notify")
        let daemon = try launchDaemon(environment: ["NOTIFY_SOCKET": notify.path])
        XCTAssertEqual(daemon.process.waitForExit(timeout: .seconds(10)), .exited(1))
        let failed = notify.wait(for: { $0.hasPrefix("STATUS=not started:") }, timeout: .seconds(1))
        XCTAssertTrue(failed?.text.contains("garage-pins init") == true, "got \(notify.messages.map(\.text))")
        XCTAssertFalse(notify.messages.contains { $0.text.contains("READY=1") }, "READY=1 from a daemon that did not start")
    }
}

import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Starting and stopping: signals, a second daemon, bad tables, stale sockets, and the promise
/// that the daemon never presses on its own at start.
final class LifecycleTests: GaragedTestCase {
    /// SIGTERM in the middle of a long press: the press is cut, the line ends at 0, exit 0 well
    /// before the press would have ended (how soon is a figure, printed here).
    func testSIGTERMDuringAPressReleasesTheRelayAndExitsZero() throws {
        try initTable()
        let daemon = try startDaemon(["--pulse-ms", "2000"])
        XCTAssertEqual(try daemon.ask("12345O=1"), "OK")
        waitUntil("the trace to show the relay energised", timeout: .seconds(3)) {
            (try? daemon.trace())?.last?.level == 1
        }
        let sent = monotonicNanoseconds()
        daemon.process.signal(SIGTERM)
        let end = daemon.process.waitForExit(timeout: .seconds(5))
        let seconds = Double(monotonicNanoseconds() - sent) / 1e9
        print("exit after SIGTERM mid-press: \(String(format: "%.3f", seconds)) s")
        XCTAssertEqual(end, .exited(0))
        XCTAssertLessThan(seconds, 2.0, "the 2,000 ms press was waited out, not cut")

        let trace = try daemon.trace()
        XCTAssertEqual(trace.map(\.level), [0, 1, 0], "trace: \(trace)")
        XCTAssertEqual(trace.last?.level, 0, "the relay must end released")
        if let press = presses(in: trace).first {
            reportWidths([press], "cut short by SIGTERM (2000 ms asked)")
            XCTAssertLessThan(press.widthMs, 2000, "a press with more than 500 ms to go is cut")
        }
        XCTAssertFalse(fileExists(daemon.socketPath), "socket left behind")
        XCTAssertTrue(daemon.log.contains("cut_short=yes"), daemon.log)
    }

    /// SIGTERM with at most 500 ms of the press to go: the press is completed, then exit 0.
    func testSIGTERMNearTheEndOfAPressCompletesIt() throws {
        try initTable()
        let daemon = try startDaemon(["--pulse-ms", "400"])
        XCTAssertEqual(try daemon.ask("12345O=1"), "OK")
        waitUntil("the trace to show the relay energised", timeout: .seconds(3)) {
            (try? daemon.trace())?.last?.level == 1
        }
        let sent = monotonicNanoseconds()
        daemon.process.signal(SIGTERM)
        let end = daemon.process.waitForExit(timeout: .seconds(5))
        let seconds = Double(monotonicNanoseconds() - sent) / 1e9
        XCTAssertEqual(end, .exited(0))
        print("exit after SIGTERM near the end of a press: \(String(format: "%.3f", seconds)) s")
        let trace = try daemon.trace()
        XCTAssertEqual(trace.map(\.level), [0, 1, 0], "trace: \(trace)")
        if let press = presses(in: trace).first { assertWidth(press, 400, "completed despite SIGTERM") }
        XCTAssertFalse(fileExists(daemon.socketPath), "socket left behind")
    }

    /// SIGTERM or SIGINT while idle: exit 0, socket file removed, no press. The signal is sent
    /// the moment the socket accepts (as systemd may), several times over, so a daemon that
    /// is still finishing its start-up must already handle it.
    func testSIGTERMAndSIGINTWhileIdleExitZeroAndRemoveTheSocket() throws {
        try initTable()
        let rounds = 5
        for sig in [SIGTERM, SIGINT] {
            for round in 1...rounds {
                let daemon = try startDaemon()
                XCTAssertTrue(fileExists(daemon.socketPath))
                daemon.process.signal(sig)
                XCTAssertEqual(daemon.process.waitForExit(timeout: .seconds(5)), .exited(0), "signal \(sig), round \(round)")
                XCTAssertFalse(fileExists(daemon.socketPath), "signal \(sig), round \(round): socket left behind")
            }
        }
        XCTAssertEqual(try readTrace(tracePath).map(\.level), [Int](repeating: 0, count: 2 * rounds), "starts only, no press")
    }

    /// The daemon stops cleanly only if SIGTERM and SIGINT reach its main thread's sigwait: any
    /// other thread that leaves them unblocked takes them with the default action (death, the
    /// socket left behind, the relay not released). Checked on the running process through
    /// /proc/<pid>/task/*/status, so it does not depend on winning a race.
    func testOnlyTheMainThreadCanTakeAStopSignal() throws {
        try initTable()
        let daemon = try startDaemon()
        XCTAssertEqual(try daemon.ask("12345S"), "S CLOSED")  // every thread is up by now
        let taskDir = "/proc/\(daemon.pid)/task"
        let tids = try FileManager.default.contentsOfDirectory(atPath: taskDir).compactMap { Int32($0) }.sorted()
        XCTAssertGreaterThan(tids.count, 1, "the daemon runs several threads")
        let stopSignals = (UInt64(1) << UInt64(SIGTERM - 1)) | (UInt64(1) << UInt64(SIGINT - 1))
        var report: [String] = []
        for tid in tids where tid != daemon.pid {
            let status = readText("\(taskDir)/\(tid)/status")
            func field(_ name: String) -> String? {
                status.split(separator: "\n").first { $0.hasPrefix(name + ":") }
                    .map { $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces) }
            }
            guard let blockedText = field("SigBlk"), let blocked = UInt64(blockedText, radix: 16) else {
                XCTFail("no SigBlk for thread \(tid): \(status)")
                continue
            }
            let name = field("Name") ?? "?"
            report.append("\(name)(\(tid)) SigBlk=\(blockedText)")
            XCTAssertEqual(blocked & stopSignals, stopSignals,
                           "thread '\(name)' (tid \(tid)) leaves SIGTERM/SIGINT unblocked: a stop signal delivered to it kills the daemon")
        }
        print("daemon threads: \(report.joined(separator: ", "))")
    }

    /// A second daemon on a table that one holds refuses to start and names the holder's pid;
    /// the first one keeps its socket and keeps answering.
    func testASecondDaemonOnTheSameTableIsRefused() throws {
        try initTable()
        let first = try startDaemon()
        let table = readBytes(pinsPath)

        // Its own socket and trace: only the table is shared.
        let second = try launchDaemon(socket: dir + "/sock2", trace: dir + "/trace2")
        let end = second.process.waitForExit(timeout: .seconds(5))
        XCTAssertNotNil(end)
        XCTAssertNotEqual(end, .exited(0))
        XCTAssertTrue(second.log.contains("process \(first.pid)"), "stderr must name pid \(first.pid): \(second.log)")
        XCTAssertTrue(second.log.contains(pinsPath), second.log)

        // Everything shared: still refused on the table, and the first daemon's socket survives.
        let third = try launchDaemon()
        XCTAssertNotEqual(third.process.waitForExit(timeout: .seconds(5)), .exited(0))
        XCTAssertTrue(third.log.contains("process \(first.pid)"), third.log)

        XCTAssertEqual(try first.ask("12345S"), "S CLOSED")
        XCTAssertEqual(try first.ask("12345Aabcde"), "OK 1", "the first daemon still owns the table")
        XCTAssertNotEqual(readBytes(pinsPath), table)
        XCTAssertEqual(try first.trace().map(\.level), [0])
    }

    /// No table: refused, with the file and `garage-pins init` in the message; nothing created.
    func testAMissingTableStopsTheDaemonWithTheFix() throws {
        let daemon = try launchDaemon()
        XCTAssertEqual(daemon.process.waitForExit(timeout: .seconds(5)), .exited(1))
        let log = daemon.log
        XCTAssertTrue(log.contains(pinsPath), log)
        XCTAssertTrue(log.contains("does not exist"), log)
        XCTAssertTrue(log.contains("garage-pins init --pins \(pinsPath)"), log)
        XCTAssertFalse(fileExists(pinsPath), "a missing table must never be created silently")
        XCTAssertFalse(fileExists(socketPath))
    }

    /// A corrupt table (flag 0x07 in slot 3): refused, naming the file, the slot and the fix,
    /// and the file is left exactly as it was.
    func testACorruptTableStopsTheDaemonNamingTheSlot() throws {
        try initTable()
        var image = readBytes(pinsPath) ?? []
        image[18] = 0x07  // slot 3's flag byte
        try write(image, to: pinsPath)
        XCTAssertEqual(chmod(pinsPath, 0o600), 0)

        let daemon = try launchDaemon()
        XCTAssertEqual(daemon.process.waitForExit(timeout: .seconds(5)), .exited(1))
        let log = daemon.log
        XCTAssertTrue(log.contains(pinsPath), log)
        XCTAssertTrue(log.contains("slot 3"), log)
        XCTAssertTrue(log.contains("garage-pins init"), log)
        XCTAssertEqual(readBytes(pinsPath), image, "the corrupt table must not be touched")
        XCTAssertEqual(permissions(pinsPath), 0o600)
        XCTAssertFalse(fileExists(socketPath))
        XCTAssertEqual(try readTrace(tracePath), [], "no relay claimed for a daemon that cannot start")
    }

    /// A short table and a bad PIN byte are refused the same way.
    func testAShortTableAndABadPINByteAreRefused() throws {
        try initTable()
        let good = readBytes(pinsPath) ?? []

        try write(Array(good.prefix(1000)), to: pinsPath)
        let short = try launchDaemon()
        XCTAssertEqual(short.process.waitForExit(timeout: .seconds(5)), .exited(1))
        XCTAssertTrue(short.log.contains(pinsPath) && short.log.contains("1000 bytes") && short.log.contains("garage-pins init"), short.log)
        XCTAssertEqual(readBytes(pinsPath), Array(good.prefix(1000)))

        var badPIN = good
        badPIN[3] = 0x20  // a space inside the master PIN
        try write(badPIN, to: pinsPath)
        let bad = try launchDaemon()
        XCTAssertEqual(bad.process.waitForExit(timeout: .seconds(5)), .exited(1))
        XCTAssertTrue(bad.log.contains(pinsPath) && bad.log.contains("slot 0") && bad.log.contains("garage-pins init"), bad.log)
        XCTAssertEqual(readBytes(pinsPath), badPIN)
    }

    /// A daemon killed with SIGKILL leaves its socket file; the next daemon replaces it and starts.
    func testASocketLeftByAKilledDaemonDoesNotBlockTheNextOne() throws {
        try initTable()
        let first = try startDaemon()
        first.process.signal(SIGKILL)
        XCTAssertEqual(first.process.waitForExit(timeout: .seconds(5)), .signaled(SIGKILL))
        XCTAssertTrue(fileExists(socketPath), "SIGKILL leaves the socket file behind (the case under test)")
        XCTAssertThrowsError(try SocketClient(path: socketPath), "nobody listens on the stale socket")

        let second = try startDaemon()
        XCTAssertEqual(try second.ask("12345S"), "S CLOSED")
        XCTAssertEqual(second.stop(), .exited(0))
    }

    /// The daemon never presses at start: after start and a status request the trace holds only
    /// the start line `<ns> 0`, stamped before the socket accepted anything.
    func testTheDaemonNeverPressesAtStart() throws {
        try initTable()
        let before = monotonicNanoseconds()
        let daemon = try startDaemon()
        let ready = monotonicNanoseconds()
        XCTAssertEqual(try daemon.ask("12345S"), "S CLOSED")
        let trace = try daemon.trace()
        XCTAssertEqual(trace.count, 1, "trace: \(trace)")
        XCTAssertEqual(trace.first?.level, 0)
        if let stamp = trace.first?.ns {
            XCTAssertTrue((before...ready).contains(stamp), "start line stamped on CLOCK_MONOTONIC during start-up")
        }
        XCTAssertEqual(daemon.stop(), .exited(0))
        XCTAssertEqual(try daemon.trace().map(\.level), [0], "stopping an idle daemon adds nothing")
    }

    /// The simulated line has one holder, like a GPIO line: a second daemon (own table) on the
    /// same trace file is refused and does not write to it.
    func testASecondDaemonOnTheSameLineIsRefused() throws {
        try initTable()
        let otherPins = dir + "/pins2"
        try initTable(path: otherPins)
        let first = try startDaemon()
        let second = try launchDaemon(pins: otherPins, socket: dir + "/sock2")
        XCTAssertEqual(second.process.waitForExit(timeout: .seconds(5)), .exited(1))
        XCTAssertTrue(second.log.contains("busy"), second.log)
        XCTAssertEqual(try first.trace().map(\.level), [0], "the refused daemon must not write the line")
        XCTAssertEqual(try first.ask("12345S"), "S CLOSED")
    }
}

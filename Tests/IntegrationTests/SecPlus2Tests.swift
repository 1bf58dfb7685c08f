import Foundation
import XCTest

/// garaged driving a Security+ 2.0 opener (issue 31) on a pty, against Tests/secplus/fakeopener.py:
/// the opener's wire from the notes, timing and the shared wire's echo included.
final class SecPlus2Tests: GaragedTestCase {
    /// One packet the fake opener received, as it logged it.
    private struct Received: Decodable {
        let t: Double
        let rolling: UInt32?
        let client: UInt32?
        let name: String?
        let nibble: Int?
        let byte1: Int?
        let accepted: Bool?
        let refused: String?
    }

    private var repo: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }
    private var openerLink: String { dir + "/opener-tty" }
    private var openerLog: String { dir + "/opener.jsonl" }

    /// Starts the fake opener and waits for its pty.
    private func startOpener() throws {
        let python = try Binaries.system("python3", package: "python3")
        _ = try spawn(python, [repo + "/Tests/secplus/fakeopener.py", "--log", openerLog, "--link", openerLink, "--travel-s", "1"],
                      name: "fakeopener")
        _ = waitUntil("the fake opener's pty at \(openerLink)", timeout: .seconds(10)) { FileManager.default.fileExists(atPath: openerLink) }
    }

    /// garaged with the opener and no relay.
    private func startWithOpener(_ extra: [String] = []) throws -> GaragedDaemon {
        let process = try spawn(try Binaries.path(of: "garaged"),
                                ["--pins", pinsPath, "--socket", socketPath, "--no-ble", "--auto-close-s", "0",
                                 "--opener", "secplus2:\(openerLink)"] + extra, name: "garaged-opener")
        let daemon = GaragedDaemon(process: process, pinsPath: pinsPath, socketPath: socketPath, tracePath: tracePath)
        try waitForSocket(daemon)
        return daemon
    }

    /// Every packet the fake opener has received so far.
    private func received() -> [Received] {
        readText(openerLog).split(separator: "\n").compactMap { try? JSONDecoder().decode(Received.self, from: Data($0.utf8)) }
    }

    func testAnOpenIsADoorActionPressAndReleaseWithTheNextRollingCode() throws {
        try initTable()
        try startOpener()
        let daemon = try startWithOpener()
        _ = waitUntil("GET_STATUS and GET_OPENINGS", timeout: .seconds(5)) {
            Set(received().compactMap(\.name)).isSuperset(of: ["GET_STATUS", "GET_OPENINGS"])
        }
        _ = waitUntil("the opener's STATUS in the log", timeout: .seconds(5)) { daemon.log.contains("opener-status door=1 state=closed") }
        let before = received()
        XCTAssertEqual(before.first?.name, "GET_STATUS", "the status is asked first")
        XCTAssertTrue(before.allSatisfy { $0.refused == nil && $0.accepted == true }, "\(before)")
        XCTAssertEqual(before.first.flatMap(\.client).map { $0 & 0xFFF }, 0x539, "the client id's low 12 bits are ratgdo's")

        XCTAssertEqual(try daemon.ask("12345O=1"), "OK")
        _ = waitUntil("a DOOR_ACTION press and release", timeout: .seconds(5)) { received().filter { $0.name == "DOOR_ACTION" }.count >= 2 }
        let all = received(), actions = all.filter { $0.name == "DOOR_ACTION" }
        guard actions.count == 2, let last = before.compactMap(\.rolling).max() else { return XCTFail("\(all)") }
        let (press, release) = (actions[0], actions[1])
        XCTAssertEqual(press.nibble, 1, "open")
        XCTAssertEqual(press.byte1, 1, "the press")
        XCTAssertEqual(release.nibble, 1)
        XCTAssertEqual(release.byte1, 0, "the release")
        XCTAssertEqual(press.rolling, last + 1, "one code above the last")
        XCTAssertEqual(release.rolling, press.rolling, "press and release share their code")
        XCTAssertEqual(release.accepted, true)
        XCTAssertGreaterThan(release.t - press.t, 0.13, "the release comes about 150 ms after the press")
        XCTAssertLessThan(release.t - press.t, 0.5)
        // The fake moves its door and says so; garaged logs each STATUS.
        _ = waitUntil("opening, then open", timeout: .seconds(5)) {
            daemon.log.contains("opener-status door=1 state=opening") && daemon.log.contains("opener-status door=1 state=open ")
        }
        XCTAssertTrue(daemon.log.contains("press reason=open action=open"), daemon.log)
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// The rolling codes go up across restarts, never reusing one (a block is reserved on disk first).
    func testARestartNeverReusesARollingCode() throws {
        try initTable()
        try startOpener()
        var seen: [UInt32] = []
        for run in 1...3 {
            let daemon = try startWithOpener()
            _ = waitUntil("run \(run)'s questions", timeout: .seconds(5)) { received().count >= 2 * run }
            XCTAssertEqual(daemon.stop(), .exited(0))
            seen = received().compactMap(\.rolling)
        }
        XCTAssertEqual(seen.count, 6, "two questions a run, answered at once: \(seen)")
        XCTAssertEqual(seen, seen.sorted(), "codes only go up: \(seen)")
        XCTAssertEqual(Set(seen).count, seen.count, "no code twice: \(seen)")
        XCTAssertTrue(received().allSatisfy { $0.accepted == true }, "the opener accepted every code")
        XCTAssertEqual(Set(received().compactMap(\.client)).count, 1, "one client id, kept")
        XCTAssertTrue(readText(pinsPath + ".opener").contains("reserved-below "), "kept beside the table")
    }

    func testARelayBesideAnOpenerIsRefusedNamingBoth() throws {
        try initTable()
        let process = try spawn(try Binaries.path(of: "garaged"),
                                ["--pins", pinsPath, "--socket", socketPath, "--no-ble", "--relay", "sim:\(tracePath)",
                                 "--opener", "secplus2:\(openerLink)"], name: "garaged-both")
        XCTAssertEqual(process.waitForExit(timeout: .seconds(5)), .exited(1))
        XCTAssertTrue(process.stderr.contains("--relay sim:\(tracePath) and --opener secplus2:\(openerLink)"), process.stderr)
    }
}

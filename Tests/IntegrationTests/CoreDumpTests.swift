import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Core dumps (issue 29): garaged holds the PIN table, the MQTT password and HomeKit's seed in
/// memory, and garage-pins the master PIN, so neither may leave a core dump behind. Each runs
/// with its real and effective group 65534 (root's uid otherwise): the kernel gives a process's
/// /proc files its own uid and gid while it is dumpable, root's once it is not, so the group of
/// /proc/PID/status says which it is.
final class CoreDumpTests: GaragedTestCase {
    /// The group /proc/PID/status belongs to: the process's own while it is dumpable, 0 once not.
    private func statusGroup(_ pid: pid_t) -> gid_t? {
        var st = stat()
        return stat("/proc/\(pid)/status", &st) == 0 ? st.st_gid : nil
    }

    /// The soft and hard core-size limits of a process, as /proc/PID/limits shows them.
    private func coreLimits(_ pid: pid_t) -> [String] {
        let line = readText("/proc/\(pid)/limits").split(separator: "\n").first { $0.hasPrefix("Max core file size") }
        return line.map { $0.dropFirst("Max core file size".count).split(separator: " ").prefix(2).map(String.init) } ?? []
    }

    /// `arguments` run under setpriv with group 65534 (no other groups), registered for tearDown.
    private func spawnAsGroupNobody(_ tool: String, _ arguments: [String], environment: [String: String] = [:],
                                    name: String) throws -> ChildProcess {
        try XCTSkipUnless(getuid() == 0, "needs root: setpriv must change the group")
        let setpriv = try Binaries.system("setpriv", package: "util-linux")
        return try spawn(setpriv, ["--regid=65534", "--clear-groups", try Binaries.path(of: tool)] + arguments,
                         environment: environment, name: name)
    }

    /// The daemon is not dumpable and its core size limit is 0 as soon as it serves; it used to
    /// be dumpable, so a crash could write every PIN to disk.
    func testTheDaemonIsNotDumpable() throws {
        try initTable()
        let process = try spawnAsGroupNobody("garaged", ["--pins", pinsPath, "--socket", socketPath, "--relay", "sim:\(tracePath)",
                                                         "--no-ble"], name: "garaged-nobody")
        let daemon = GaragedDaemon(process: process, pinsPath: pinsPath, socketPath: socketPath, tracePath: tracePath)
        try waitForSocket(daemon)
        XCTAssertEqual(statusGroup(daemon.pid), 0, "/proc/\(daemon.pid)/status belongs to root: garaged is not dumpable")
        XCTAssertEqual(coreLimits(daemon.pid), ["0", "0"], readText("/proc/\(daemon.pid)/limits"))
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// garage-pins (here following the status, so it stays up to be looked at) is not dumpable
    /// either: it holds the master PIN, and `export` prints the whole table.
    func testGaragePinsIsNotDumpable() throws {
        try initTable()
        let daemon = try startDaemon()
        let follower = try spawnAsGroupNobody("garage-pins", ["status", "--follow", "--socket", daemon.socketPath],
                                              environment: ["GARAGE_PIN": GaragedTestCase.master], name: "follower-nobody")
        waitUntil("the follower's first status line", timeout: .seconds(5)) { follower.stdout.contains("door CLOSED") }
        XCTAssertEqual(statusGroup(follower.pid), 0, "/proc/\(follower.pid)/status belongs to root: garage-pins is not dumpable")
        XCTAssertEqual(coreLimits(follower.pid), ["0", "0"], readText("/proc/\(follower.pid)/limits"))
    }

    /// The packaged unit forbids core dumps as well (LimitCORE=0), in its [Service] section.
    func testTheUnitForbidsCoreDumps() throws {
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let unit = readText("\(repo)/packaging/garaged.service")
        var section = "", found = false
        for line in unit.split(separator: "\n") {
            if line.hasPrefix("[") { section = String(line) }
            if section == "[Service]", line == "LimitCORE=0" { found = true }
        }
        XCTAssertTrue(found, "packaging/garaged.service's [Service] has no LimitCORE=0")
    }
}

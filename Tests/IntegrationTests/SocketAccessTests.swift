import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Who may reach the local socket: root, the daemon's user, and the members of its group
/// (`--socket-group`, default `garage` when that group exists). The socket is 0660; anyone
/// else is told it is a permission, not a stopped daemon.
final class SocketAccessTests: GaragedTestCase {
    /// garage-pins as uid 65534 with `groups` as its supplementary groups (none when empty).
    private func nobody(_ args: [String], groups: [gid_t]) throws -> CommandResult {
        let setpriv = try Binaries.system("setpriv", package: "util-linux")
        let groupFlag = groups.isEmpty ? "--clear-groups" : "--groups=" + groups.map(String.init).joined(separator: ",")
        let child = try spawn(setpriv, ["--reuid=65534", "--regid=65534", groupFlag, try Binaries.path(of: "garage-pins")] + args,
                              environment: ["GARAGE_PIN": "12345"], name: "nobody-\(args.first ?? "")-\(groups.count)")
        guard let end = child.waitForExit(timeout: .seconds(15)) else { throw HarnessError("garage-pins did not finish") }
        return CommandResult(termination: end, stdout: child.stdout, stderr: child.stderr)
    }

    func testTheSocketGroupMayUseItAndOthersAreToldWhyNot() throws {
        try XCTSkipUnless(getuid() == 0, "needs root to give the socket to a group and run as uid 65534")
        guard let group = getgrnam("daemon") else { throw XCTSkip("no group 'daemon' here") }
        let gid = group.pointee.gr_gid
        XCTAssertEqual(chmod(dir, 0o755), 0)
        try initTable()
        let daemon = try startDaemon(["--socket-group", "daemon"])
        // The socket is given to the group after it listens: the start line comes after that.
        waitUntil("the start line naming the group", timeout: .seconds(3)) { daemon.log.contains("(group daemon)") }
        var st = stat()
        XCTAssertEqual(stat(daemon.socketPath, &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o660)
        XCTAssertEqual(st.st_gid, gid, "the socket belongs to the group")

        let member = try nobody(["status", "--socket", daemon.socketPath], groups: [gid])
        XCTAssertEqual(member.termination, .exited(0), member.stderr)
        XCTAssertEqual(doorState(member.stdout), "CLOSED")

        let outsider = try nobody(["status", "--socket", daemon.socketPath], groups: [])
        XCTAssertEqual(outsider.termination, .exited(3))
        XCTAssertTrue(outsider.stderr.contains("permission denied"), outsider.stderr)
        XCTAssertTrue(outsider.stderr.contains("members of the group 'daemon'"), outsider.stderr)
        XCTAssertTrue(outsider.stderr.contains("usermod -aG daemon"), outsider.stderr)
        XCTAssertFalse(outsider.stderr.contains("Is it running"), "a permission is not a stopped daemon: \(outsider.stderr)")
    }

    /// Issue 39: without a group `garage`, garaged leaves the socket to root's own group, and
    /// garage-pins used to tell the user to join root's group. It now says what doctor says:
    /// make the group, restart garaged, join it.
    func testWithoutTheGarageGroupTheAdviceIsToMakeItNotToJoinRoot() throws {
        try XCTSkipUnless(getuid() == 0, "needs root to run garage-pins as uid 65534")
        try XCTSkipIf(getgrnam("garage") != nil, "this machine has a group garage, which the socket would get")
        XCTAssertEqual(chmod(dir, 0o755), 0)
        try initTable()
        let daemon = try startDaemon()
        let outsider = try nobody(["status", "--socket", daemon.socketPath], groups: [])
        XCTAssertEqual(outsider.termination, .exited(3))
        XCTAssertFalse(outsider.stderr.contains("usermod -aG root"), outsider.stderr)
        XCTAssertTrue(outsider.stderr.contains("permission denied; the socket belongs to root's own group 'root' because garaged found no group 'garage' when it started: sudo groupadd --system garage, then sudo systemctl restart garaged (it gives the socket to the group garage when it starts), then sudo usermod -aG garage $USER and log in again (or use sudo)"), outsider.stderr)
        let doctor = try doctor([])
        XCTAssertTrue(doctor.stdout.contains("warn  socket: no group garage: only root and garaged's own user can use garage-pins; sudo groupadd --system garage, then sudo systemctl restart garaged (it gives the socket to the group garage when it starts), then sudo usermod -aG garage USER and log in again\n"), doctor.stdout)
    }

    func testAnUnknownGroupStopsTheStartNamingIt() throws {
        try initTable()
        let daemon = try launchDaemon(["--socket-group", "no-such-group-here"])
        XCTAssertEqual(daemon.process.waitForExit(timeout: .seconds(5)), .exited(1))
        XCTAssertTrue(daemon.log.contains("--socket-group no-such-group-here: no such group"), daemon.log)
        XCTAssertTrue(daemon.log.contains("groupadd"), daemon.log)
    }

    func testNothingListeningStillSaysIsItRunning() throws {
        let r = try garagePins(["status", "--socket", dir + "/nothing-here", "--pin", "12345"])
        XCTAssertEqual(r.termination, .exited(3))
        XCTAssertTrue(r.stderr.contains("Is it running"), r.stderr)
    }
}

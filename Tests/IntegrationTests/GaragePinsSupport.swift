import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The door state from `garage-pins status`'s human table (the `door` row: `door  CLOSED
/// (believed: no sensors)`), nil if absent.
func doorState(_ stdout: String) -> String? {
    for line in stdout.split(separator: "\n") where line.hasPrefix("door ") {
        let words = line.split(separator: " ")
        return words.count > 1 ? String(words[1]) : nil
    }
    return nil
}

/// The `ERR …` record garage-pins quotes at the end of a refusal (`… (ERR LOCKED 1)`).
func quotedRecord(_ stderr: String) -> String? {
    guard let open = stderr.range(of: "(ERR"), let close = stderr[open.upperBound...].firstIndex(of: ")") else { return nil }
    return String(stderr[stderr.index(after: open.lowerBound)..<close])
}

/// Parses one JSON document garage-pins printed (--json), failing the test when it is not JSON.
func json(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> Any? {
    do { return try JSONSerialization.jsonObject(with: Data(text.utf8)) } catch {
        XCTFail("not JSON (\(error)): \(text)", file: file, line: line)
        return nil
    }
}

extension GaragedTestCase {
    /// garage-pins against `daemon` with the master PIN from GARAGE_PIN.
    func pins(_ daemon: GaragedDaemon, _ args: [String], pin: String = GaragedTestCase.master,
              asNobody: Bool = false) throws -> CommandResult {
        try garagePins(args + ["--socket", daemon.socketPath], environment: ["GARAGE_PIN": pin], asNobody: asNobody)
    }

    /// Asserts a finished run's exit status, printing its stderr when it differs.
    func assertExit(_ result: CommandResult, _ code: Int32, _ context: String = "",
                    file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(result.termination, .exited(code), "\(context) stdout: \(result.stdout) stderr: \(result.stderr)",
                       file: file, line: line)
    }

    /// Starts the daemon (on a table made already) where uid 65534 can reach its socket: a
    /// real unprivileged client, which the daemon throttles. Skips the test without root.
    func startDaemonOpenToNobody(_ extra: [String] = []) throws -> GaragedDaemon {
        try XCTSkipUnless(getuid() == 0, "needs root: setpriv must switch to uid 65534, and a non-root test runner's own uid is exempt anyway")
        // mkdtemp made the folder 0700: nobody could not even reach the socket inside it.
        XCTAssertEqual(chmod(dir, 0o755), 0)
        let daemon = try startDaemon(extra)
        XCTAssertEqual(permissions(daemon.socketPath), 0o660, "the daemon creates its socket 0660")
        XCTAssertEqual(chmod(daemon.socketPath, 0o666), 0)
        return daemon
    }

    /// A garage-pins that keeps running (status --follow, log --follow), its stdout in a file.
    func startFollower(_ daemon: GaragedDaemon, _ args: [String], name: String) throws -> ChildProcess {
        try spawn(try Binaries.path(of: "garage-pins"), args + ["--socket", daemon.socketPath],
                  environment: ["GARAGE_PIN": GaragedTestCase.master], name: name)
    }
}

/// Text with every run of spaces made one, to check aligned tables without their padding.
func squeezed(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false)
        .map { $0.split(separator: " ").joined(separator: " ") }.joined(separator: "\n")
}

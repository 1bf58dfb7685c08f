import Foundation
import XCTest

/// The PIN prompt: asked on a terminal only, never echoed. A real pseudo-terminal is made by
/// python3's pty module, which runs garage-pins on it, types the PIN when asked, and prints
/// everything the terminal showed.
final class GaragePinsPromptTests: GaragedTestCase {
    private let driver = """
        import os, pty, sys, select
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(sys.argv[1], sys.argv[1:])
        seen, typed = b"", False
        while True:
            r, _, _ = select.select([fd], [], [], 10)
            if not r:
                os.kill(pid, 9)
                sys.stderr.write("garage-pins showed nothing more for 10 s\\n")
                break
            try:
                data = os.read(fd, 1024)
            except OSError:
                break
            if not data:
                break
            seen += data
            if not typed and b"PIN: " in seen:
                os.write(fd, b"12345\\n")
                typed = True
        _, status = os.waitpid(pid, 0)
        sys.stdout.write(seen.decode("utf-8", "replace"))
        sys.exit(os.waitstatus_to_exitcode(status))
        """

    func testOnATerminalThePINIsAskedForAndNotEchoed() throws {
        try initTable()
        let daemon = try startDaemon()
        let script = dir + "/terminal-driver.py"
        try write(Array(driver.utf8), to: script)
        let python = try Binaries.system("python3", package: "python3")
        let run = try spawn(python, [script, try Binaries.path(of: "garage-pins"), "status", "--socket", daemon.socketPath],
                            name: "pty")
        XCTAssertEqual(run.waitForExit(timeout: .seconds(15)), .exited(0), run.stdout + run.stderr)
        XCTAssertTrue(run.stdout.contains("PIN: "), run.stdout)
        XCTAssertFalse(run.stdout.contains("12345"), "the PIN was echoed: \(run.stdout)")
        XCTAssertEqual(doorState(run.stdout.replacingOccurrences(of: "\r", with: "")), "CLOSED", run.stdout)
    }
}

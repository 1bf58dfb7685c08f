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

    /// Ctrl-C at the prompt used to leave the terminal without echo (the owner's shell then
    /// showed nothing typed). The prompt now puts echo back before the process dies of SIGINT.
    func testCtrlCAtThePromptLeavesEchoOn() throws {
        let interrupt = """
            import os, pty, sys, select, termios
            pid, fd = pty.fork()
            if pid == 0:
                os.execv(sys.argv[1], sys.argv[1:])
            seen = b""
            while b"PIN: " not in seen:
                r, _, _ = select.select([fd], [], [], 10)
                if not r:
                    os.kill(pid, 9)
                    sys.exit("no PIN prompt within 10 s")
                seen += os.read(fd, 1024)
            echo_at_prompt = termios.tcgetattr(fd)[3] & termios.ECHO
            os.write(fd, b"\\x03")
            _, status = os.waitpid(pid, 0)
            echo_after = termios.tcgetattr(fd)[3] & termios.ECHO
            print("status", os.waitstatus_to_exitcode(status), "echo at prompt", int(bool(echo_at_prompt)), "echo after", int(bool(echo_after)))
            """
        let script = dir + "/interrupt-driver.py"
        try write(Array(interrupt.utf8), to: script)
        let python = try Binaries.system("python3", package: "python3")
        let run = try spawn(python, [script, try Binaries.path(of: "garage-pins"), "status", "--socket", dir + "/no-daemon"],
                            name: "pty-interrupt")
        XCTAssertEqual(run.waitForExit(timeout: .seconds(15)), .exited(0), run.stdout + run.stderr)
        XCTAssertEqual(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines),
                       "status -2 echo at prompt 0 echo after 1", "killed by SIGINT, and echo back on")
    }
}

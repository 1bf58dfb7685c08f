import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The files the daemon keeps: never through a symbolic link, never anything but a regular
/// file, no PIN-holding temporaries left behind, and a failed save says why.
final class FileSafetyTests: GaragedTestCase {
    /// Starting must fail with exit 1 and `expect` in the message, leaving the file as it was.
    private func assertRefused(_ extra: [String] = [], pins: String? = nil, naming expect: [String],
                               file: StaticString = #filePath, line: UInt = #line) throws {
        let daemon = try launchDaemon(extra, pins: pins)
        XCTAssertEqual(daemon.process.waitForExit(timeout: .seconds(5)), .exited(1), daemon.log, file: file, line: line)
        for e in expect { XCTAssertTrue(daemon.log.contains(e), "should name '\(e)': \(daemon.log)", file: file, line: line) }
    }

    /// A symlinked table used to be replaced by a regular file on the first save, so its target
    /// never got the new PIN. garaged refuses links for its files, naming the file to use.
    func testASymlinkedTableIsRefusedNamingTheRealFile() throws {
        try initTable(path: dir + "/real-table")
        XCTAssertEqual(symlink(dir + "/real-table", pinsPath), 0)
        try assertRefused(naming: ["\(pinsPath) is a symbolic link", "name the file itself (\(dir)/real-table)"])
        let check = try garagePins(["check", pinsPath])
        XCTAssertEqual(check.termination, .exited(1), check.stdout)
        XCTAssertTrue(check.stderr.contains("symbolic link"), check.stderr)
    }

    /// The lock, the event history and the relay trace followed links too.
    func testLinksBesideTheTableAreRefused() throws {
        try initTable()
        let target = dir + "/elsewhere"
        try write(Array("precious\n".utf8), to: target)
        unlink(pinsPath + ".lock")  // init made it; the link takes its place
        XCTAssertEqual(symlink(target, pinsPath + ".lock"), 0)
        try assertRefused(naming: ["\(pinsPath).lock is a symbolic link"])
        unlink(pinsPath + ".lock")
        XCTAssertEqual(symlink(target, tracePath), 0)
        try assertRefused(naming: ["trace file \(tracePath)", "symbolic link"])
        unlink(tracePath)
        unlink(pinsPath + ".events")
        XCTAssertEqual(symlink(target, pinsPath + ".events"), 0)
        try assertRefused(naming: ["--events: \(pinsPath).events is a symbolic link"])
        XCTAssertEqual(readText(target), "precious\n", "nothing was written through a link")
    }

    /// W10: a FIFO given as the history passed the doctor, and then no history was written.
    /// It stops garaged at start now, and the doctor fails it, naming the file.
    func testAFIFOAsTheHistoryIsRefusedAtStartAndByTheDoctor() throws {
        try initTable()
        let fifo = dir + "/events.fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        try assertRefused(["--events", fifo], naming: ["--events: \(fifo) is a FIFO, not a regular file"])
        let r = try doctor(["--events", fifo])
        XCTAssertEqual(r.termination, .exited(1))
        XCTAssertTrue(r.stdout.split(separator: "\n").contains { $0.hasPrefix("FAIL") && $0.contains(" events: \(fifo) is a FIFO") },
                      r.stdout)
    }

    /// A FIFO given as the table blocked start-up forever (with SIGTERM blocked), and
    /// `garage-pins check` hung. Both refuse it at once now.
    func testAFIFOAsTheTableIsRefusedNotWaitedOn() throws {
        XCTAssertEqual(mkfifo(pinsPath, 0o600), 0)
        try assertRefused(naming: ["\(pinsPath) is a FIFO, not a regular file"])
        let check = try garagePins(["check", pinsPath], timeout: .seconds(5))
        XCTAssertEqual(check.termination, .exited(1))
        XCTAssertTrue(check.stderr.contains("FIFO"), check.stderr)
    }

    /// Temporary files of saves killed mid-way hold a whole table; they piled up beside it.
    /// The daemon removes them at start (it holds the lock, so no save is under way).
    func testStaleTemporariesAreRemovedAtStart() throws {
        try initTable()
        let stale = [pinsPath + ".tmp.Ab12Cd", pinsPath + ".labels.tmp.Zz99zz"]
        for path in stale { try write(Array(repeating: 0xFF, count: 1024), to: path) }
        let keep = pinsPath + ".tmp.notours"  // not a mkstemp name: left alone
        try write(Array("x".utf8), to: keep)
        let daemon = try startDaemon()
        for path in stale { XCTAssertFalse(fileExists(path), "\(path) should be gone") }
        XCTAssertTrue(fileExists(keep))
        waitUntil("the removal in the log", timeout: .seconds(3)) { daemon.log.contains("stale-temporary-removed") }
    }

    /// W5 (issue 29): a `<table>.homekit` others could read (the setup code and the accessory's
    /// seed) passed the doctor and started without a word. Now, like the other secrets, it is a
    /// doctor FAIL and a warning at start, each saying how to fix it.
    func testAHomeKitFileOthersCanReadFailsTheDoctorAndWarnsAtStart() throws {
        try initTable()
        let homekit = ["--homekit", "--homekit-port", "0", "--homekit-bind", "127.0.0.1"]
        let first = try startDaemon(homekit)
        XCTAssertEqual(first.stop(), .exited(0))
        let file = pinsPath + ".homekit"
        XCTAssertEqual(permissions(file), 0o600, "garaged writes it for its owner only")
        XCTAssertEqual(chmod(file, 0o644), 0)
        let r = try doctor(homekit)
        XCTAssertEqual(r.termination, .exited(1), r.stdout)
        XCTAssertTrue(r.stdout.split(separator: "\n").contains {
            $0.hasPrefix("FAIL") && $0.contains(" secrets: ") && $0.contains("\(file) has mode 644") && $0.hasSuffix("sudo chmod 600 \(file)")
        }, r.stdout)
        let daemon = try startDaemon(homekit)
        waitUntil("the warning at start", timeout: .seconds(5)) {
            daemon.log.split(separator: "\n").contains { $0.contains("secret-readable") && $0.contains("sudo chmod 600 \(file)") }
        }
    }

    /// `ERR STORE` used to be logged without its cause. A file-size limit below the table's
    /// size (1024 bytes) makes every save fail (EFBIG, now that SIGXFSZ is ignored) without
    /// root bypassing it; the log, a file too, stays under it (no auto-close, no warnings).
    func testAFailedSaveIsLoggedWithItsCause() throws {
        try initTable()
        let prlimit = try Binaries.system("prlimit", package: "util-linux")
        let process = try spawn(prlimit, ["--fsize=1000", "--", try Binaries.path(of: "garaged"), "--pins", pinsPath,
                                          "--socket", socketPath, "--relay", "sim:\(tracePath)", "--no-ble", "--auto-close-s", "0"], name: "garaged-fsize")
        let daemon = GaragedDaemon(process: process, pinsPath: pinsPath, socketPath: socketPath, tracePath: tracePath)
        try waitForSocket(daemon)
        let table = readBytes(pinsPath)
        XCTAssertEqual(try daemon.ask("12345Aabcde"), "ERR STORE")
        XCTAssertEqual(readBytes(pinsPath), table, "nothing changed")
        waitUntil("the cause in the log", timeout: .seconds(3)) {
            daemon.log.contains("result=\"ERR STORE\"") && daemon.log.contains("File too large")
        }
        XCTAssertNil(daemon.process.poll(), "still running")
    }
}

import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

// The harness the integration tests share (the files in this folder): real processes
// (posix_spawn, waitpid), real Unix sockets (a raw client), real files (the table, the relay
// trace, the daemon's log). Nothing here sleeps in the hope that something has happened: every
// wait is `waitUntil` on a condition with a deadline, and a missed deadline is a test failure
// that says what was awaited.

/// Each test gets a fresh folder under /tmp (short, so socket paths fit in sun_path; unique, so
/// tests can run in parallel), and every process it starts is ended in tearDown (SIGTERM, then
/// SIGKILL), the folder removed. On a failure the daemons' logs are printed for diagnosis.
class GaragedTestCase: XCTestCase {
    static let master = "12345"

    private(set) var dir = ""
    private var children: [ChildProcess] = []
    private var daemonCount = 0
    /// Every trace file a daemon of this test wrote, and the presses already printed from them.
    private var tracePaths: [String] = []
    private var reportedPresses = Set<UInt64>()

    var pinsPath: String { dir + "/pins" }
    var socketPath: String { dir + "/sock" }
    var tracePath: String { dir + "/trace" }

    override func setUpWithError() throws {
        try super.setUpWithError()
        var template = Array("/tmp/garaged-it.XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw HarnessError("mkdtemp: \(String(cString: strerror(errno)))")
        }
        dir = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        _ = try Binaries.path(of: "garaged")
        _ = try Binaries.path(of: "garage-pins")
    }

    override func tearDown() {
        let failed = (testRun?.failureCount ?? 0) + (testRun?.unexpectedExceptionCount ?? 0) > 0
        for child in children {
            let end = child.terminate()
            if failed {
                print("--- \(child.executable.split(separator: "/").last ?? "") pid \(child.pid) (\(end)) stderr:\n\(child.stderr)")
            }
        }
        children.removeAll()
        // Every press the test caused is printed, asserted on or not, so the CI log holds the
        // width of each one the suite made.
        for path in Set(tracePaths + [tracePath]).sorted() {
            let unreported = presses(in: (try? readTrace(path)) ?? []).filter { !reportedPresses.contains($0.start) }
            reportWidths(unreported, "\(name), \((path as NSString).lastPathComponent), width not asserted")
        }
        if !dir.isEmpty { try? FileManager.default.removeItem(atPath: dir) }
        super.tearDown()
    }

    /// Starts any child and registers it for tearDown.
    func spawn(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
               name: String, stderrFD: Int32? = nil) throws -> ChildProcess {
        let child = try ChildProcess(executable: executable, arguments: arguments,
                                     environment: ChildProcess.cleanEnvironment(environment),
                                     stdoutPath: "\(dir)/\(name).out", stderrPath: "\(dir)/\(name).err",
                                     stderrFD: stderrFD)
        children.append(child)
        return child
    }

    /// Creates the table with `garage-pins init` (the product's own way), so tests start from
    /// what an owner would have.
    func initTable(master: String = GaragedTestCase.master, slots: Int? = nil, path: String? = nil) throws {
        var args = ["init", "--pins", path ?? pinsPath, "--master", master]
        if let slots { args += ["--slots", String(slots)] }
        let result = try garagePins(args)
        guard result.termination == .exited(0) else {
            throw HarnessError("garage-pins init failed (\(result.termination)): \(result.stderr)")
        }
    }

    /// Launches garaged with the test's files and `extra` flags, without waiting for it: for
    /// tests that expect it to refuse to start.
    func launchDaemon(_ extra: [String] = [], pins: String? = nil, socket: String? = nil,
                      trace: String? = nil, stderrFD: Int32? = nil,
                      environment: [String: String] = [:]) throws -> GaragedDaemon {
        let pins = pins ?? pinsPath, socket = socket ?? socketPath, trace = trace ?? tracePath
        daemonCount += 1
        tracePaths.append(trace)
        let process = try spawn(try Binaries.path(of: "garaged"),
                                ["--pins", pins, "--socket", socket, "--relay", "sim:\(trace)", "--no-ble"] + extra,
                                environment: environment, name: "garaged\(daemonCount)", stderrFD: stderrFD)
        return GaragedDaemon(process: process, pinsPath: pins, socketPath: socket, tracePath: trace)
    }

    /// Launches garaged and waits until its socket accepts a connection (the daemon writes the
    /// trace's start line before it listens, so the trace is ready too). If the daemon exits
    /// instead, the test fails at once with its log rather than at a timeout.
    func startDaemon(_ extra: [String] = [], pins: String? = nil, socket: String? = nil,
                     trace: String? = nil, stderrFD: Int32? = nil,
                     file: StaticString = #filePath, line: UInt = #line) throws -> GaragedDaemon {
        let daemon = try launchDaemon(extra, pins: pins, socket: socket, trace: trace, stderrFD: stderrFD)
        try waitForSocket(daemon, file: file, line: line)
        return daemon
    }

    /// Polls until a connection to the daemon's socket succeeds.
    func waitForSocket(_ daemon: GaragedDaemon, file: StaticString = #filePath, line: UInt = #line) throws {
        var exited: Termination?
        let ready = eventually(within: .seconds(10)) {
            if let t = daemon.process.poll() { exited = t; return true }
            return (try? SocketClient(path: daemon.socketPath)) != nil
        }
        if let exited {
            throw HarnessError("garaged exited (\(exited)) instead of listening on \(daemon.socketPath); its log:\n\(daemon.log)")
        }
        guard ready else {
            throw HarnessError("garaged did not accept connections on \(daemon.socketPath) within 10 s; its log:\n\(daemon.log)")
        }
    }

    /// What a finished garage-pins run printed and how it ended.
    struct CommandResult {
        var termination: Termination
        var stdout: String
        var stderr: String
    }

    private var commandCount = 0

    /// Runs `command` until `locked` holds of its result (at most `tries` more times), with one
    /// more wrong PIN (`relock`) before each retry: a first lockout lasts 1 s, which a slow
    /// machine may outlast between the wrong PINs and the command that checks it.
    func whileLocked(_ command: () throws -> CommandResult, relock: () throws -> Void,
                     until locked: (CommandResult) -> Bool, tries: Int = 3) rethrows -> CommandResult {
        var result = try command()
        var retries = 0
        while retries < tries, !locked(result) {
            retries += 1
            try relock()
            result = try command()
        }
        return result
    }

    /// Runs garage-pins to completion (killed after `timeout`), as root or, with `asNobody`, as
    /// uid/gid 65534 through setpriv: a real unprivileged client the daemon must throttle.
    func garagePins(_ arguments: [String], environment: [String: String] = [:], asNobody: Bool = false,
                    timeout: Duration = .seconds(15)) throws -> CommandResult {
        let tool = try Binaries.path(of: "garage-pins")
        commandCount += 1
        let child: ChildProcess
        if asNobody {
            let setpriv = try Binaries.system("setpriv", package: "util-linux")
            child = try spawn(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", tool] + arguments,
                              environment: environment, name: "garage-pins\(commandCount)")
        } else {
            child = try spawn(tool, arguments, environment: environment, name: "garage-pins\(commandCount)")
        }
        guard let end = child.waitForExit(timeout: timeout) else {
            child.terminate(grace: .milliseconds(100))
            throw HarnessError("garage-pins \(arguments.joined(separator: " ")) did not finish within \(timeout)")
        }
        return CommandResult(termination: end, stdout: child.stdout, stderr: child.stderr)
    }

    /// Runs `garaged doctor` with the test's files and `extra` settings.
    func doctor(_ extra: [String], pins: String? = nil, socket: String? = nil, relay: String? = nil) throws -> CommandResult {
        let child = try spawn(try Binaries.path(of: "garaged"),
                              ["doctor", "--pins", pins ?? pinsPath, "--socket", socket ?? socketPath,
                               "--relay", relay ?? "sim:\(tracePath)", "--no-ble"] + extra, name: "doctor")
        guard let end = child.waitForExit(timeout: .seconds(15)) else { throw HarnessError("garaged doctor did not finish within 15 s") }
        return CommandResult(termination: end, stdout: child.stdout, stderr: child.stderr)
    }

    /// Waits until the trace holds `count` entries (the daemon's relay thread writes them).
    @discardableResult
    func waitForTrace(_ daemon: GaragedDaemon, count: Int, timeout: Duration = .seconds(5),
                      file: StaticString = #filePath, line: UInt = #line) throws -> [TraceEntry] {
        var trace: [TraceEntry] = []
        waitUntil("trace \(daemon.tracePath) to hold \(count) entries", timeout: timeout, file: file, line: line) {
            trace = (try? daemon.trace()) ?? []
            return trace.count >= count
        }
        return trace
    }

    /// Asks `S` until the answer satisfies `match`; returns the last answer.
    @discardableResult
    func waitForStatus(_ daemon: GaragedDaemon, _ what: String, timeout: Duration = .seconds(5),
                       file: StaticString = #filePath, line: UInt = #line,
                       _ match: (String) -> Bool) throws -> String {
        var last = ""
        try waitUntil("status \(what) (last answer: '\(last)')", timeout: timeout, file: file, line: line) {
            last = try daemon.ask("\(GaragedTestCase.master)S")
            return match(last)
        }
        return last
    }

    /// Writes a file (config files, corrupt tables).
    func write(_ bytes: [UInt8], to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            throw HarnessError("cannot write \(path)")
        }
    }

    /// Prints each press width in the form CI logs are searched for (the product's acceptance
    /// figure), with what the press was; tearDown prints the ones no test reported.
    func reportWidths(_ list: [Press], _ context: String) {
        for p in list {
            reportedPresses.insert(p.start)
            print("pulse width ms: \(String(format: "%.3f", p.widthMs)) (\(context))")
        }
    }

    /// Asserts a press width within `tolerance` ms of `expected`, printing it for the CI log.
    func assertWidth(_ press: Press, _ expectedMs: Double, tolerance: Double = 2, _ context: String,
                     file: StaticString = #filePath, line: UInt = #line) {
        reportWidths([press], context)
        XCTAssertEqual(press.widthMs, expectedMs, accuracy: tolerance,
                       "press width \(press.widthMs) ms, expected \(expectedMs) ± \(tolerance) ms (\(context))",
                       file: file, line: line)
    }
}

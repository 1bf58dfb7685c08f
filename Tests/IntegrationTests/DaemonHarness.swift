import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

// The harness the integration tests share: real processes (posix_spawn, waitpid), real Unix
// sockets (a raw client), real files (the table, the relay trace, the daemon's log). Nothing
// here sleeps in the hope that something has happened: every wait is `waitUntil` on a condition
// with a deadline, and a missed deadline is a test failure that says what was awaited.

// MARK: - Errors and time

/// A failure of the harness itself (a binary missing, a socket that cannot connect, a reply that
/// does not come), as an Error so a test can `try` it and XCTest reports the message.
struct HarnessError: Error, CustomStringConvertible {
    var description: String
    /// The errno behind a failed system call, when there was one.
    var errno: Int32?
    init(_ description: String, errno: Int32? = nil) {
        self.description = description
        self.errno = errno
    }
}

/// CLOCK_MONOTONIC in nanoseconds: the clock the simulated relay stamps its trace with, so a test
/// can compare its own instants with the trace's. (Swift's ContinuousClock is CLOCK_BOOTTIME.)
func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

extension Duration {
    /// Whole nanoseconds, for deadlines on CLOCK_MONOTONIC.
    var totalNanoseconds: UInt64 {
        let c = components
        return UInt64(max(0, c.seconds)) * 1_000_000_000 + UInt64(max(0, c.attoseconds) / 1_000_000_000)
    }
}

/// Polls `condition` every millisecond until it holds or `timeout` passes; true if it held.
/// This is the only way the tests wait: a short poll interval keeps them fast, the deadline keeps
/// a broken daemon from hanging the suite. Use `waitUntil` when the condition must hold.
func eventually(within timeout: Duration, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = monotonicNanoseconds() + timeout.totalNanoseconds
    while true {
        if try condition() { return true }
        if monotonicNanoseconds() >= deadline { return false }
        usleep(1000)
    }
}

/// `eventually`, but a missed deadline fails the test with what was awaited, so a failure reads
/// "timed out after 3 s waiting for: S OPEN" rather than a bare assertion at some later line.
@discardableResult
func waitUntil(_ what: @autoclosure () -> String, timeout: Duration,
               file: StaticString = #filePath, line: UInt = #line,
               _ condition: () throws -> Bool) rethrows -> Bool {
    let start = monotonicNanoseconds()
    if try eventually(within: timeout, condition) { return true }
    let waited = Double(monotonicNanoseconds() - start) / 1e9
    XCTFail("timed out after \(String(format: "%.2f", waited)) s waiting for: \(what())", file: file, line: line)
    return false
}

// MARK: - Finding the binaries

/// Where `garaged` and `garage-pins` are: SwiftPM puts every product of a build, the test bundle
/// included, in one products folder, so the tests look next to themselves instead of assuming a
/// path (debug or release, any triple). GARAGED_BIN_DIR overrides, for running against an
/// installed build.
enum Binaries {
    /// A marker class whose bundle is the test bundle.
    private final class Marker {}

    static let searched: [String] = {
        var dirs: [String] = []
        if let env = ProcessInfo.processInfo.environment["GARAGED_BIN_DIR"], !env.isEmpty { dirs.append(env) }
        // On Linux the test bundle is an executable (…/debug/garagedPackageTests.xctest) and
        // Bundle(for:) is that file's folder; on Darwin it is the .xctest folder itself.
        let bundle = Bundle(for: Marker.self).bundleURL
        dirs.append(bundle.path)
        dirs.append(bundle.deletingLastPathComponent().path)
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            dirs.append(URL(fileURLWithPath: exe).deletingLastPathComponent().path)
        }
        var seen = Set<String>()
        return dirs.filter { seen.insert($0).inserted }
    }()

    /// The full path of a product, or an error that says where it looked and what to do.
    static func path(of name: String) throws -> String {
        for dir in searched {
            let candidate = (dir as NSString).appendingPathComponent(name)
            var st = stat()
            if stat(candidate, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        throw HarnessError("""
            the \(name) binary was not found next to the test bundle (looked in: \
            \(searched.joined(separator: ", "))). Build it first (`swift build`, or \
            `swift build --build-tests`; `swift test` without --skip-build does it), or set \
            GARAGED_BIN_DIR to the folder that holds it.
            """)
    }

    /// An executable from PATH (setpriv), or an error naming the package that provides it.
    static func system(_ name: String, package: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/sbin:/usr/bin:/sbin:/bin"
        for dir in path.split(separator: ":") + ["/usr/bin", "/bin"] {
            let candidate = "\(dir)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        throw HarnessError("\(name) is not installed (apt-get install \(package)); the test needs it")
    }
}

// MARK: - Processes

/// How a child process ended.
enum Termination: Equatable, CustomStringConvertible {
    case exited(Int32)
    case signaled(Int32)

    var description: String {
        switch self {
        case .exited(let code): return "exit \(code)"
        case .signaled(let sig): return "killed by signal \(sig)"
        }
    }
}

/// Every child still running, so an exit of the test process (a crash in a test, a `fatalError`)
/// takes none of them along into the next run: the atexit hook SIGKILLs what tearDown missed.
final class LiveChildren: @unchecked Sendable {
    static let shared = LiveChildren()
    private var pids = Set<pid_t>()
    private var mutex = pthread_mutex_t()

    private init() {
        pthread_mutex_init(&mutex, nil)
        atexit { LiveChildren.shared.killAll() }
    }

    func add(_ pid: pid_t) { pthread_mutex_lock(&mutex); pids.insert(pid); pthread_mutex_unlock(&mutex) }
    func remove(_ pid: pid_t) { pthread_mutex_lock(&mutex); pids.remove(pid); pthread_mutex_unlock(&mutex) }

    func killAll() {
        pthread_mutex_lock(&mutex)
        let all = pids
        pids.removeAll()
        pthread_mutex_unlock(&mutex)
        for pid in all {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
        }
    }
}

/// A child process started with posix_spawn, its stdout and stderr going to real files in the
/// test's folder. Foundation's Process is not used: its reaper and run-loop waits make exact
/// exit statuses and deadline waits awkward, while waitpid(WNOHANG) is exact and cheap to poll.
final class ChildProcess {
    let pid: pid_t
    let executable: String
    let arguments: [String]
    let stdoutPath: String
    let stderrPath: String
    private(set) var termination: Termination?

    /// Starts `executable`; stdin is /dev/null. `stderrFD`, when given, replaces the stderr file
    /// (a pipe the test controls). Signals are reset to their defaults and unblocked in the
    /// child, so the daemon starts as it would from systemd, not with the test's signal state.
    init(executable: String, arguments: [String], environment: [String: String],
         stdoutPath: String, stderrPath: String, stderrFD: Int32? = nil) throws {
        self.executable = executable
        self.arguments = arguments
        self.stdoutPath = stdoutPath
        self.stderrPath = stderrPath

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if let stderrFD {
            posix_spawn_file_actions_adddup2(&actions, stderrFD, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }
        // Only stdin, stdout and stderr, as systemd starts a service: descriptors the test
        // process holds (and did not mark close-on-exec) would count against the child's limit.
        for fd in ChildProcess.openDescriptors() where fd > 2 {
            posix_spawn_file_actions_addclose(&actions, fd)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for sig in [SIGTERM, SIGINT, SIGPIPE, SIGHUP] { sigaddset(&defaults, sig) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard rc == 0 else {
            throw HarnessError("cannot start \(executable): \(String(cString: strerror(rc)))")
        }
        self.pid = pid
        LiveChildren.shared.add(pid)
    }

    /// The descriptors this process has open now.
    static func openDescriptors() -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap { Int32($0) }
    }

    /// The environment children get: the test's own, minus what would change their behaviour
    /// behind the test's back (a PIN in GARAGE_PIN, JOURNAL_STREAM dropping log timestamps).
    static func cleanEnvironment(_ extra: [String: String] = [:]) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["GARAGE_PIN"] = nil
        env["JOURNAL_STREAM"] = nil
        env.merge(extra) { _, new in new }
        return env
    }

    /// Reaps the child if it has ended (never blocks); nil while it runs.
    @discardableResult
    func poll() -> Termination? {
        if let termination { return termination }
        var status: Int32 = 0
        let rc = waitpid(pid, &status, WNOHANG)
        guard rc == pid else { return nil }
        let sig = status & 0x7F
        termination = sig == 0 ? .exited((status >> 8) & 0xFF) : .signaled(sig)
        LiveChildren.shared.remove(pid)
        return termination
    }

    var isRunning: Bool { poll() == nil }

    /// Waits for the end without failing the test; nil if it still runs at the deadline.
    func waitForExit(timeout: Duration) -> Termination? {
        _ = eventually(within: timeout) { poll() != nil }
        return poll()
    }

    func signal(_ sig: Int32) {
        if isRunning { kill(pid, sig) }
    }

    /// Ends the child for good: SIGTERM, then SIGKILL if it has not gone after `grace`. Used by
    /// tearDown so no test leaves a daemon behind, whatever state it got into.
    @discardableResult
    func terminate(grace: Duration = .seconds(2)) -> Termination {
        if let t = poll() { return t }
        kill(pid, SIGTERM)
        if let t = waitForExit(timeout: grace) { return t }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
        termination = .signaled(SIGKILL)
        LiveChildren.shared.remove(pid)
        return .signaled(SIGKILL)
    }

    var stdout: String { readText(stdoutPath) }
    var stderr: String { readText(stderrPath) }
}

/// A whole file as text ("" if it does not exist), for logs and CLI output.
func readText(_ path: String) -> String {
    FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } ?? ""
}

/// A whole file as bytes (nil if it does not exist), for byte-exact table comparisons.
func readBytes(_ path: String) -> [UInt8]? {
    FileManager.default.contents(atPath: path).map { [UInt8]($0) }
}

/// Whether a path exists (any kind of file, a socket included).
func fileExists(_ path: String) -> Bool {
    var st = stat()
    return lstat(path, &st) == 0
}

/// A file's permission bits (st_mode & 0o7777), to check the table stays 0600.
func permissions(_ path: String) -> mode_t? {
    var st = stat()
    guard stat(path, &st) == 0 else { return nil }
    return st.st_mode & 0o7777
}

// MARK: - The relay trace

/// One line of the simulated relay's trace: `<CLOCK_MONOTONIC ns> <0|1>`.
struct TraceEntry: Equatable, CustomStringConvertible {
    var ns: UInt64
    var level: Int
    var description: String { "\(ns) \(level)" }
}

/// One press seen in a trace: a 1 and the 0 that follows it.
struct Press {
    var start: UInt64
    var end: UInt64
    var widthMs: Double { Double(end - start) / 1e6 }
}

/// The trace file, parsed. The daemon writes each line with one write(2), so a reader sees
/// whole lines; a partial last line (not ended by LF) is left out rather than misparsed.
/// A line that is not `<ns> <0|1>` is a daemon bug and fails the parse.
func readTrace(_ path: String) throws -> [TraceEntry] {
    guard let bytes = readBytes(path) else { return [] }
    var entries: [TraceEntry] = []
    var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
    lines.removeLast()  // after the last LF: empty, or a line still being written
    for raw in lines {
        let parts = String(decoding: raw, as: UTF8.self).split(separator: " ")
        guard parts.count == 2, let ns = UInt64(parts[0]), let level = Int(parts[1]), level == 0 || level == 1 else {
            throw HarnessError("bad trace line in \(path): '\(String(decoding: raw, as: UTF8.self))'")
        }
        entries.append(TraceEntry(ns: ns, level: level))
    }
    return entries
}

/// The presses in a trace (each 1 with its following 0); a 1 with no 0 yet is left out.
func presses(in trace: [TraceEntry]) -> [Press] {
    var out: [Press] = []
    var start: UInt64?
    for e in trace {
        if e.level == 1 { start = e.ns } else if let s = start { out.append(Press(start: s, end: e.ns)); start = nil }
    }
    return out
}


// MARK: - The raw socket client

/// Connects a non-blocking Unix socket of `type` (stream for the local socket, seqpacket for the
/// ATT seam); throws with errno's text (ENOENT, ECONNREFUSED, EAGAIN for a full backlog).
func connectUnixSocket(_ path: String, type: Int32) throws -> Int32 {
    let fd = socket(AF_UNIX, type | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
    guard fd >= 0 else { throw HarnessError("socket(): \(String(cString: strerror(errno)))") }
    var addr = sockaddr_un()
    addr.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else {
        close(fd)
        throw HarnessError("socket path too long: \(path)")
    }
    withUnsafeMutableBytes(of: &addr.sun_path) { raw in
        raw.copyBytes(from: bytes)
        raw[bytes.count] = 0
    }
    let rc = withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    guard rc == 0 else {
        let e = errno
        close(fd)
        throw HarnessError("connect \(path): \(String(cString: strerror(e)))", errno: e)
    }
    return fd
}

/// A client of the daemon's Unix socket written from scratch (socket, connect, send, recv, poll),
/// so the tests see exactly the bytes on the wire, can send what no well-behaved client would
/// (a NUL, an overlong line, garbage), and never share code with the product's own client.
final class SocketClient {
    let fd: Int32
    let path: String
    private var pending: [UInt8] = []

    /// Connects once; throws with errno's text if nothing accepts (no file, a dead socket, a
    /// full backlog). Non-blocking, so every later wait has a deadline.
    init(path: String) throws {
        self.path = path
        fd = try connectUnixSocket(path, type: Int32(SOCK_SEQPACKET.rawValue))
    }

    deinit { close(fd) }

    /// Sends every byte before the deadline. While the socket is full it keeps reading, so a
    /// daemon answering a flood is never stuck writing replies nobody reads.
    func send(_ bytes: [UInt8], timeout: Duration = .seconds(5)) throws {
        let deadline = monotonicNanoseconds() + timeout.totalNanoseconds
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if n > 0 { sent += n; continue }
            if n < 0 && errno == EINTR { continue }
            guard n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) else {
                throw HarnessError("send to \(path) failed after \(sent) of \(bytes.count) bytes: \(String(cString: strerror(errno)))")
            }
            guard try waitFor(Int16(POLLOUT) | Int16(POLLIN), deadline: deadline) else {
                throw HarnessError("send to \(path) stalled: \(sent) of \(bytes.count) bytes sent before the deadline")
            }
            _ = try drainInput()
        }
    }

    /// Sends one request line (LF added), as one packet.
    func sendLine(_ bytes: [UInt8]) throws { try send(bytes + [0x0A]) }

    /// Sends many request lines, packed into as few packets as the daemon takes (4096 bytes).
    func sendLines(_ lines: [String], timeout: Duration = .seconds(20)) throws {
        var packet: [UInt8] = []
        for line in lines {
            let bytes = Array(line.utf8) + [0x0A]
            if packet.count + bytes.count > 4096 {
                try send(packet, timeout: timeout)
                packet = []
            }
            packet += bytes
        }
        if !packet.isEmpty { try send(packet, timeout: timeout) }
    }

    /// The next reply record (without its LF), waiting up to `timeout` for it.
    func readRecord(timeout: Duration = .seconds(5)) throws -> String {
        let deadline = monotonicNanoseconds() + timeout.totalNanoseconds
        while true {
            if let lf = pending.firstIndex(of: 0x0A) {
                let record = String(decoding: pending[..<lf], as: UTF8.self)
                pending.removeSubrange(...lf)
                return record
            }
            guard try waitFor(Int16(POLLIN), deadline: deadline) else {
                throw HarnessError("no reply record from \(path) within \(timeout) (partial: \(pending))")
            }
            let open = try drainInput()
            if !open && !pending.contains(0x0A) {
                throw HarnessError("\(path) closed the connection (partial reply: \(pending))")
            }
        }
    }

    /// Every complete record that has already arrived, without waiting.
    func availableRecords() throws -> [String] {
        _ = try drainInput()
        var out: [String] = []
        while let lf = pending.firstIndex(of: 0x0A) {
            out.append(String(decoding: pending[..<lf], as: UTF8.self))
            pending.removeSubrange(...lf)
        }
        return out
    }

    /// Sends one request and returns its answer: `<slot>=<pin>` entries, then the final record.
    func request(_ bytes: [UInt8], timeout: Duration = .seconds(5)) throws -> [String] {
        try sendLine(bytes)
        var records: [String] = []
        while true {
            let r = try readRecord(timeout: timeout)
            records.append(r)
            if !SocketClient.isEntry(r) { return records }
        }
    }

    /// `request` for text.
    func request(_ text: String, timeout: Duration = .seconds(5)) throws -> [String] {
        try request(Array(text.utf8), timeout: timeout)
    }

    /// A request whose answer is one record (everything but P); throws if more come.
    func ask(_ bytes: [UInt8]) throws -> String {
        let records = try request(bytes)
        guard records.count == 1 else { throw HarnessError("expected one record, got \(records)") }
        return records[0]
    }

    func ask(_ text: String) throws -> String { try ask(Array(text.utf8)) }

    /// Half-closes: the daemon sees end of stream after what was sent.
    func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }

    /// True for a `P` list entry (digits, `=`): not the end of an answer.
    static func isEntry(_ record: String) -> Bool {
        guard let eq = record.firstIndex(of: "=") else { return false }
        return !record[..<eq].isEmpty && record[..<eq].allSatisfy(\.isASCII) && record[..<eq].allSatisfy(\.isNumber)
    }

    /// Reads what is there; false at end of stream.
    private func drainInput() throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n > 0 { pending += buffer[0..<n]; continue }
            if n == 0 { return false }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return true }
            throw HarnessError("recv from \(path): \(String(cString: strerror(errno)))")
        }
    }

    private func waitFor(_ events: Int16, deadline: UInt64) throws -> Bool {
        while true {
            let now = monotonicNanoseconds()
            if now >= deadline { return false }
            var pfd = pollfd(fd: fd, events: events, revents: 0)
            let ms = Int32(min(1000, (deadline - now) / 1_000_000 + 1))
            let n = Glibc.poll(&pfd, 1, ms)
            if n > 0 { return true }
            if n < 0 && errno != EINTR { throw HarnessError("poll: \(String(cString: strerror(errno)))") }
        }
    }
}

// MARK: - A running daemon

/// One `garaged` process on the simulated line, and the files it uses.
final class GaragedDaemon {
    let process: ChildProcess
    let pinsPath: String
    let socketPath: String
    let tracePath: String

    init(process: ChildProcess, pinsPath: String, socketPath: String, tracePath: String) {
        self.process = process
        self.pinsPath = pinsPath
        self.socketPath = socketPath
        self.tracePath = tracePath
    }

    var pid: pid_t { process.pid }
    var log: String { process.stderr }

    /// A fresh connection to the daemon. A non-blocking connect fails with EAGAIN while the
    /// listen backlog is full (many connections at once, faster than the daemon accepts), so
    /// that is retried for a while; any other failure is thrown at once.
    func connect() throws -> SocketClient {
        var lastError: Error?
        var client: SocketClient?
        _ = eventually(within: .seconds(5)) {
            do {
                client = try SocketClient(path: socketPath)
                return true
            } catch let e as HarnessError where e.errno == EAGAIN {
                lastError = e
                return false
            } catch {
                lastError = error
                return true
            }
        }
        if let client { return client }
        throw lastError ?? HarnessError("connect \(socketPath): failed")
    }

    /// One request on a fresh connection, its single-record answer.
    func ask(_ text: String) throws -> String { try connect().ask(text) }

    func trace() throws -> [TraceEntry] { try readTrace(tracePath) }

    /// SIGTERM and wait for the exit (the clean shutdown every test ends with, so the final trace
    /// can be compared whole).
    func stop(timeout: Duration = .seconds(3)) -> Termination? {
        process.signal(SIGTERM)
        return process.waitForExit(timeout: timeout)
    }
}

// MARK: - The test case base

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
                      trace: String? = nil, stderrFD: Int32? = nil) throws -> GaragedDaemon {
        let pins = pins ?? pinsPath, socket = socket ?? socketPath, trace = trace ?? tracePath
        daemonCount += 1
        tracePaths.append(trace)
        let process = try spawn(try Binaries.path(of: "garaged"),
                                ["--pins", pins, "--socket", socket, "--relay", "sim:\(trace)", "--no-ble"] + extra,
                                name: "garaged\(daemonCount)", stderrFD: stderrFD)
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

/// The table image the book's layout prescribes, built by hand (not with DoorCore's encoder, so
/// the test is an independent check of it): slot i at offset 6*i, flag 1 and five PIN bytes for a
/// used slot, six zero bytes for a free one, then 0xFF to the end of the 1024 bytes.
func expectedImage(_ slots: [String?]) -> [UInt8] {
    var image = [UInt8](repeating: 0xFF, count: 1024)
    for (i, slot) in slots.enumerated() {
        let base = 6 * i
        if let slot {
            let pin = Array(slot.utf8)
            precondition(pin.count == 5)
            image[base] = 1
            for k in 0..<5 { image[base + 1 + k] = pin[k] }
        } else {
            for k in 0..<6 { image[base + k] = 0 }
        }
    }
    return image
}

/// Slots for `expectedImage`: the master, then `used` at the given slots, free elsewhere.
func slots(capacity: Int = 16, master: String = GaragedTestCase.master, _ used: [Int: String] = [:]) -> [String?] {
    (0..<capacity).map { $0 == 0 ? master : used[$0] }
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif

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
    /// behind the test's back (a PIN in GARAGE_PIN, JOURNAL_STREAM dropping log timestamps,
    /// systemd's notify socket and watchdog when the suite itself runs in a unit, the machine's
    /// /etc/garaged.conf read by default).
    static func cleanEnvironment(_ extra: [String: String] = [:]) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["GARAGE_PIN"] = nil
        env["JOURNAL_STREAM"] = nil
        for key in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] { env[key] = nil }
        // garaged reads /etc/garaged.conf when no --config is given: never the machine's own file
        // in a test, unless the test names one.
        env["GARAGED_CONFIG"] = ""
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

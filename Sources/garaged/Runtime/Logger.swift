import CLinux
import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
import Synchronization
#endif

/// One line per event on stderr, as `LEVEL event key=value ...`, for journald or a terminal.
/// Lines are queued and written by a thread of their own, so a stalled stderr (journald busy, a
/// full pipe, a terminal paused with Ctrl-S) never holds up a press or a reply; if the queue
/// fills, lines are dropped and the count is reported once stderr moves again. When stderr is
/// the journal (JOURNAL_STREAM names it), each line starts with its sd-daemon priority (`<4>`),
/// so `journalctl -p warning` finds the warnings, and the timestamp is left to journald. PINs
/// never reach it: callers log slots, and `PIN` itself prints as asterisks.
struct Logger: Sendable {
    /// How much a line matters, with its syslog priority (sd-daemon(3)).
    enum Level: String, Sendable {
        case info = "INFO", warning = "WARN", error = "ERROR"

        var priority: Int {
            switch self {
            case .error: return 3
            case .warning: return 4
            case .info: return 6
            }
        }
    }

    /// Whether stderr is the journal's stream: priorities, no timestamps.
    let journal: Bool
    private let sink: LogSink

    init() {
        journal = Logger.stderrIsJournal()
        sink = LogSink()
    }

    func info(_ event: String, _ fields: KeyValuePairs<String, String> = [:]) { emit(.info, event, fields) }
    func warning(_ event: String, _ fields: KeyValuePairs<String, String> = [:]) { emit(.warning, event, fields) }
    func error(_ event: String, _ fields: KeyValuePairs<String, String> = [:]) { emit(.error, event, fields) }
    /// For lines whose fields are assembled as they go.
    func info(_ event: String, _ fields: [(String, String)]) { emit(.info, event, fields) }
    func warning(_ event: String, _ fields: [(String, String)]) { emit(.warning, event, fields) }
    func error(_ event: String, _ fields: [(String, String)]) { emit(.error, event, fields) }
    func log(_ level: Level, _ event: String, _ fields: [(String, String)]) { emit(level, event, fields) }

    /// Waits (up to `timeout`) until every queued line is written: for exit paths.
    func flush(timeout: Duration = .milliseconds(300)) { sink.flush(timeout: timeout) }

    private func emit(_ level: Level, _ event: String, _ fields: KeyValuePairs<String, String>) {
        emit(level, event, fields.map { ($0.key, $0.value) })
    }

    /// Builds the line by appending its pieces into one string sized up front (no
    /// interpolation's temporary strings): every request's line is made on the loop's thread.
    private func emit(_ level: Level, _ event: String, _ fields: [(String, String)]) {
        var line = ""
        line.reserveCapacity(48 + event.utf8.count + fields.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count + 4 })
        if journal {
            line.append("<")
            line.append(String(level.priority))
            line.append(">")
        } else {
            line.append(WallTime.format(EventRecord.now(), .logStamp))
            line.append(" ")
        }
        line.append(level.rawValue)
        line.append(" ")
        line.append(event)
        for (k, v) in fields {
            line.append(" ")
            line.append(k)
            line.append("=")
            line.append(Logger.quote(v))
        }
        line.append("\n")
        sink.enqueue(line)
    }

    /// Quotes values with spaces, quotes, backslashes or control characters so a line stays
    /// machine-splittable, and escapes the control characters (`\n`, `\x1b`): no value, whoever
    /// chose it (a pairing id, a door's name), can forge a line or reach a terminal as a sequence.
    static func quote(_ v: String) -> String {
        guard v.isEmpty || v.unicodeScalars.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" || $0 == "\\" || $0.isControlCharacter })
        else { return v }
        return "\"" + v.replacingAll("\\", with: "\\\\").replacingAll("\"", with: "\\\"").escapingControlCharacters + "\""
    }

    /// True when JOURNAL_STREAM names the device and inode stderr is connected to, as
    /// systemd sets it for a service whose output goes to the journal (a variable inherited
    /// by a process whose stderr was redirected elsewhere does not match).
    static func stderrIsJournal() -> Bool {
        guard let value = getenv("JOURNAL_STREAM").map({ String(cString: $0) }) else { return false }
        let parts = value.split(separator: ":")
        var st = stat()
        guard parts.count == 2, let dev = UInt64(parts[0]), let ino = UInt64(parts[1]), fstat(2, &st) == 0 else { return false }
        return UInt64(st.st_dev) == dev && UInt64(st.st_ino) == ino
    }
}

/// The queue between the threads that log and the one that writes to stderr.
private final class LogSink: @unchecked Sendable {
    static let maxQueued = 2000

    private struct State {
        var lines: [String] = []
        var dropped = 0
        var writing = false
    }

    private let state = Mutex(State())
    /// The writer runs for the process's life: the log is the last thing to go quiet, so it is
    /// flushed (`flush`), never stopped.
    private let worker = Worker("log")
    private var wake: WakeEvent { worker.wake }
    private let idle = WakeEvent()

    init() { worker.start { [self] in run() } }

    func enqueue(_ line: String) {
        let queued = state.withLock { s -> Bool in
            guard s.lines.count < LogSink.maxQueued else {
                s.dropped += 1
                return false
            }
            s.lines.append(line)
            return true
        }
        if queued { wake.signal() }
    }

    func flush(timeout: Duration) {
        let deadline = SystemMonotonicClock().now() + timeout
        var fds = [pollfd(fd: idle.fd, events: Int16(POLLIN), revents: 0)]
        while state.withLock({ !$0.lines.isEmpty || $0.writing }) {
            let left = deadline - SystemMonotonicClock().now()
            if left <= .zero { return }
            wake.signal()
            waitFor(&fds, timeout: min(left, .milliseconds(20)))
            idle.drain()
        }
    }

    private func run() {
        var fds = [pollfd(fd: wake.fd, events: Int16(POLLIN), revents: 0)]
        while true {
            let (batch, dropped) = state.withLock { s -> ([String], Int) in
                defer { s.lines.removeAll(keepingCapacity: true); s.dropped = 0 }
                s.writing = !s.lines.isEmpty || s.dropped > 0
                return (s.lines, s.dropped)
            }
            if batch.isEmpty && dropped == 0 {
                idle.signal()
                waitFor(&fds, timeout: nil)
                wake.drain()
                continue
            }
            var text = batch.joined()
            if dropped > 0 { text += "WARN log-dropped lines=\(dropped) why=\"stderr was not taking lines\"\n" }
            writeAll(text)
            state.withLock { $0.writing = false }
        }
    }

    /// Writes everything, waiting for stderr as long as it takes: this thread has nothing else to do.
    private func writeAll(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            if n > 0 {
                bytes = bytes.dropFirst(n)
            } else if n < 0 && errno == EINTR {
                continue
            } else if n < 0 && errno == EAGAIN {
                var pfd = [pollfd(fd: 2, events: Int16(POLLOUT), revents: 0)]
                waitFor(&pfd, timeout: .seconds(1))
            } else {
                return  // stderr is gone; nothing sensible left to do with the line
            }
        }
    }
}

extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}

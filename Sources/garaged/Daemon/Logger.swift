import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// One line per event on stderr, as `LEVEL event key=value ...`, for journald or a terminal.
/// Under systemd (JOURNAL_STREAM set) the timestamp is left to journald. PINs never reach it:
/// callers log slots, and `PIN` itself prints as asterisks.
struct Logger: Sendable {
    let timestamps: Bool

    init() { timestamps = getenv("JOURNAL_STREAM") == nil }

    func info(_ event: String, _ fields: KeyValuePairs<String, String> = [:]) { emit("INFO", event, fields) }
    func warning(_ event: String, _ fields: KeyValuePairs<String, String> = [:]) { emit("WARN", event, fields) }
    func error(_ event: String, _ fields: KeyValuePairs<String, String> = [:]) { emit("ERROR", event, fields) }

    private func emit(_ level: String, _ event: String, _ fields: KeyValuePairs<String, String>) {
        var line = timestamps ? Logger.now() + " " : ""
        line += "\(level) \(event)"
        for (k, v) in fields { line += " \(k)=\(Logger.quote(v))" }
        line += "\n"
        // One write per line: lines from different threads never interleave.
        _ = line.withCString { write(2, $0, strlen($0)) }
    }

    /// Quotes values with spaces or quotes so a line stays machine-splittable.
    static func quote(_ v: String) -> String {
        guard v.isEmpty || v.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" }) else { return v }
        return "\"" + v.replacingAll("\\", with: "\\\\").replacingAll("\"", with: "\\\"") + "\""
    }

    /// Local time with milliseconds, e.g. 2026-11-22T14:03:05.123.
    static func now() -> String {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        var t = time_t(ts.tv_sec)
        var tmv = tm()
        localtime_r(&t, &tmv)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let ms = ts.tv_nsec / 1_000_000
        let msText = ms < 10 ? "00\(ms)" : ms < 100 ? "0\(ms)" : "\(ms)"
        return "\(tmv.tm_year + 1900)-\(two(tmv.tm_mon + 1))-\(two(tmv.tm_mday))T\(two(tmv.tm_hour)):\(two(tmv.tm_min)):\(two(tmv.tm_sec)).\(msText)"
    }
}

extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}

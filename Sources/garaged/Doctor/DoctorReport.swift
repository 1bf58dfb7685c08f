/// What `garaged doctor` found, in the order it looked: one line per finding, so a person reads
/// it top to bottom and fixes the FAIL lines first.
struct DoctorReport {
    enum Level: String {
        /// Nothing to do.
        case ok = "ok"
        /// garaged works, but not as well or as safely as it could.
        case warn = "warn"
        /// garaged would not start, or a part of it would not work.
        case fail = "FAIL"
    }

    private(set) var findings: [(level: Level, subject: String, text: String)] = []

    mutating func add(_ level: Level, _ subject: String, _ text: String) {
        findings.append((level, subject, text))
    }

    var failed: Bool { findings.contains { $0.level == .fail } }

    /// "ok    table: ..." lines, then a summary line.
    var text: String {
        var out = findings.map { "\($0.level.rawValue + String(repeating: " ", count: 5 - $0.level.rawValue.count)) \($0.subject): \($0.text)\n" }.joined()
        let fails = findings.filter { $0.level == .fail }.count, warns = findings.filter { $0.level == .warn }.count
        out += fails > 0 ? "\(fails) to fix, \(warns) to read: garaged would not start or not fully work.\n"
            : warns > 0 ? "garaged can start; \(warns) warning(s) to read.\n" : "all well: garaged can start.\n"
        return out
    }
}

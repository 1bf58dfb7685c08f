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

/// The word someone most likely meant when they typed one that is not known: a command name
/// with two letters swapped (`opne`), a setting with one missing (`puls-ms`), the start of a
/// long one (`stat`). For "did you mean" in the messages that refuse a typo.
public enum NearestWord {
    /// The closest of `candidates` to `typed`, or nil when none is close enough to be a typo:
    /// at most one edit (a letter added, dropped, changed, or two neighbours swapped) for a
    /// word of up to 4 letters, two for a longer one; or `typed` (3 letters or more) is the
    /// start of exactly one candidate. Ties go to the candidate listed first.
    public static func to(_ typed: String, among candidates: [String]) -> String? {
        let word = Array(typed.lowercased())
        guard !word.isEmpty else { return nil }
        let limit = word.count <= 4 ? 1 : 2
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let d = distance(word, Array(candidate.lowercased()))
            if d <= limit, best.map({ d < $0.distance }) ?? true { best = (candidate, d) }
        }
        if let best { return best.name }
        guard word.count >= 3 else { return nil }
        let starting = candidates.filter { $0.lowercased().hasPrefix(typed.lowercased()) }
        return starting.count == 1 ? starting[0] : nil
    }

    /// Edits from `a` to `b`: insertions, deletions, substitutions, and swaps of two neighbours
    /// (the optimal string alignment distance).
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { rows[i][0] = i }
        for j in 0...b.count { rows[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var d = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d = min(d, rows[i - 2][j - 2] + 1) }
                rows[i][j] = d
            }
        }
        return rows[a.count][b.count]
    }
}

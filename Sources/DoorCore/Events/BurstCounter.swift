/// Folds repeats into one report per burst, so a flood (143,864 `ERR LOCKED` in 8 s, or
/// thousands of wrong PINs) costs the log and the history a few lines instead of pushing out
/// what matters. The first of a burst is reported in full at once; the rest are counted, and
/// the count is reported when the burst goes quiet, or every `span` while it goes on.
public struct BurstCounter<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// A burst's report: the value that opened it, how many more were folded in, and when the
    /// folded ones came (monotonic).
    public struct Summary: Sendable {
        public var key: Key
        public var first: Value
        public var folded: Int
        public var from: Instant
        public var to: Instant
    }

    /// One open burst: its first value, what was folded in, and when it last repeated.
    @usableFromInline
    struct Burst: Sendable {
        var first: Value
        var folded = 0
        var foldedFrom: Instant?
        @usableFromInline var last: Instant
        @usableFromInline var spanStart: Instant
    }

    /// A burst ends after this long without a repeat.
    public let quiet: Duration
    /// An ongoing burst is reported at least this often.
    public let span: Duration
    /// Open bursts at most; past it a new key is reported in full, never folded (keys are
    /// channels and commands, so there are few).
    public let maxBursts: Int
    @usableFromInline
    var bursts: [Key: Burst] = [:]

    public init(quiet: Duration = .seconds(60), span: Duration = .seconds(600), maxBursts: Int = 256) {
        self.quiet = quiet
        self.span = span
        self.maxBursts = maxBursts
    }

    /// True when `key` opens a burst (report `value` in full now); false when it was folded in.
    public mutating func note(_ key: Key, _ value: Value, at now: Instant) -> Bool {
        if var b = bursts[key] {
            b.folded += 1
            if b.foldedFrom == nil { b.foldedFrom = now }
            b.last = now
            bursts[key] = b
            return false
        }
        if bursts.count < maxBursts { bursts[key] = Burst(first: value, last: now, spanStart: now) }
        return true
    }

    /// The reports due at `now`: bursts that went quiet (and end), and bursts that ran a whole
    /// span (their count starts again). A burst with nothing folded ends without a report.
    public mutating func due(at now: Instant) -> [Summary] {
        var out: [Summary] = []
        for (key, b) in bursts {
            let ended = now - b.last >= quiet
            guard ended || now - b.spanStart >= span else { continue }
            if b.folded > 0, let from = b.foldedFrom {
                out.append(Summary(key: key, first: b.first, folded: b.folded, from: from, to: b.last))
            }
            if ended {
                bursts[key] = nil
            } else {
                bursts[key] = Burst(first: b.first, last: b.last, spanStart: now)
            }
        }
        return out.sorted { $0.from < $1.from }
    }

    /// `due(at:)`, only walking the bursts when one's deadline has come (`nextDeadline`): the
    /// daemon's loop asks every turn, and most turns nothing is due.
    @inlinable
    public mutating func dueIfAny(at now: Instant) -> [Summary] {
        guard let next = nextDeadline, next <= now else { return [] }
        return due(at: now)
    }

    /// Every open burst's report now, as at shutdown.
    public mutating func flush() -> [Summary] {
        defer { bursts.removeAll() }
        return bursts.compactMap { key, b in
            b.foldedFrom.map { Summary(key: key, first: b.first, folded: b.folded, from: $0, to: b.last) }
        }.sorted { $0.from < $1.from }
    }

    /// When `due` next has something to do. Asked every turn of the daemon's loop: a plain
    /// loop, inlinable so the loop's own key and value types specialise it (no array, no
    /// generic metadata looked up per call).
    @inlinable
    public var nextDeadline: Instant? {
        var earliest: Instant?
        for b in bursts.values {
            let due = min(b.last + quiet, b.spanStart + span)
            if earliest.map({ due < $0 }) ?? true { earliest = due }
        }
        return earliest
    }
}

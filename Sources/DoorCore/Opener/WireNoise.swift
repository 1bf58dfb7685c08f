/// Noise anyone on an opener's wire can make (garbage, a forged identity): the first of a
/// minute is said whole, the rest counted and said in one line once the minute is over, so a
/// flood on the wire cannot flood the log. Shared by every wire's session.
public struct WireNoise: Equatable, Sendable {
    /// At most one whole line, then one count, in this long.
    public static let every: Duration = .seconds(60)
    /// The level and event of the count's line (`opener-garbage-repeats`).
    public let level: OpenerNote.Level
    public let repeatsEvent: String
    /// Since when noise is counted, and how many beyond the first.
    public private(set) var since: Instant?
    public private(set) var count = 0

    public init(_ level: OpenerNote.Level = .warning, repeats repeatsEvent: String = "opener-garbage-repeats") {
        self.level = level
        self.repeatsEvent = repeatsEvent
    }

    /// When the minute's count is due to be said (`summarise` then).
    public var nextWake: Instant? { since.map { $0 + WireNoise.every } }

    /// One more at `now`: the last minute's count if it is over, then `line` whole (with "more
    /// are counted"); nothing while the minute lasts (it is counted).
    public mutating func heard(_ line: @autoclosure () -> OpenerNote, at now: Instant) -> [OpenerNote] {
        if let since, now - since < WireNoise.every {
            count += 1
            return []
        }
        var notes = summarise(at: now)
        since = now
        let first = line()
        notes.append(OpenerNote(first.level, first.event, first.pairs + [("then", "more are counted, said once a minute")]))
        return notes
    }

    /// The count of what followed the first of the minute, once the minute is over.
    public mutating func summarise(at now: Instant) -> [OpenerNote] {
        guard let since, now - since >= WireNoise.every else { return [] }
        defer { self.since = nil; count = 0 }
        guard count > 0 else { return [] }
        return [OpenerNote(level, repeatsEvent, [("more", String(count)), ("over_s", String((now - since).secondsRoundedUp))])]
    }
}

/// The doors' notices for phones (a warning, one called off, a fault, "left open"), numbered, as
/// the status snapshot carries them: a notice is an event, not a state, so the snapshot says how
/// many there were and the latest of them, and the phones' view sends those a snapshot has beyond
/// the one before it (`StatusSnapshot.phonePushes`). With the doors' states, that makes the
/// snapshot the one producer of every push.
public struct PhoneNotices: Equatable, Sendable {
    /// How many of the latest are kept: more than one turn of the loop makes (a fault and its
    /// warning called off, for each door), so no phone misses one between two snapshots.
    public static let kept = 16

    /// How many were ever noticed.
    public private(set) var count = 0
    /// The latest, oldest first, at most `kept`; each names its door when there are several.
    public private(set) var latest: [Reply] = []

    public init() {}

    /// Notes `replies` in order.
    public mutating func append(_ replies: [Reply]) {
        guard !replies.isEmpty else { return }
        count += replies.count
        latest += replies
        if latest.count > PhoneNotices.kept { latest.removeFirst(latest.count - PhoneNotices.kept) }
    }

    /// Those noticed after `old` (as many as are kept), in order; none when there is no `old`,
    /// since no phone saw the first snapshot.
    public func since(_ old: PhoneNotices?) -> [Reply] {
        guard let old, count > old.count else { return [] }
        return Array(latest.suffix(min(count - old.count, latest.count)))
    }
}

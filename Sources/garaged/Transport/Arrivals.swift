/// When what a connection reads arrived, for the rule that a request older than 2 s is refused:
/// the kernel's receive stamp where it can be trusted, otherwise the socket's empty mark (the
/// latest moment it was known to hold nothing unread, so whatever it holds now came after).
/// The kernel stamps a packet only once stamps are on, and they are turned on at accept: what a
/// client sent before it was accepted carries the time of the read, or nothing. So until the
/// connection is first seen empty, every read counts from the mark the listener gave it (the
/// last time the listener itself was seen with nobody waiting).
struct Arrivals {
    /// The latest moment the socket was known to hold nothing unread (CLOCK_REALTIME ns).
    private(set) var emptyMark: Int64
    /// False until the socket was first seen empty: until then a stamp may be the read's time.
    private var stampsTrusted = false

    /// A connection accepted from a listener last seen empty at `mark`.
    init(acceptedAfter mark: Int64) { emptyMark = mark }

    /// The socket held nothing unread at `realtime` (a poll that did not find it readable, or a
    /// read that found nothing).
    mutating func sawEmpty(at realtime: Int64) {
        emptyMark = max(emptyMark, realtime)
        stampsTrusted = true
    }

    /// When a read with the kernel's `stamp` (nil: none) arrived, at the latest.
    func arrival(stamp: Int64?) -> Int64 {
        guard stampsTrusted, let stamp else { return emptyMark }
        return stamp
    }
}

import CLinux

/// When what a connection reads arrived, for the rule that a request older than 2 s is refused:
/// the kernel's receive stamp where it can be trusted, otherwise the socket's empty mark (the
/// latest moment it was known to hold nothing unread, so whatever it holds now came after).
/// The kernel stamps what arrives once stamps are on, and they are turned on at accept: what a
/// client sent before it was accepted carries the time of the read, or nothing. Those bytes,
/// counted at accept, count from the mark the listener gave the connection (the last time the
/// listener was seen with nobody waiting, or the daemon's start).
struct Arrivals {
    /// The latest moment the socket was known to hold nothing unread (CLOCK_REALTIME ns).
    private(set) var emptyMark: Int64
    /// Bytes that were queued before stamps were on and are not read yet.
    private var unstamped: Int
    /// True when its reads count from `emptyMark` (no kernel stamps, or TCP's), which the loop's looks must keep fresh.
    let needsLooks: Bool

    /// Turns the kernel's stamps on for `fd`, accepted from a listener last seen empty at
    /// `mark`, and counts what was already waiting.
    init(stamping fd: Int32, acceptedAfter mark: Int64) {
        let stamped = PacketSocket.enableStamps(fd)
        self.init(acceptedAfter: mark, unstamped: max(0, Int(clinux_queued_bytes(fd))), stamped: stamped)
    }

    /// `stamped`: every packet read after the `unstamped` bytes carries the kernel's stamp.
    init(acceptedAfter mark: Int64, unstamped: Int, stamped: Bool = false) {
        emptyMark = mark
        self.unstamped = unstamped
        needsLooks = !stamped
    }

    /// The socket held nothing unread at some moment after `realtime` (a wait begun then that did
    /// not find it readable, or a read after it that found nothing), so whatever it holds later
    /// arrived after `realtime`. The loop passes the time its wait began, read once a turn.
    mutating func sawEmpty(at realtime: Int64) {
        emptyMark = max(emptyMark, realtime)
        unstamped = 0
    }

    /// When `count` bytes just read with the kernel's `stamp` (nil: none) arrived, at the latest.
    mutating func arrival(of count: Int, stamp: Int64?) -> Int64 {
        defer { unstamped = max(0, unstamped - count) }
        guard unstamped == 0, let stamp else { return emptyMark }
        return stamp
    }
}

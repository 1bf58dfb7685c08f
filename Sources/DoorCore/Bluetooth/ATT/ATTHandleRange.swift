/// A Starting Handle..Ending Handle pair that the Core spec accepts: start at least 0x0001 and not
/// past end. Any other pair is refused with Invalid Handle at the starting handle before a range
/// exists, so the server never sees a bad one.
public struct ATTHandleRange: Equatable, Sendable {
    public let start: UInt16
    public let end: UInt16

    /// Nil when `start` is 0x0000 or greater than `end`.
    public init?(start: UInt16, end: UInt16) {
        guard start != 0, start <= end else { return nil }
        self.start = start
        self.end = end
    }

    public func contains(_ handle: UInt16) -> Bool { handle >= start && handle <= end }
}

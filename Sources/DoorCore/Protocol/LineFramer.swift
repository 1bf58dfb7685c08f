/// Splits what a local-socket client sends into request lines: LF ends a line, and so does the
/// end of a packet (`endOfPacket`); a CR before the end is dropped, and a line longer than
/// `maxLength` becomes one `.tooLong` item (its bytes are discarded up to the next end), so one
/// bad line never takes the next ones with it.
public struct LineFramer: Sendable {
    public enum Item: Equatable, Sendable {
        case line([UInt8])
        case tooLong
    }

    public let maxLength: Int
    private var buffer: [UInt8] = []
    private var discarding = false

    public init(maxLength: Int = 64) { self.maxLength = maxLength }

    /// Feeds bytes as they arrive; returns every item completed by them, in order.
    public mutating func feed(_ bytes: [UInt8]) -> [Item] { feed(bytes[...]) }

    /// The same for part of a read buffer. Not generic: a generic across the module boundary
    /// would run unspecialised, a witness call per byte, on the path of every request.
    public mutating func feed(_ bytes: ArraySlice<UInt8>) -> [Item] {
        var items: [Item] = []
        for b in bytes {
            if b == 0x0A {
                if discarding {
                    discarding = false
                } else {
                    if buffer.last == 0x0D { buffer.removeLast() }
                    items.append(.line(buffer))
                }
                buffer.removeAll(keepingCapacity: true)
            } else if !discarding {
                buffer.append(b)
                // One more byte than the limit is allowed for a CR that precedes the LF.
                if buffer.count > maxLength + 1 || (buffer.count == maxLength + 1 && b != 0x0D) {
                    items.append(.tooLong)
                    buffer.removeAll(keepingCapacity: true)
                    discarding = true
                }
            }
        }
        return items
    }

    /// The end of a packet ends the line in progress, if any (a request need not end in LF).
    public mutating func endOfPacket() -> [Item] {
        defer { buffer.removeAll(keepingCapacity: true); discarding = false }
        guard !discarding, !buffer.isEmpty else { return [] }
        if buffer.last == 0x0D { buffer.removeLast() }
        return [.line(buffer)]
    }
}

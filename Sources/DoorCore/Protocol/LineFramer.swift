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

    /// A whole packet (`feed`, then `endOfPacket`), as a list.
    public mutating func packet(_ bytes: ArraySlice<UInt8>) -> [Item] {
        var items: [Item] = []
        packet(bytes) { items.append($0) }
        return items
    }

    /// A whole packet, each item handed to `body` in order. A packet of one line with nothing
    /// carried over, how every request comes, is cut where it lies: the line is the one
    /// allocation on a press's path, with no list around it.
    public mutating func packet(_ bytes: ArraySlice<UInt8>, _ body: (Item) -> Void) {
        if bytes.isEmpty, buffer.isEmpty, !discarding { return }
        if let line = wholeLine(bytes) { return body(.line(line)) }
        for item in feed(bytes) + endOfPacket() { body(item) }
    }

    /// The packet's one line when it is one whole line with nothing carried over (how every
    /// request comes), cut where it lies; nil otherwise (`packet` frames it). It changes
    /// nothing, so a caller can take the usual packet without a closure or a list around it.
    public func wholeLine(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
        guard buffer.isEmpty, !discarding, !bytes.isEmpty else { return nil }
        // On the bytes in place: a slice's generic `dropLast` and `contains` cost more than the
        // scan itself on the path of every local request.
        return bytes.withUnsafeBufferPointer { b -> [UInt8]? in
            var end = b[b.count - 1] == 0x0A ? b.count - 1 : b.count
            // One more byte than the limit is allowed for a CR that precedes the LF.
            guard end <= maxLength + 1 else { return nil }
            for i in 0..<end where b[i] == 0x0A { return nil }
            if end > 0, b[end - 1] == 0x0D {
                end -= 1
            } else if end == maxLength + 1 {
                return nil
            }
            return Array(UnsafeBufferPointer(rebasing: b[0..<end]))
        }
    }

    /// The end of a packet ends the line in progress, if any (a request need not end in LF).
    public mutating func endOfPacket() -> [Item] {
        defer { buffer.removeAll(keepingCapacity: true); discarding = false }
        guard !discarding, !buffer.isEmpty else { return [] }
        if buffer.last == 0x0D { buffer.removeLast() }
        return [.line(buffer)]
    }
}

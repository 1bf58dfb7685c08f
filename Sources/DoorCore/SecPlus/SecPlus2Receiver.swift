/// Frames the bytes read from the wall wire into packets: it syncs on `55 01 00`, hands back every
/// 19 bytes that follow a sync (decoded, or refused with why), and drops a partial packet older
/// than `timeout`. Pure: the caller feeds what it read with the instant it read it.
///
/// A sync inside a packet in progress starts a second candidate rather than replacing the first
/// (ratgdo restarts there): a valid packet can carry `55 01 00` in its body, and a packet torn by
/// a collision is still caught, because its 19 bytes are refused and the candidate after it goes on.
public struct SecPlus2Receiver: Sendable {
    /// What the receiver hands back, in wire order.
    public enum Item: Hashable, Sendable {
        /// A packet that decoded, with its 19 bytes (for the log and for re-checking).
        case packet(SecPlus2Packet, bytes: [UInt8])
        /// 19 bytes after a sync that are not a packet, and why.
        case refused([UInt8], SecPlus2PacketError)
        /// The start of a packet whose rest did not come in time (a torn packet, or a sync in noise).
        case dropped([UInt8])
    }

    /// How old a partial packet may get: a whole one takes 20 ms at 9600 baud.
    public static let timeout: Duration = .milliseconds(100)

    /// A sync seen: where it begins in `buffer`, and when its first byte came.
    private struct Candidate: Sendable {
        var offset: Int
        var since: Instant
    }

    /// The bytes from the oldest candidate's sync on: at most 19, since that one ends there.
    private var buffer: [UInt8] = []
    /// The packets in progress, oldest first; the first starts at offset 0.
    private var candidates: [Candidate] = []
    /// The last three bytes, to see a sync whichever reads it came in.
    private var window: UInt32 = 0
    /// When the byte before last and the last byte came: a sync began two bytes before its end.
    private var lastTimes: (Instant?, Instant?) = (nil, nil)

    public init() {}

    /// When the partial packet in progress goes stale: call `expire` after it, even if no byte comes.
    public var deadline: Instant? { candidates.first.map { $0.since + Self.timeout } }

    /// Feeds bytes read at `now`; returns every item they completed, a stale partial packet's first.
    public mutating func feed(_ bytes: [UInt8], at now: Instant) -> [Item] { feed(bytes[...], at: now) }

    /// The same for part of a read buffer.
    public mutating func feed(_ bytes: ArraySlice<UInt8>, at now: Instant) -> [Item] {
        var items = expire(at: now)
        // A sync never spans a silence longer than a partial packet may last.
        if let last = lastTimes.1, now - last > Self.timeout { window = 0 }
        for byte in bytes {
            window = (window << 8 | UInt32(byte)) & 0xFF_FFFF
            let first = lastTimes.0 ?? now
            lastTimes = (lastTimes.1, now)
            if !buffer.isEmpty { buffer.append(byte) }
            if window == 0x55_01_00 {
                if buffer.isEmpty {
                    buffer = SecPlus2Packet.sync
                    candidates = [Candidate(offset: 0, since: first)]
                } else {
                    candidates.append(Candidate(offset: buffer.count - 3, since: first))
                }
            }
            guard buffer.count == SecPlus2Packet.length else { continue }
            do {
                let packet = try SecPlus2Packet(decoding: buffer)
                items.append(.packet(packet, bytes: buffer))
                // A sync inside a packet that decoded was part of it.
                buffer.removeAll(keepingCapacity: true)
                candidates.removeAll()
                window = 0
            } catch {
                items.append(.refused(buffer, error))
                dropOldest()
            }
        }
        return items
    }

    /// Drops every partial packet older than `timeout` at `now`: for a caller whose wait for bytes
    /// ended at `deadline` with nothing read.
    public mutating func expire(at now: Instant) -> [Item] {
        var items: [Item] = []
        while let oldest = candidates.first, now - oldest.since > Self.timeout {
            let end = candidates.count > 1 ? candidates[1].offset : buffer.count
            items.append(.dropped(Array(buffer[..<end])))
            dropOldest()
        }
        return items
    }

    /// Forgets the oldest candidate; the next, if any, now starts the buffer.
    private mutating func dropOldest() {
        candidates.removeFirst()
        guard let next = candidates.first else {
            buffer.removeAll(keepingCapacity: true)
            return
        }
        buffer.removeFirst(next.offset)
        for i in candidates.indices { candidates[i].offset -= next.offset }
    }
}

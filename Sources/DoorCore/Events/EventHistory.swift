/// The daemon's in-memory copy of the history, so `log` and `who` are answered at once and
/// include records the writer thread has not yet made durable. Bounded like the files (twice
/// `maxBytes` of encoded records), oldest dropped first.
public struct EventHistory: Sendable {
    public let maxBytes: Int
    public private(set) var records: [EventRecord] = []
    private var sizes: [Int] = []
    private var total = 0
    private var head = 0

    public init(maxBytes: Int = 2 * EventHistoryFile.defaultMaxBytes, records: [EventRecord] = []) {
        self.maxBytes = maxBytes
        for r in records { append(r) }
    }

    public mutating func append(_ record: EventRecord) {
        let size = EventCodec.encode(record).count
        records.append(record)
        sizes.append(size)
        total += size
        while total > maxBytes, head < records.count - 1 {
            total -= sizes[head]
            head += 1
        }
        if head > 1024 {  // compact now and then instead of on every drop
            records.removeFirst(head)
            sizes.removeFirst(head)
            head = 0
        }
    }

    /// The records at or after `since` (milliseconds since the epoch), oldest first.
    public func since(_ since: Int64?) -> ArraySlice<EventRecord> {
        let live = records[head...]
        guard let since else { return live }
        return live.drop { $0.time < since }
    }
}

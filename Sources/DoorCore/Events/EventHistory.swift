/// The daemon's in-memory copy of the history, so `log` and `who` are answered at once and
/// include records the writer thread has not yet made durable. It rotates exactly as
/// the history files do (by the same encoded sizes), so it holds what the two files hold and
/// `log` shows the same before and after a restart.
public struct EventHistory: Sendable {
    /// 256 KiB a file: at ~120 bytes a record, the last 2,100 to 4,300 records are kept:
    /// months of a family's comings and goings, or a day of a few thousand requests.
    public static let defaultMaxBytesPerFile = 256 * 1024

    public let maxBytesPerFile: Int
    private var records: [EventRecord] = []
    private var head = 0
    /// Records of the older file (after `head`), then of the current one.
    private var olderCount = 0
    private var currentCount = 0
    private var currentBytes = 0

    /// Starts from what the files hold: FILE.1's records, FILE's records and FILE's size.
    public init(maxBytesPerFile: Int = EventHistory.defaultMaxBytesPerFile, older: [EventRecord] = [],
                current: [EventRecord] = [], currentBytes: Int = 0) {
        self.maxBytesPerFile = maxBytesPerFile
        records = older + current
        olderCount = older.count
        currentCount = current.count
        self.currentBytes = currentBytes
    }

    public mutating func append(_ record: EventRecord) {
        let size = EventCodec.encode(record).count
        if currentBytes > 0, currentBytes + size > maxBytesPerFile {
            head += olderCount
            olderCount = currentCount
            currentCount = 0
            currentBytes = 0
        }
        records.append(record)
        currentCount += 1
        currentBytes += size
        if head > 4096 {  // compact now and then instead of on every rotation
            records.removeFirst(head)
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

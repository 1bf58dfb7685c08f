/// The owner's history in two parts that cannot crowd each other out: what changed the door
/// or the table (`kept`: real presses, PIN changes), and whatever can repeat at will
/// (`attempts`: wrong PINs, refused requests, holds, warnings, faults; see
/// `EventRecord.Importance`). Each part has its own bound, so no flood by any PIN and no
/// chattering switch can rotate an opening out of `log` and `who`; `since` shows both,
/// merged by time.
public struct EventLog: Sendable {
    public private(set) var kept: EventHistory
    public private(set) var attempts: EventHistory

    public init(kept: EventHistory = EventHistory(), attempts: EventHistory = EventHistory()) {
        self.kept = kept
        self.attempts = attempts
    }

    public mutating func append(_ record: EventRecord) {
        switch record.importance {
        case .kept: kept.append(record)
        case .attempt: attempts.append(record)
        }
    }

    /// Both parts' records at or after `since` (ms since the epoch), oldest first.
    public func since(_ since: Int64?) -> [EventRecord] {
        let a = kept.since(since), b = attempts.since(since)
        var out: [EventRecord] = []
        out.reserveCapacity(a.count + b.count)
        var i = a.startIndex, j = b.startIndex
        while i < a.endIndex || j < b.endIndex {
            if j == b.endIndex || (i < a.endIndex && a[i].time <= b[j].time) {
                out.append(a[i]); i += 1
            } else {
                out.append(b[j]); j += 1
            }
        }
        return out
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// One thing that happened at the garage, for the owner's history (`garage-pins log`, `who`):
/// when (wall clock), what, from where, and which slot, by label. Never a PIN.
public struct EventRecord: Equatable, Sendable {
    /// What happened. Requests that only read (status, list, log) are not events.
    public enum Kind: String, Sendable, CaseIterable {
        case start, stop
        case open, close
        case autoClose = "auto-close"
        case add, edit, delete, label
        case wrongPIN = "wrong-pin"
        case lockout
    }

    /// Milliseconds since the Unix epoch (CLOCK_REALTIME): shown in local time.
    public var time: Int64
    public var kind: Kind
    /// "bluetooth AA:BB:...", "local uid=1000", or "garaged" for the daemon's own events.
    public var source: String
    public var slot: Int?
    public var label: String?
    /// The result or the particulars: "OK", "ERR BUSY", "pressed", "30 s", "pid 1234".
    public var detail: String?

    public init(time: Int64, kind: Kind, source: String, slot: Int? = nil, label: String? = nil,
                detail: String? = nil) {
        self.time = time
        self.kind = kind
        self.source = source
        self.slot = slot
        self.label = label
        self.detail = detail
    }

    /// The record as the socket and `--json` carry it.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("time", .number(time)), ("kind", .string(kind.rawValue)),
                                              ("source", .string(source))]
        if let slot { members.append(("slot", .number(Int64(slot)))) }
        if let label { members.append(("label", .string(label))) }
        if let detail { members.append(("detail", .string(detail))) }
        return .object(members)
    }

    /// The inverse of `json`; nil for anything that is not a record.
    public init?(json: JSONValue) {
        guard let time = json["time"]?.intValue, let kind = json["kind"]?.stringValue.flatMap(Kind.init),
              let source = json["source"]?.stringValue else { return nil }
        self.init(time: time, kind: kind, source: source, slot: json["slot"]?.intValue.map { Int($0) },
                  label: json["label"]?.stringValue, detail: json["detail"]?.stringValue)
    }

    /// Wall-clock now, in milliseconds since the epoch.
    public static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec / 1_000_000)
    }
}

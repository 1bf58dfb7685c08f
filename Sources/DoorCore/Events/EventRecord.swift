/// One thing that happened at the garage, for the owner's history (`garage-pins log`, `who`):
/// when (wall clock), what, from where, and which slot, by label. Never a PIN.
public struct EventRecord: Equatable, Sendable {
    /// What happened. Requests that only read (status, list, log) are not events.
    public enum Kind: String, Sendable, CaseIterable {
        case start, stop
        case open, close
        case autoClose = "auto-close"
        case add, edit, delete, label
        /// The owner limited a PIN to some doors, or let it use every door again.
        case doors
        case wrongPIN = "wrong-pin"
        case lockout
        /// The owner cleared a lockout.
        case unlock
        /// A request that waited too long to be judged, refused (`ERR STALE`).
        case stale
        /// The door moved with no press of garaged's to explain it (its remote, the wall
        /// button, a hand), or stopped halfway.
        case door
        case fault
        case warning
        case leftOpen = "left-open"
        case hold
        case light
        case closeAfter = "close-after"
        /// A stop request (Home Assistant's STOP).
        case halt
        /// A phone bonded, or the owner unpaired one (`--ble-security paired`); a HomeKit
        /// controller paired, or an admin added or removed one.
        case pair, unpair
        /// A wrong HomeKit setup code (pair-setup's proof failed).
        case wrongSetupCode = "wrong-setup-code"
        /// The owner forgot every HomeKit pairing (`garage-pins homekit reset`).
        case homekitReset = "homekit-reset"
        /// Someone locked or unlocked the opener's remotes and keypads (`garage-pins remotes`).
        case remotes
    }

    /// Which part of the history a record belongs to. What changed the door or the table
    /// (real presses, PIN changes, starts and stops, unlocks, pairings) is `kept`: it has a
    /// part of the history of its own that nothing repeatable can push out, so a real press
    /// outlives any noise. Everything that can repeat at will is an `attempt`, summarised per
    /// burst and kept in a part of its own: what a stranger or a guest can repeat (wrong PINs and
    /// setup codes,
    /// lockouts, stale or refused requests, opens that pressed nothing, holds, the light) and
    /// what the door reports over and over (warnings and their cancelling, faults of a
    /// chattering switch, a door moved by hand, "left open"). A lock of the opener's remotes is
    /// kept only when it changed the lock (a repeat of it is an attempt).
    public enum Importance: String, Sendable {
        case kept, attempt
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
    /// For a burst's summary: how many more such events there were, and over how many seconds.
    public var count: Int?
    public var spanSeconds: Int?
    /// The door it is about (`[door NAME]`), with several doors; nil with one.
    public var door: String?

    public init(time: Int64, kind: Kind, source: String, slot: Int? = nil, label: String? = nil,
                detail: String? = nil, count: Int? = nil, spanSeconds: Int? = nil, door: String? = nil) {
        self.time = time
        self.kind = kind
        self.source = source
        self.slot = slot
        self.label = label
        self.detail = detail
        self.count = count
        self.spanSeconds = spanSeconds
        self.door = door
    }

    public var importance: Importance {
        switch kind {
        case .start, .stop, .autoClose, .unlock, .pair, .unpair, .homekitReset: return .kept
        case .remotes: return detail == EventRecord.remotesChanged(true) || detail == EventRecord.remotesChanged(false) ? .kept : .attempt
        case .open, .close, .halt: return detail?.hasPrefix("pressed") == true ? .kept : .attempt
        case .add, .edit, .delete, .label, .doors, .closeAfter: return detail?.hasPrefix("OK") == true ? .kept : .attempt
        case .wrongPIN, .wrongSetupCode, .lockout, .stale, .door, .light, .hold, .warning, .fault, .leftOpen: return .attempt
        }
    }

    /// The detail of a `remotes` record whose request changed the lock: the only one kept, as
    /// a repeat that changes nothing can be sent at will (`Controller.remotesDetail`).
    public static func remotesChanged(_ locked: Bool) -> String { locked ? "OK: locked" : "OK: unlocked" }

    /// The record as the socket and `--json` carry it.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("time", .number(time)), ("kind", .string(kind.rawValue)),
                                              ("source", .string(source))]
        if let door { members.append(("door", .string(door))) }
        if let slot { members.append(("slot", .number(Int64(slot)))) }
        if let label { members.append(("label", .string(label))) }
        if let detail { members.append(("detail", .string(detail))) }
        if let count { members.append(("count", .number(Int64(count)))) }
        if let spanSeconds { members.append(("span_s", .number(Int64(spanSeconds)))) }
        return .object(members)
    }

    /// The inverse of `json`; nil for anything that is not a record.
    public init?(json: JSONValue) {
        guard let time = json["time"]?.intValue, let kind = json["kind"]?.stringValue.flatMap(Kind.init),
              let source = json["source"]?.stringValue else { return nil }
        self.init(time: time, kind: kind, source: source, slot: json["slot"]?.intValue.map { Int($0) },
                  label: json["label"]?.stringValue, detail: json["detail"]?.stringValue,
                  count: json["count"]?.intValue.map { Int($0) }, spanSeconds: json["span_s"]?.intValue.map { Int($0) },
                  door: json["door"]?.stringValue)
    }
}

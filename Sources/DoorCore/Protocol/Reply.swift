/// One reply record: at most 20 ASCII bytes, so each fits one BLE notification at the
/// default ATT MTU; on the local socket each record ends with LF.
public enum Reply: Equatable, Sendable {
    case ok
    case added(slot: Int)             // OK <slot>
    case listed(count: Int)           // OK <count>, after the entries
    case entry(slot: Int, pin: PIN)   // <slot>=<pin>
    case status(DoorPosition, autoCloseIn: Int?)  // S <STATE> [<seconds>]
    case warning(seconds: Int)        // W <seconds>: the door closes after the warning (pushed)
    case warningOff                   // W OFF: a warned close was called off (pushed)
    case fault(DoorFault)             // F <WHAT>, e.g. F NOT CLOSED (pushed)
    case leftOpen(minutes: Int)       // LEFT OPEN <minutes> (pushed)
    case error(ErrorCode)
    case locked(seconds: Int)         // ERR LOCKED <seconds>
    /// One JSON object on one line: local-socket extensions only, so it may exceed 20 bytes.
    case record(JSONValue)
    /// A pushed record about door `door` (1 the first) of several: `@2:S OPEN`.
    indirect case about(door: Int, Reply)

    public static let maxRecordLength = 20

    public var text: String {
        switch self {
        case .ok: return "OK"
        case .added(let slot): return "OK \(slot)"
        case .listed(let count): return "OK \(count)"
        case .entry(let slot, let pin): return "\(slot)=\(pin.string)"
        case .status(let position, let seconds):
            return seconds.map { "S \(position.rawValue) \($0)" } ?? "S \(position.rawValue)"
        case .warning(let seconds): return "W \(seconds)"
        case .warningOff: return "W OFF"
        case .fault(let f): return "F \(f.rawValue)"
        case .leftOpen(let minutes): return "LEFT OPEN \(minutes)"
        case .error(let code): return "ERR \(code.rawValue)"
        case .locked(let seconds): return "ERR LOCKED \(seconds)"
        case .record(let value): return value.serialized
        case .about(let door, let reply): return "@\(door):\(reply.text)"
        }
    }

    public var bytes: [UInt8] { Array(text.utf8) }

    /// The local socket's record of why a request was refused or did nothing, before its final
    /// record: `{"reason":"..."}`.
    public static func reason(_ words: String) -> Reply { .record(.object([(reasonKey, .string(words))])) }

    /// The one member of a reason record.
    public static let reasonKey = "reason"

    /// For a client reading records as text: the words of a `{"reason":"..."}` record, nil for
    /// any other record.
    public static func reason(in record: String) -> String? {
        guard record.hasPrefix("{\"\(reasonKey)\":"), case .object(let members)? = try? JSONParser.parse(record),
              members.count == 1, members[0].0 == reasonKey else { return nil }
        return members[0].1.stringValue
    }

    /// True for the record that ends an answer (everything but a list entry).
    public var isFinal: Bool {
        switch self {
        case .entry, .record: return false
        case .about(_, let reply): return reply.isFinal
        default: return true
        }
    }

    /// True when the request was refused.
    public var isError: Bool {
        switch self {
        case .error, .locked: return true
        case .about(_, let reply): return reply.isError
        default: return false
        }
    }

    /// For a client reading records as text: true when `record` is not the end of an answer
    /// (a `<slot>=<pin>` list entry, or a JSON record of a local extension).
    public static func continues(_ record: String) -> Bool {
        if record.hasPrefix("{") { return true }
        guard let eq = record.firstIndex(of: "=") else { return false }
        let slot = record[..<eq]
        return !slot.isEmpty && slot.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// For a client reading records as text: the error an `ERR X [seconds]` record carries,
    /// with its seconds for `ERR LOCKED`; nil for anything else.
    public static func error(in record: String) -> (code: ErrorCode, seconds: Int?)? {
        let parts = record.split(separator: " ")
        guard parts.count >= 2, parts[0] == "ERR", let code = ErrorCode(rawValue: String(parts[1])) else { return nil }
        return (code, parts.count > 2 ? Int(parts[2]) : nil)
    }
}

/// One reply record: at most 20 ASCII bytes, so each fits one BLE notification at the
/// default ATT MTU; on the local socket each record ends with LF.
public enum Reply: Equatable, Sendable {
    case ok
    case added(slot: Int)             // OK <slot>
    case listed(count: Int)           // OK <count>, after the entries
    case entry(slot: Int, pin: PIN)   // <slot>=<pin>
    case status(DoorPosition, autoCloseIn: Int?)  // S <STATE> [<seconds>]
    case error(ErrorCode)
    case locked(seconds: Int)         // ERR LOCKED <seconds>
    /// One JSON object on one line: local-socket extensions only, so it may exceed 20 bytes.
    case record(JSONValue)

    public static let maxRecordLength = 20

    public var text: String {
        switch self {
        case .ok: return "OK"
        case .added(let slot): return "OK \(slot)"
        case .listed(let count): return "OK \(count)"
        case .entry(let slot, let pin): return "\(slot)=\(pin.string)"
        case .status(let position, let seconds):
            return seconds.map { "S \(position.rawValue) \($0)" } ?? "S \(position.rawValue)"
        case .error(let code): return "ERR \(code.rawValue)"
        case .locked(let seconds): return "ERR LOCKED \(seconds)"
        case .record(let value): return value.serialized
        }
    }

    public var bytes: [UInt8] { Array(text.utf8) }

    /// True for the record that ends an answer (everything but a list entry).
    public var isFinal: Bool {
        switch self {
        case .entry, .record: return false
        default: return true
        }
    }

    /// True when the request was refused.
    public var isError: Bool {
        switch self {
        case .error, .locked: return true
        default: return false
        }
    }
}

/// What a request asks for, once its bytes are understood (the book's rxCallback switch).
public enum Command: Equatable, Sendable {
    case open          // O=1
    case close         // O=0 (extension)
    case status        // S (extension)
    case list          // P
    case add(PIN)      // A<pin>
    case edit(slot: Int, pin: PIN)  // E<index><pin>
    case delete(slot: Int)          // D<index>
    case local(LocalCommand)        // L<verb> ... (local socket only, extension)

    /// Only the master PIN (slot 0) may manage the table.
    public var needsMaster: Bool {
        switch self {
        case .open, .close, .status: return false
        case .list, .add, .edit, .delete: return true
        case .local(let c): return c.needsMaster
        }
    }

    /// A short name for log lines (never carries a PIN).
    public var name: String {
        switch self {
        case .open: return "open"
        case .close: return "close"
        case .status: return "status"
        case .list: return "list"
        case .add: return "add"
        case .edit(let slot, _): return "edit \(slot)"
        case .delete(let slot): return "delete \(slot)"
        case .local(let c): return c.name
        }
    }
}

/// One decoded request: who claims to ask (the PIN) and what they ask for.
public struct Request: Equatable, Sendable {
    public var pin: PIN
    public var command: Command

    public init(pin: PIN, command: Command) {
        self.pin = pin
        self.command = command
    }
}

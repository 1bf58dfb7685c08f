/// What a request asks for, once its bytes are understood (the book's rxCallback switch).
public enum Command: Equatable, Sendable {
    case open          // O=1
    case close         // O=0 (extension)
    case status        // S (extension)
    case list          // P
    case add(PIN)      // A<pin>
    case edit(slot: Int, pin: PIN)  // E<index><pin>
    case delete(slot: Int)          // D<index>
    case hold(minutes: Int)         // H=<minutes> (extension): no auto-close for that long; 0 ends it
    case light(on: Bool)            // L=1 / L=0 (extension)
    case closeAfter(seconds: Int)   // C=<seconds> (extension): the closing interval; 0 = off
    case local(LocalCommand)        // L<verb> ... (local socket only, extension)

    /// Only the master PIN (slot 0) may manage the table.
    public var needsMaster: Bool {
        switch self {
        case .open, .close, .status, .hold, .light: return false
        case .list, .add, .edit, .delete, .closeAfter: return true
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
        case .hold(let minutes): return "hold \(minutes)"
        case .light(let on): return on ? "light on" : "light off"
        case .closeAfter(let seconds): return "close-after \(seconds)"
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

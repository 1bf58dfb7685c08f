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

    /// True for a command about one door (`<PIN>@<door>:` may name which); the table's
    /// commands and the local extensions are about none, but for `Lremotes`.
    public var isAboutADoor: Bool {
        switch self {
        case .open, .close, .status, .hold, .light, .closeAfter: return true
        case .list, .add, .edit, .delete: return false
        case .local(let c): return c.isAboutADoor
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
    /// The door it is about (`<PIN>@<door>:<command>`); nil: the first, which the book's
    /// requests mean.
    public var door: DoorChoice?

    public init(pin: PIN, command: Command, door: DoorChoice? = nil) {
        self.pin = pin
        self.command = command
        self.door = door
    }
}

/// A door named in a request: by its number (1 the first) or its name in the config.
public enum DoorChoice: Equatable, Sendable, CustomStringConvertible {
    case number(Int)
    case name(String)

    /// The longest door name (`[a-z0-9-]{1,16}`).
    public static let maxLength = 16

    /// Digits are a number, `[a-z0-9-]` a name; nil for anything else.
    public init?<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        guard (1...DoorChoice.maxLength).contains(bytes.count) else { return nil }
        if bytes.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            guard bytes.count <= 2, let n = Int(String(decoding: bytes, as: UTF8.self)) else { return nil }
            self = .number(n)
            return
        }
        let lower = UInt8(ascii: "a")...UInt8(ascii: "z"), digit = UInt8(ascii: "0")...UInt8(ascii: "9")
        guard bytes.allSatisfy({ lower.contains($0) || digit.contains($0) || $0 == UInt8(ascii: "-") }) else { return nil }
        self = .name(String(decoding: bytes, as: UTF8.self))
    }

    public var description: String {
        switch self {
        case .number(let n): return String(n)
        case .name(let name): return name
        }
    }
}

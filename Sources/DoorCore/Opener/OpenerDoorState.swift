/// Where an opener says its door is: a Security+ 2.0 STATUS's nibble (`init(nibble:)`), or a 1.0
/// answer to 0x38 (`SecPlus1Wire.doorState`). The opener's
/// word, not a sensor's: garaged's own switches, when wired, are read beside it.
public enum OpenerDoorState: UInt8, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case unknown = 0
    case open = 1
    case closed = 2
    case stopped = 3
    case opening = 4
    case closing = 5

    /// The state a STATUS nibble names; 6 to 15 name none and read as unknown.
    public init(nibble: UInt8) { self = OpenerDoorState(rawValue: nibble) ?? .unknown }

    public var description: String {
        switch self {
        case .unknown: return "unknown"
        case .open: return "open"
        case .closed: return "closed"
        case .stopped: return "stopped"
        case .opening: return "opening"
        case .closing: return "closing"
        }
    }
}

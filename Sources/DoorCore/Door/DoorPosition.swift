/// Where the door is. With position sensors this is what they say (and, with one sensor,
/// what follows from it and the travel time); without, it is what the daemon believes from
/// its own presses and the travel time.
public enum DoorPosition: String, Sendable, CaseIterable {
    case closed = "CLOSED"
    case opening = "OPENING"
    case open = "OPEN"
    case closing = "CLOSING"
    /// The door left a limit and reached neither within the travel time (stopped halfway,
    /// reversed onto an obstacle and stopped), or where it is is not known (at start with a
    /// sensor that reads neither end).
    case stopped = "STOPPED"
}

extension DoorPosition {
    /// The end this position is at or moving to; nil for STOPPED, which is headed nowhere.
    public var heading: DoorPosition? {
        switch self {
        case .open, .opening: return .open
        case .closed, .closing: return .closed
        case .stopped: return nil
        }
    }
}

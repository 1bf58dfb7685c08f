/// Where the daemon believes the door is. Without a sensor this is belief, not fact: a push
/// button only toggles, so the daemon tracks each press and the travel time that follows.
public enum DoorPosition: String, Sendable, CaseIterable {
    case closed = "CLOSED"
    case opening = "OPENING"
    case open = "OPEN"
    case closing = "CLOSING"
}

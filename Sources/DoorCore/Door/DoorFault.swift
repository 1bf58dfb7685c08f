/// Something that went wrong with the door, as the daemon can tell: reported (status, log,
/// history, a notification), never worked around. The opener's own obstruction reversal stays
/// in charge; garaged only refuses to try again blindly.
public enum DoorFault: String, Sendable, Equatable {
    /// A press, and the door never left the end it was at within the travel time.
    case didNotMove = "NOT MOVED"
    /// An open press, and the door did not reach OPEN within the travel time.
    case didNotOpen = "NOT OPENED"
    /// A close press, and the door did not reach CLOSED within the travel time (an obstacle,
    /// the opener reversed it). An automatic close is not tried again until it is seen closed.
    case didNotClose = "NOT CLOSED"
    /// Both limit switches report their end at once: a wiring or sensor fault.
    case sensors = "SENSORS"
    /// The relay stayed energised longer than the press and its margin.
    case relay = "RELAY"
    /// The opener on its own wire stopped answering (`opener-silent`): nothing moves the door
    /// from here until it answers again.
    case openerSilent = "OPENER SILENT"
    /// garaged cannot speak to the opener (its kept codes damaged, its device gone, no rolling
    /// code reservable): its status and the log say why; nothing moves the door until it can.
    case openerOff = "OPENER OFF"

    /// In words, for the log and `garage-pins status`.
    public var explanation: String {
        switch self {
        case .didNotMove: return "the door did not leave its end after a press (is the relay wired to the opener? is the opener locked out?)"
        case .didNotOpen: return "the door did not reach OPEN within the travel time after an open press"
        case .didNotClose: return "the door did not reach CLOSED within the travel time after a close press (an obstacle? the opener reversed it); automatic closing waits until it is seen closed"
        case .sensors: return "both position switches report their end at once: check their wiring"
        case .relay: return "the relay stayed energised longer than the press and its margin"
        case .openerSilent: return "the opener does not answer on its wire: check the wiring, the level circuit and the opener's power; garaged asks again and carries on by itself when it answers"
        case .openerOff: return "garaged cannot speak to the opener (its log's opener-off, opener-device-gone or opener-codes-failed line says why, and a refused press says it too)"
        }
    }
}

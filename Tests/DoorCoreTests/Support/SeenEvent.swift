@testable import DoorCore

/// A door event as tests compare whole sequences of them: a press by its reason alone (its
/// permit's number is the relay's replay guard, not part of what was decided).
enum Seen: Equatable {
    case press(Door.Press)
    case moved(DoorPosition, bySomeoneElse: Bool)
    case warning(on: Bool)
    case pressWarned(Door.Press)
    case pressCancelled(Door.Press, String)
    case light(on: Bool)
    case fault(DoorFault)
    case leftOpen(Duration)
    case holdEnded
    case remotesLock(Bool)

    init(_ e: Door.Event) {
        switch e {
        case .press(let p): self = .press(p.reason)
        case .moved(let p, let by, _): self = .moved(p, bySomeoneElse: by)
        case .warning(let on): self = .warning(on: on)
        case .pressWarned(let p): self = .pressWarned(p)
        case .pressCancelled(let p, let why): self = .pressCancelled(p, why)
        case .light(let on): self = .light(on: on)
        case .fault(let f): self = .fault(f)
        case .leftOpen(let d): self = .leftOpen(d)
        case .holdEnded: self = .holdEnded
        case .remotesLock(let locked): self = .remotesLock(locked)
        }
    }
}

/// The events as tests compare them.
func seen(_ events: [Door.Event]) -> [Seen] { events.map(Seen.init) }

/// The reasons of the presses among the events.
func pressed(_ events: [Door.Event]) -> [Door.Press] { events.presses.map(\.reason) }

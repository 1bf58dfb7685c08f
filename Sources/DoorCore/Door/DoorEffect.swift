/// What the door wants done to its parts, said as data with where it goes: the daemon's loop
/// carries each to the drive or the output it names and decides nothing about how (the door's
/// `DoorCapabilities` said it once). A press's release is the drive's own (the relay's pulse,
/// the opener's answer), which the door is told of (`Controller.pressEnded`).
public enum DoorEffect: Equatable, Sendable {
    /// Press: the permit the door's drive takes.
    case press(PressPermit)
    /// The warning on or off, shown by the wired `warn` output or by the opener's light flashing.
    case warning(on: Bool, by: DoorCapabilities.Warning)
    /// The light on or off: a wired output, or the opener's own (asked on its wire).
    case light(on: Bool, by: DoorCapabilities.Source)
    /// The opener's remotes and keypads locked (true) or unlocked.
    case remotesLock(Bool)
}

extension Door {
    /// What `event` asks of the door's parts, and which part carries it; nil for an event that
    /// only reports (a move, a fault), or a light the door has none of.
    public func effect(of event: Event) -> DoorEffect? {
        switch event {
        case .press(let permit): return .press(permit)
        // A warning without a warning part (none wired) goes to the output, which has no line:
        // it counts as shown, as it always did.
        case .warning(let on): return .warning(on: on, by: capabilities.warning ?? .output)
        case .light(let on): return capabilities.light.map { .light(on: on, by: $0) }
        case .remotesLock(let locked): return .remotesLock(locked)
        case .moved, .pressWarned, .pressCancelled, .fault, .leftOpen, .holdEnded: return nil
        }
    }
}

import DoorCore

/// What moves one door: it carries out a permit the door's gate issued, as its kind of opener
/// needs (a relay's pulse across the wall-button terminals, for which every action is the same
/// press; an explicit open, close or stop on an opener's own wire), and tells the loop when it is
/// done through the loop's inbox. It decides nothing: whether the door moves is the gate's alone,
/// and a drive refuses any permit that is not its door's or comes while its last is under way.
protocol DoorDrive: Service, AnyObject, Sendable {
    /// The door it drives (`Door.index`).
    var door: Int { get }
    /// Starts the permit's action on the caller's thread and returns at once; false when it
    /// cannot (another door's permit, one under way, stopping): the loop then tells the door
    /// the press is over, so it never waits for a release that will not come.
    func carryOut(_ permit: PressPermit) -> Bool
    /// Whether the drive switches the door's light itself (an opener's own light), rather than
    /// a wired output.
    var switchesLight: Bool { get }
    /// Asks the opener to switch its light or lock its remotes; false when the drive has no
    /// such thing (a relay) or cannot send now. The opener's STATUS confirms it.
    func ask(_ setting: OpenerSetting) -> Bool
}

extension DoorDrive {
    var switchesLight: Bool { false }
    func ask(_ setting: OpenerSetting) -> Bool { false }
}

/// A setting of the opener's own that garaged can change on its wire.
enum OpenerSetting: Equatable, Sendable {
    case light(Bool)
    case remotesLocked(Bool)
    /// The warning on the opener's own light: flashing (at least once a second) until it is
    /// turned off, when the light is left as it was.
    case flashing(Bool)
}

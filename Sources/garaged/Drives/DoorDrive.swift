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
    /// The same, for a drive that may have to wait before the press is out (an opener's wire
    /// busy): a press not written by `deadline` is never written, and `serve` says so.
    func carryOut(_ permit: PressPermit, deadline: Instant) -> Bool
    /// Asks the opener to switch its light, lock its remotes or flash its light as the warning;
    /// false when the drive has no such thing (a relay) or cannot send now. What was written is
    /// confirmed by `serve` (the warning's first flash), and the opener's STATUS confirms the rest.
    func ask(_ setting: OpenerSetting) -> Bool
    /// The descriptor the loop polls for the drive (an opener's wire); nil for none.
    var pollFD: Int32? { get }
    /// When the loop must call `serve` even if nothing was read.
    var nextWake: Instant? { get }
    /// On the loop's thread: reads what is waiting and writes what is due; what the door is to
    /// be told, in order.
    func serve() -> [OpenerEvent]
}

extension DoorDrive {
    func carryOut(_ permit: PressPermit, deadline: Instant) -> Bool { carryOut(permit) }
    func ask(_ setting: OpenerSetting) -> Bool { false }
    var pollFD: Int32? { nil }
    var nextWake: Instant? { nil }
    func serve() -> [OpenerEvent] { [] }
}

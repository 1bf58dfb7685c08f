/// A kind of opener garaged speaks to on its own wire, and which of the opener's own parts it
/// tells and takes: said once per protocol, so a door's `DoorCapabilities` follow from it.
public struct OpenerKind: Equatable, Sendable {
    /// The status record's `protocol`: `secplus2`.
    public let id: String
    /// For people: "Security+ 2.0".
    public let title: String
    /// Its light, switched on its wire and reported.
    public let light: Bool
    /// The lock of its radio remotes and keypads.
    public let remotesLock: Bool
    /// Its own motion sensor.
    public let motion: Bool
    /// Its photo-eyes, reported as the door's obstruction.
    public let obstruction: Bool
    /// Its count of openings.
    public let openings: Bool
    /// Its backup battery's state.
    public let battery: Bool

    public init(id: String, title: String, light: Bool, remotesLock: Bool, motion: Bool, obstruction: Bool, openings: Bool, battery: Bool) {
        self.id = id
        self.title = title
        self.light = light
        self.remotesLock = remotesLock
        self.motion = motion
        self.obstruction = obstruction
        self.openings = openings
        self.battery = battery
    }

    /// Security+ 2.0: STATUS (the door, light, lock, photo-eyes), MOTION, OPENINGS and BATTERY.
    public static let secPlus2 = OpenerKind(id: "secplus2", title: "Security+ 2.0", light: true, remotesLock: true, motion: true,
                                            obstruction: true, openings: true, battery: true)
    /// Security+ 1.0: the door, light, lock and photo-eyes a wall panel polls; no motion sensor,
    /// no count of openings, no battery on its wire.
    public static let secPlus1 = OpenerKind(id: "secplus1", title: "Security+ 1.0", light: true, remotesLock: true, motion: false,
                                            obstruction: true, openings: false, battery: false)
}

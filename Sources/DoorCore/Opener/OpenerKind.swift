/// A kind of opener garaged speaks to on its own wire, and which of the opener's own parts it
/// tells and takes: said once per protocol, as `DoorCapabilities.Part`s, so a door's
/// `DoorCapabilities` follow from it.
public struct OpenerKind: Equatable, Sendable {
    /// The status record's `protocol`: `secplus2`.
    public let id: String
    /// For people: "Security+ 2.0".
    public let title: String
    /// The opener's own parts on its wire (never `.warning`: that is the door's, from its settings).
    public let parts: Set<DoorCapabilities.Part>

    public init(id: String, title: String, parts: Set<DoorCapabilities.Part>) {
        self.id = id
        self.title = title
        self.parts = parts.subtracting([.warning])
    }

    /// Whether its wire tells or takes `part`.
    public func has(_ part: DoorCapabilities.Part) -> Bool { parts.contains(part) }

    /// Security+ 2.0: STATUS (the door, light, lock, photo-eyes), MOTION, OPENINGS and BATTERY.
    public static let secPlus2 = OpenerKind(id: "secplus2", title: "Security+ 2.0",
                                            parts: [.light, .remotesLock, .motion, .obstruction, .openings, .battery])
    /// Security+ 1.0: the door, light, lock and photo-eyes a wall panel polls; no motion sensor,
    /// no count of openings, no battery on its wire.
    public static let secPlus1 = OpenerKind(id: "secplus1", title: "Security+ 1.0", parts: [.light, .remotesLock, .obstruction])
    /// `opener = auto:DEVICE`: what both Security+ wires have in common, whatever a search
    /// finds, so a door's parts never change with it (docs/decisions.md).
    public static let auto = OpenerKind(id: "auto", title: "Security+ (2.0 or 1.0, found by auto)",
                                        parts: secPlus2.parts.intersection(secPlus1.parts))
    /// The kinds a search can find, by their `id`.
    public static func named(_ id: String) -> OpenerKind? { [secPlus2, secPlus1].first { $0.id == id } }
}

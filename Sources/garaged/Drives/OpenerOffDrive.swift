import DoorCore

/// The drive of a door whose opener garaged cannot speak to safely (its kept rolling codes are
/// damaged: a code could be sent twice): it sends nothing, tells the door once at start why, so
/// the gate refuses every press saying so, and refuses any permit. The other doors and every
/// channel serve as usual.
final class OpenerOffDrive: DoorDrive, @unchecked Sendable {
    let door: Int
    let name: String
    private let why: String
    private let log: Logger
    private let doorField: [(String, String)]
    /// Whether the door was told (the first `serve`, on the loop's first turn).
    private var told = false

    init(door: Int, name: String?, why: String, log: Logger) {
        self.door = door
        self.why = why
        self.log = log
        doorField = name.map { [("door", $0)] } ?? []
        self.name = "opener" + (door == 0 ? "" : "-\(door + 1)")
    }

    func start() {}
    func stop() -> Bool { true }

    func carryOut(_ permit: PressPermit) -> Bool {
        log.warning("press-refused", doorField + [("reason", permit.reason.rawValue), ("why", "the opener is off: \(why)")])
        return false
    }

    var nextWake: Instant? { told ? nil : Instant(nanoseconds: 0) }

    func serve() -> [OpenerEvent] {
        guard !told else { return [] }
        told = true
        return [.note(OpenerNote(.error, "opener-off", [("error", why),
                                                         ("effect", "this door takes no press until garaged restarts with the file mended; every other door and channel serves")])),
                .off(why: why)]
    }
}

/// One door as the controller keeps it: its state machine, who last opened it, and where its
/// own settings are kept (the app's closing interval, a close that failed). The PIN table, the
/// throttle and the labels are the controller's, shared by every door.
public struct DoorUnit: Sendable {
    public internal(set) var door: Door
    /// The door's name in the config (`[door NAME]`); nil for the one door of a config
    /// without sections.
    public let id: String?
    /// Its name for people (`name =`); nil: the id.
    public let name: String?
    /// Who last opened the door with a press (see `DoorStatus.lastOpener`).
    public internal(set) var lastOpener: String?
    /// Who asked for an open that waits for its warning: the opener once it presses.
    var pendingOpener: String?
    let intervalStore: (any ClosingIntervalSaving)?
    let doorStateStore: (any DoorStateSaving)?
    /// What the door-state store was last told of a failed close.
    var closeFailedKept: Bool

    public init(door: Door, id: String? = nil, name: String? = nil, intervalStore: (any ClosingIntervalSaving)? = nil,
                doorStateStore: (any DoorStateSaving)? = nil, keptCloseFailed: Bool = false) {
        self.door = door
        self.id = id
        self.name = name
        self.intervalStore = intervalStore
        self.doorStateStore = doorStateStore
        // What the store holds; the first input brings it in line with the door (a door found
        // closed at start clears a kept failure).
        closeFailedKept = keptCloseFailed
    }
}

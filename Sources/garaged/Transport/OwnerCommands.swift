import DoorCore

/// A part of the daemon that answers the owner's local commands about itself (the Bluetooth
/// pairing agent: `pair`, `phones`, `unpair`; the HomeKit accessory: `homekit`). The loop hands
/// every such query down its list of parts, so it keeps no field for any of them, and a part that
/// is not running is simply not in the list. Called on the door loop's thread; it waits for no
/// other thread's work (at most it saves a file: the bonds, HomeKit's keys on a reset).
protocol OwnerCommands: AnyObject {
    /// The replies to `query`, asked over `connection`, or nil when the query is not this
    /// part's. What the history should keep goes to `record`, now, before the replies are sent.
    func answer(_ query: Controller.LocalQuery, from connection: Connection, record: (EventRecord) -> Void) -> [Reply]?
}

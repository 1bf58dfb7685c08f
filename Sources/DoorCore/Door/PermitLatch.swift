/// The checks every drive makes of a permit before it moves anything, written once: the permit is
/// its door's, none is under way, and it was not carried out before (a replay). A relay's pulse
/// driver and each opener's session hold one.
public struct PermitLatch: Sendable {
    /// The door whose permits it takes (`Door.index`).
    public let door: Int
    /// The number of the last permit taken: one not above it is a replay.
    private var last: UInt64 = 0
    /// A permit taken and not yet released.
    public private(set) var busy = false

    public init(door: Int) { self.door = door }

    /// Takes the permit (busy until `release`); nil when taken, otherwise why not.
    public mutating func take(_ permit: PressPermit) -> String? {
        if permit.door != door { return "the permit is door \(permit.door + 1)'s, not this drive's (door \(door + 1))" }
        if busy { return "a press is already under way" }
        if permit.number <= last { return "permit \(permit.number) was already carried out (a replay)" }
        busy = true
        last = permit.number
        return nil
    }

    /// The press is over (released, or never sent): the next permit may come.
    public mutating func release() { busy = false }
}

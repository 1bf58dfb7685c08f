/// Which doors a PIN may act on, when the owner limited it: a guest gets the garage and not the
/// gate. The EEPROM layout has no room for it, so it lives beside the table like the labels. A
/// slot with no entry reaches every door, and so does the master PIN (slot 0), always.
public struct DoorAccess: Equatable, Sendable {
    /// The doors (their `[door NAME]`) of each limited slot.
    public private(set) var doors: [Int: [String]] = [:]

    /// True when the file could not be read: every PIN but the master is held to no named door
    /// until it is fixed (the safe side: a guest never gains a door).
    public private(set) var unreadable = false

    public init(_ doors: [Int: [String]] = [:]) { self.doors = doors }

    /// What garaged holds when the file cannot be read.
    public static var unreadableFile: DoorAccess {
        var access = DoorAccess()
        access.unreadable = true
        return access
    }

    /// The doors `slot` is limited to; nil: every door.
    public subscript(slot: Int) -> [String]? { doors[slot] }

    /// Limits `slot` to `doors`, or (nil) lets it reach every door again.
    public mutating func set(_ doors: [String]?, for slot: Int) { self.doors[slot] = doors }

    /// Whether `slot` may act on the door named `door`; a door without a name (the one door
    /// of a config without sections) is every PIN's.
    public func allows(_ slot: Int, door: String?) -> Bool {
        guard slot != 0, let door else { return true }
        if unreadable { return false }
        guard let limited = doors[slot] else { return true }
        return limited.contains(door)
    }

    /// Only the entries of slots that hold a PIN: a freed slot's limit is never applied to the
    /// next PIN stored there.
    public func pruned(to table: PinTable) -> DoorAccess {
        var access = DoorAccess(doors.filter { $0.key < table.capacity && table.slots[$0.key] != nil })
        access.unreadable = unreadable
        return access
    }

    /// The sidecar's text: a comment line, then `<slot><TAB><door>,<door>...` per limited slot.
    public func encoded() -> [UInt8] {
        SlotLines.encode(comment: "garaged door access: slot<TAB>the doors its PIN may use, comma-separated; a slot not listed may use every door",
                         doors.mapValues { $0.joined(separator: ",") })
    }

    /// Reads the sidecar; a bad line is refused with its number.
    public static func decode(_ bytes: [UInt8]) throws(LabelsError) -> DoorAccess {
        var access = DoorAccess()
        try SlotLines.decode(bytes, expected: "the doors") { slot, text in
            guard let doors = DoorAccess.names(text) else {
                return "expected door names (a-z, 0-9, '-', at most \(DoorChoice.maxLength)) separated by commas"
            }
            access.set(doors, for: slot)
            return nil
        }
        return access
    }

    /// `a,b` as door names, in order, without repeats; nil when one is not a door's name.
    public static func names(_ text: String) -> [String]? {
        var names: [String] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard case .name(let name)? = DoorChoice(Array(part.utf8)) else { return nil }
            if !names.contains(name) { names.append(name) }
        }
        return names.isEmpty ? nil : names
    }
}

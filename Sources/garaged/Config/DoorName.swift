import DoorCore

/// The rule for a door's name in `[door NAME]` and `--door.NAME.KEY`: it travels in topics,
/// file names and commands, so it is short, lower-case and plain.
enum DoorName {
    /// Relay boards come with up to 8 channels; more doors than that is a mistake in the file.
    static let maxDoors = 8
    /// What is wrong with `name` as a door's name, or nil when nothing is. The grammar is the
    /// protocol's (`DoorChoice`), so every name in the config can be named in a request.
    static func problem(_ name: String) -> String? {
        if !name.isEmpty, name.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            return "'\(name)' is not a door name: digits alone are a door's number in requests (@2:), so give it a letter, e.g. door-\(name)"
        }
        guard case .name? = DoorChoice(Array(name.utf8)) else {
            return "'\(name)' is not a door name: 1 to \(DoorChoice.maxLength) of a-z, 0-9 and '-' (e.g. left, gate-2)"
        }
        return nil
    }
}

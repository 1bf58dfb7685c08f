/// The rule for a door's name in `[door NAME]` and `--door.NAME.KEY`: it travels in topics,
/// file names and commands, so it is short, lower-case and plain.
enum DoorName {
    /// Relay boards come with up to 8 channels; more doors than that is a mistake in the file.
    static let maxDoors = 8
    static let maxLength = 16

    /// What is wrong with `name` as a door's name, or nil when nothing is.
    static func problem(_ name: String) -> String? {
        let allowed = name.utf8.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-") }
        guard !name.isEmpty, name.utf8.count <= maxLength, allowed else {
            return "'\(name)' is not a door name: 1 to \(maxLength) of a-z, 0-9 and '-' (e.g. left, gate-2)"
        }
        return nil
    }
}

/// Which settings belong to all doors and which to each door, from the file's `[door NAME]`
/// sections and the `--door.NAME.KEY` flags. Without either there is one door, set at the top
/// as before doors had sections; with them, a door's own setting at the top is refused.
enum DoorSections {
    /// One door's given settings, before they are checked.
    struct Door {
        /// The section's name; nil for the one door of a file without sections.
        let name: String?
        /// Where the door was declared: `garaged.conf:12` or `--door.gate.relay`.
        let origin: String?
        var given: [String: SettingValues.Given]
    }

    /// The settings for all doors (`top`) and each door's, flags over the file.
    static func split(_ commandLine: CommandLineSettings, _ file: ConfigFile?) throws(ConfigError) -> (top: [String: SettingValues.Given], doors: [Door]) {
        typealias Given = SettingValues.Given
        var top: [String: Given] = [:]
        if let file {
            for (key, text) in file.top.values { top[key] = Given(text: text, origin: file.origin(of: key)) }
        }
        for (key, text) in commandLine.top { top[key] = Given(text: text, origin: CommandLineSettings.origin(key, text, door: nil)) }
        let sections = file?.doors ?? []
        guard !sections.isEmpty || !commandLine.doors.isEmpty else {
            return (top, [Door(name: nil, origin: nil, given: top.filter { ConfigFile.doorKeys.contains($0.key) })])
        }
        var doors = sections.map { section in
            Door(name: section.door, origin: "\(file!.path):\(section.line)",
                 given: section.values.reduce(into: [:]) { $0[$1.key] = Given(text: $1.value, origin: file!.origin(of: $1.key, in: section)) })
        }
        // A door's own setting at the top would belong to no door; the file's case is refused
        // where it is read, the flags' here.
        if let (key, given) = top.filter({ ConfigFile.doorKeys.contains($0.key) }).min(by: { $0.key < $1.key }) {
            let first = doors.first.map { "[door \($0.name!)] at \($0.origin!)" } ?? "--door.\(commandLine.doors[0].name).*"
            throw ConfigError("\(given.origin): \(key) is a door's own setting, and doors are declared (\(first)); give it for one door: --door.NAME.\(key)")
        }
        for (name, values) in commandLine.doors {
            let index = doors.firstIndex { $0.name == name } ?? {
                doors.append(Door(name: name, origin: "--door.\(name).\(values.keys.sorted()[0])", given: [:]))
                return doors.count - 1
            }()
            guard doors.count <= DoorName.maxDoors else {
                throw ConfigError("--door.\(name).*: door '\(name)' would be door \(doors.count); garaged drives at most \(DoorName.maxDoors) doors")
            }
            for (key, text) in values {
                doors[index].given[key] = Given(text: text, origin: CommandLineSettings.origin(key, text, door: name))
            }
        }
        return (top, doors)
    }
}

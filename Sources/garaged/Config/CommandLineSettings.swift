import DoorCore
/// The settings given on the command line, by the catalog: `--key VALUE`, `--key=VALUE`, and
/// for true/false settings `--key` / `--no-key`. A door's own setting for one of several doors
/// is `--door.NAME.KEY VALUE` (`--door.NAME.no-KEY` for a flag). ArgumentParser hands over what
/// it does not know itself (everything but `--config`, `--print-advertising` and `--help`).
struct CommandLineSettings {
    /// `key: text` for every setting given without a door: all doors' settings, and the one
    /// door's when no door is named.
    private(set) var top: [String: String] = [:]
    /// `key: text` per door named by `--door.NAME.KEY`, in the order first named.
    private(set) var doors: [(name: String, values: [String: String])] = []

    static let doorPrefix = "door."

    /// Reads the arguments; an unknown option, a missing value, a setting given twice, a bad
    /// door name or a setting for all doors given for one is an error that names it.
    init(_ arguments: [String]) throws(ConfigError) {
        let byKey = Dictionary(uniqueKeysWithValues: Catalog.all.map { ($0.key, $0) })
        var i = 0
        var lastFlag: String?
        while i < arguments.count {
            let argument = arguments[i]
            i += 1
            guard argument.hasPrefix("--"), argument.count > 2 else {
                let after = lastFlag.map { " after --\($0), which is on or off and takes no value" } ?? ""
                throw ConfigError("unexpected argument '\(argument)'\(after); settings are given as --KEY VALUE (see garaged --help)")
            }
            lastFlag = nil
            var name = String(argument.dropFirst(2)), value: String?
            if let eq = name.firstIndex(of: "=") {
                value = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            // --door.NAME.KEY: one door's setting.
            var door: String?
            var bare = name
            if name.hasPrefix(CommandLineSettings.doorPrefix) {
                let parts = name.dropFirst(CommandLineSettings.doorPrefix.count).split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2 else {
                    throw ConfigError("--\(name): a door's setting is --door.NAME.KEY, e.g. --door.gate.relay gpiochip0:27")
                }
                if let problem = DoorName.problem(String(parts[0])) { throw ConfigError("--\(name): \(problem)") }
                door = String(parts[0])
                bare = String(parts[1])
            }
            var key = bare
            if byKey[bare] == nil, bare.hasPrefix("no-"), byKey[String(bare.dropFirst(3))]?.isFlag == true, value == nil {
                key = String(bare.dropFirst(3))
                value = "false"
            }
            guard let setting = byKey[key] else {
                let meant = NearestWord.to(bare, among: Catalog.all.map(\.key)).map { " (did you mean --\(door.map { "door.\($0)." } ?? "")\($0)?)" } ?? ""
                throw ConfigError("unknown option --\(name)\(meant); garaged --help lists the settings")
            }
            if let door, !setting.perDoor {
                throw ConfigError("--\(name): \(key) is a setting for all doors, not door \(door)'s; give it as --\(key)")
            }
            let shown = door.map { "\(CommandLineSettings.doorPrefix)\($0).\(key)" } ?? key
            if value == nil {
                if setting.isFlag {
                    value = "true"
                    lastFlag = shown
                } else {
                    guard i < arguments.count else { throw ConfigError("--\(shown) needs a value (\(setting.valueName!))") }
                    value = arguments[i]
                    i += 1
                }
            }
            if let door {
                let index = doors.firstIndex { $0.name == door } ?? {
                    doors.append((door, [:]))
                    return doors.count - 1
                }()
                guard doors[index].values[key] == nil else { throw ConfigError("--\(shown) is given twice") }
                doors[index].values[key] = value
            } else {
                guard top[key] == nil else { throw ConfigError("--\(key) is given twice") }
                top[key] = value
            }
        }
    }

    /// How a setting given here is named in a message: `--pulse-ms 300`, `--door.gate.active-low`.
    static func origin(_ key: String, _ text: String, door: String?) -> String {
        let flag = "--" + (door.map { "\(doorPrefix)\($0)." } ?? "") + key
        let isFlag = Catalog.all.first { $0.key == key }?.isFlag ?? false
        return isFlag ? flag : "\(flag) \(text.isEmpty ? "''" : text)"
    }
}

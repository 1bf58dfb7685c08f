/// The settings given on the command line, by the catalog: `--key VALUE`, `--key=VALUE`, and
/// for true/false settings `--key` / `--no-key`. ArgumentParser hands over what it does not
/// know itself (everything but `--config`, `--print-advertising` and `--help`).
enum CommandLineSettings {
    /// `key: text` for every setting given; an unknown option, a missing value or a setting
    /// given twice is an error that names it.
    static func parse(_ arguments: [String]) throws(ConfigError) -> [String: String] {
        let byKey = Dictionary(uniqueKeysWithValues: Catalog.all.map { ($0.key, $0) })
        var given: [String: String] = [:]
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
            var key = name
            if byKey[name] == nil, name.hasPrefix("no-"), byKey[String(name.dropFirst(3))]?.isFlag == true, value == nil {
                key = String(name.dropFirst(3))
                value = "false"
            }
            guard let setting = byKey[key] else {
                throw ConfigError("unknown option --\(name); garaged --help lists the settings")
            }
            if value == nil {
                if setting.isFlag {
                    value = "true"
                    lastFlag = key
                } else {
                    guard i < arguments.count else { throw ConfigError("--\(key) needs a value (\(setting.valueName!))") }
                    value = arguments[i]
                    i += 1
                }
            }
            guard given[key] == nil else { throw ConfigError("--\(key) is given twice") }
            given[key] = value
        }
        return given
    }
}

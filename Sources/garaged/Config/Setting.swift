/// One setting garaged takes from `--KEY VALUE` on the command line or `KEY = VALUE` in the
/// config file. It is declared once, in `Catalog`; the flag, the config key, the check of the
/// value, the default and the line in `--help` all come from that declaration.
struct Setting<Value: Sendable>: Sendable {
    /// The flag without its dashes, and the config key.
    let key: String
    let help: String
    /// What the value is called in the help (`MS`, `FILE`); nil for a true/false setting,
    /// which is a flag on the command line (`--key`, `--no-key`).
    let valueName: String?
    let defaultValue: Value
    /// The default as the help shows it; nil when there is nothing to show.
    let defaultText: String?
    /// Turns the text given into the value, or says what is wrong with it.
    let decode: @Sendable (String) throws(SettingError) -> Value
    /// True for a door's own setting (its relay, timing, switches, outputs): set per
    /// `[door NAME]` section, or at the top for the one door of a file without sections.
    var perDoor = false
    /// The values a number may take; nil for any other kind of setting.
    var range: ClosedRange<Int>? = nil

    /// The same setting, set for each door on its own.
    var eachDoor: Setting {
        var copy = self
        copy.perDoor = true
        return copy
    }
}

extension Setting where Value == String {
    /// Free text or a path; never empty (an empty socket path would be an abstract socket).
    static func text(_ key: String, _ help: String, value: String, default fallback: String) -> Setting {
        Setting(key: key, help: help, valueName: value, defaultValue: fallback, defaultText: fallback) { $0 }
    }
}

extension Setting where Value == String? {
    /// Text with no default: unset means "none" (or a default the help names in words).
    static func optional(_ key: String, _ help: String, value: String, defaultText: String? = nil) -> Setting {
        Setting(key: key, help: help, valueName: value, defaultValue: nil, defaultText: defaultText) { $0 }
    }
}

extension Setting where Value == Int {
    /// A whole number within `range`; `unit` says what it counts, for the help and the errors.
    static func number(_ key: String, _ help: String, value: String, _ range: ClosedRange<Int>, default fallback: Int,
                       unit: String) -> Setting {
        Setting(key: key, help: help, valueName: value,
                defaultValue: fallback, defaultText: String(fallback), decode: { text throws(SettingError) in
            guard let n = Int(text) else { throw SettingError("'\(text)' is not a whole number (\(unit))") }
            guard range.contains(n) else {
                throw SettingError("must be from \(range.lowerBound) to \(range.upperBound) (\(unit)), not \(n)")
            }
            return n
        }, range: range)
    }
}

extension Setting where Value == Bool {
    /// On or off: `--key` / `--no-key`, or `true`/`false` (yes/no, on/off, 1/0) in the file.
    static func flag(_ key: String, _ help: String, default fallback: Bool) -> Setting {
        Setting(key: key, help: help, valueName: nil, defaultValue: fallback, defaultText: fallback ? "on" : "off") { text throws(SettingError) in
            switch text.lowercased() {
            case "true", "yes", "on", "1": return true
            case "false", "no", "off", "0": return false
            default: throw SettingError("'\(text)' must be true or false")
            }
        }
    }
}

extension Setting {
    /// A value with its own parser (a relay spec, a UUID).
    static func parsed(_ key: String, _ help: String, value: String, default fallback: Value, defaultText: String?,
                       _ decode: @escaping @Sendable (String) throws(SettingError) -> Value) -> Setting {
        Setting(key: key, help: help, valueName: value, defaultValue: fallback, defaultText: defaultText, decode: decode)
    }
}

/// A setting without its value type: what the command line, the config file and `--help` need.
struct AnySetting: Sendable {
    let key: String
    let help: String
    let valueName: String?
    let defaultText: String?
    let decode: @Sendable (String) throws(SettingError) -> any Sendable
    let perDoor: Bool
    let range: ClosedRange<Int>?

    init<V>(_ setting: Setting<V>) {
        key = setting.key
        perDoor = setting.perDoor
        range = setting.range
        help = setting.help
        valueName = setting.valueName
        defaultText = setting.defaultText
        decode = { text throws(SettingError) in try setting.decode(text) }
    }

    var isFlag: Bool { valueName == nil }

    /// The flag as `--help` and the reference show it: `--pulse-ms MS`, `--[no-]active-low`.
    var flag: String { isFlag ? "--[no-]\(key)" : "--\(key) \(valueName!)" }

    /// The values it takes, in words: `50 to 5000`, `on or off`, or what the value is (`SPEC`).
    var values: String {
        if let range { return "\(range.lowerBound) to \(range.upperBound)" }
        return isFlag ? "on or off" : valueName!
    }

    /// The setting's paragraph in `--help`.
    var helpLine: String {
        flag + ": " + (perDoor ? "(per door) " : "") + help + (range.map { " \($0.lowerBound) to \($0.upperBound)" } ?? "")
            + (defaultText.map { " (default \($0))" } ?? "")
    }
}

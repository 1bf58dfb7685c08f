/// The value of every setting, from the command line over the config file over the default,
/// each checked once, at start, with a message that names where it came from. Read by name:
/// `values.pulseMs` is an `Int`, `values.relay` a `RelaySpec`.
@dynamicMemberLookup
struct SettingValues: Sendable {
    private let values: [String: any Sendable]
    /// The keys given on the command line or in the file (the rest are defaults).
    let given: Set<String>

    /// `flags` are `key: text` as the command line gave them.
    init(flags: [String: String], file: ConfigFile?) throws(ConfigError) {
        var values: [String: any Sendable] = [:]
        for setting in Catalog.all {
            let text: String, origin: String
            if let flag = flags[setting.key] {
                (text, origin) = (flag, setting.isFlag ? "--\(setting.key)" : "--\(setting.key) \(flag.isEmpty ? "''" : flag)")
            } else if let fromFile = file?[setting.key] {
                (text, origin) = (fromFile, file!.origin(of: setting.key))
            } else {
                continue
            }
            guard !text.isEmpty else {
                throw ConfigError("\(origin): empty; give a value, or leave it out to keep the default")
            }
            do { values[setting.key] = try setting.decode(text) } catch {
                throw ConfigError("\(origin): \(error.message)")
            }
        }
        self.values = values
        given = Set(values.keys)
    }

    subscript<V>(dynamicMember path: KeyPath<Catalog, Setting<V>>) -> V {
        let setting = Catalog.shared[keyPath: path]
        return values[setting.key] as? V ?? setting.defaultValue
    }

    /// True when the setting was given (not its default).
    func isGiven<V>(_ path: KeyPath<Catalog, Setting<V>>) -> Bool { given.contains(Catalog.shared[keyPath: path].key) }
}

extension Catalog {
    static let shared = Catalog()
}

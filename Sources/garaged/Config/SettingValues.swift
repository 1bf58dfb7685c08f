/// The value of every setting, from the command line over the config file over the default,
/// each checked once, at start, with a message that names where it came from. Read by name:
/// `values.pulseMs` is an `Int`, `values.relay` a `RelaySpec`.
@dynamicMemberLookup
struct SettingValues: Sendable {
    /// One setting's text and where it came from (`--pulse-ms 300`, `garaged.conf:4: pulse-ms = 300`).
    struct Given {
        let text: String
        let origin: String
    }

    private let values: [String: any Sendable]
    /// Where each given setting came from, for messages (the rest are defaults).
    let origins: [String: String]
    /// The keys given on the command line or in the file.
    var given: Set<String> { Set(origins.keys) }

    /// Checks and keeps every setting in `given`, by key.
    init(_ given: [String: Given]) throws(ConfigError) {
        var values: [String: any Sendable] = [:]
        for setting in Catalog.all {
            guard let g = given[setting.key] else { continue }
            guard !g.text.isEmpty else {
                throw ConfigError("\(g.origin): empty; give a value, or leave it out to keep the default")
            }
            do { values[setting.key] = try setting.decode(g.text) } catch {
                throw ConfigError("\(g.origin): \(error.message)")
            }
        }
        self.values = values
        origins = given.mapValues(\.origin)
    }

    subscript<V>(dynamicMember path: KeyPath<Catalog, Setting<V>>) -> V {
        let setting = Catalog.shared[keyPath: path]
        return values[setting.key] as? V ?? setting.defaultValue
    }

    /// True when the setting was given (not its default).
    func isGiven<V>(_ path: KeyPath<Catalog, Setting<V>>) -> Bool { given.contains(Catalog.shared[keyPath: path].key) }

    /// Where the setting came from: its flag or file line, or "the default".
    func origin<V>(of path: KeyPath<Catalog, Setting<V>>) -> String {
        let key = Catalog.shared[keyPath: path].key
        return origins[key] ?? "the default --\(key)"
    }
}

extension Catalog {
    static let shared = Catalog()
}

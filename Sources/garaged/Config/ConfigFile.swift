#if canImport(Glibc)
import Glibc
#endif

/// The config file: one `key = value` per line, `#` starts a comment, keys are the long flag
/// names without dashes (`pulse-ms = 300`). Unknown keys and repeated keys are errors, so a
/// typo never silently leaves a default in force.
struct ConfigFile {
    static let keys: Set<String> = ["pins", "events", "socket", "relay", "active-low", "pulse-ms",
                                    "travel-s", "auto-close-s", "ble", "ble-adapter", "att-socket",
                                    "ble-name", "beacon-uuid", "beacon-major", "beacon-minor",
                                    "beacon-power", "advertising-interval-ms"]

    private(set) var values: [String: String] = [:]
    let path: String

    init(path: String) throws(ConfigError) {
        guard let f = fopen(path, "r") else {
            throw ConfigError("cannot read config file \(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(f) }
        var text: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buf, 1, buf.count, f)
            if n == 0 { break }
            text += buf[0..<n]
        }
        try self.init(path: path, text: String(decoding: text, as: UTF8.self))
    }

    init(path: String, text: String) throws(ConfigError) {
        self.path = path
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let trimmed = line.trimmed
            if trimmed.isEmpty { continue }
            guard let eq = trimmed.firstIndex(of: "=") else {
                throw ConfigError("\(path):\(i + 1): expected `key = value`, got '\(trimmed)'")
            }
            let key = String(trimmed[..<eq]).trimmed
            let value = String(trimmed[trimmed.index(after: eq)...]).trimmed
            guard ConfigFile.keys.contains(key) else {
                throw ConfigError("\(path):\(i + 1): unknown setting '\(key)'; known: \(ConfigFile.keys.sorted().joined(separator: ", "))")
            }
            guard values[key] == nil else {
                throw ConfigError("\(path):\(i + 1): '\(key)' is set twice")
            }
            values[key] = value
        }
    }

    subscript(key: String) -> String? { values[key] }

    func int(_ key: String) throws(ConfigError) -> Int? {
        guard let v = values[key] else { return nil }
        guard let n = Int(v) else { throw ConfigError("\(path): '\(key) = \(v)' is not a whole number") }
        return n
    }

    func bool(_ key: String) throws(ConfigError) -> Bool? {
        guard let v = values[key] else { return nil }
        switch v.lowercased() {
        case "true", "yes", "on", "1": return true
        case "false", "no", "off", "0": return false
        default: throw ConfigError("\(path): '\(key) = \(v)' must be true or false")
        }
    }
}

extension String {
    var trimmed: String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// The config file: one `key = value` per line, keys are the long flag names without dashes
/// (`pulse-ms = 300`). A line starting with `#` is a comment; a value may be written in double
/// quotes to hold a `#` or outer spaces (`ble-name = "Door #2"`). Everything that could
/// silently leave a default in force, or change a value, is an error naming the line and the
/// key: an unknown or repeated key, an empty value, a `#` in an unquoted value (a trailing
/// comment), text that is not UTF-8.
struct ConfigFile {
    /// The keys a file may set: every setting in the catalog.
    static let keys: Set<String> = Set(Catalog.all.map(\.key))
    /// Larger than any config file garaged could mean.
    static let maxBytes = 256 * 1024

    private(set) var values: [String: String] = [:]
    /// The line each key was set on, for messages.
    private var lines: [String: Int] = [:]
    let path: String

    init(path: String) throws(ConfigError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            throw ConfigError("cannot read config file \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
            throw ConfigError("config file \(path) is not a regular file (a directory?); name the file, e.g. --config /etc/garaged.conf")
        }
        guard Int(st.st_size) <= ConfigFile.maxBytes else {
            throw ConfigError("config file \(path) is \(st.st_size) bytes; a config file is a few lines (at most \(ConfigFile.maxBytes) bytes): is it the right file?")
        }
        var text: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fd, &buf, buf.count)
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw ConfigError("cannot read config file \(path): \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            text += buf[0..<n]
        }
        try self.init(path: path, bytes: text)
    }

    init(path: String, text: String) throws(ConfigError) {
        try self.init(path: path, bytes: Array(text.utf8))
    }

    init(path: String, bytes: [UInt8]) throws(ConfigError) {
        self.path = path
        for (i, raw) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            let at = "\(path):\(i + 1)"
            guard let line = String(validating: raw, as: UTF8.self) else {
                throw ConfigError("\(at): the line is not UTF-8 text; save the file as UTF-8")
            }
            let trimmed = line.trimmed
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            guard let eq = trimmed.firstIndex(of: "=") else {
                throw ConfigError("\(at): expected `key = value`, got '\(trimmed)'")
            }
            let key = String(trimmed[..<eq]).trimmed
            var value = String(trimmed[trimmed.index(after: eq)...]).trimmed
            guard ConfigFile.keys.contains(key) else {
                throw ConfigError("\(at): unknown setting '\(key)'; known: \(ConfigFile.keys.sorted().joined(separator: ", "))")
            }
            guard values[key] == nil else {
                throw ConfigError("\(at): '\(key)' is set twice")
            }
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            } else if value.contains("#") {
                throw ConfigError("\(at): '\(key)' has a '#' in its value ('\(value)'); comments go on lines of their own. If the '#' belongs to the value, quote it: \(key) = \"\(value)\"")
            } else if value.contains("\"") {
                throw ConfigError("\(at): '\(key)' has a stray '\"' in its value; quote the whole value or none of it")
            }
            guard !value.isEmpty else {
                throw ConfigError("\(at): '\(key)' has no value; give one, or delete the line to keep the default")
            }
            guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw ConfigError("\(at): '\(key)' has a control character (a tab?) in its value")
            }
            values[key] = value
            lines[key] = i + 1
        }
    }

    subscript(key: String) -> String? { values[key] }

    /// Where `key` was set, for a message: `garaged.conf:12: pulse-ms = 10`.
    func origin(of key: String) -> String {
        "\(path):\(lines[key] ?? 0): \(key) = \(values[key] ?? "")"
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

import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// The config file: one `key = value` per line, keys are the long flag names without dashes
/// (`pulse-ms = 300`). A line starting with `#` is a comment; a value may be written in double
/// quotes to hold a `#` or outer spaces (`ble-name = "Door #2"`). Settings for all doors come
/// first; each `[door NAME]` line then starts a door's own settings (the per-door keys), and a
/// file without one is the one door's, as before sections existed. Everything that could
/// silently leave a default in force, or change a value, is an error naming the line and the
/// key: an unknown or repeated key, an empty value, a `#` in an unquoted value (a trailing
/// comment), text that is not UTF-8, a door's key outside its section.
struct ConfigFile {
    /// The keys a file may set: every setting in the catalog.
    static let keys: Set<String> = Set(Catalog.all.map(\.key))
    /// The keys a `[door NAME]` section may set.
    static let doorKeys: Set<String> = Set(Catalog.all.filter(\.perDoor).map(\.key))
    /// Larger than any config file garaged could mean.
    static let maxBytes = 256 * 1024

    /// One part of the file: the top, or one `[door NAME]` section.
    struct Section {
        /// The door's name; nil for the top of the file.
        let door: String?
        /// The line of the `[door NAME]` header (0 for the top).
        let line: Int
        private(set) var values: [String: String] = [:]
        /// The line each key was set on, for messages.
        private(set) var lines: [String: Int] = [:]

        fileprivate mutating func set(_ key: String, _ value: String, line: Int) {
            values[key] = value
            lines[key] = line
        }
    }

    let path: String
    /// The settings above the first section: all doors', and the one door's without sections.
    private(set) var top = Section(door: nil, line: 0)
    /// The `[door NAME]` sections, in file order: the first is the first door.
    private(set) var doors: [Section] = []

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
            if trimmed.hasPrefix("[") {
                try startSection(trimmed, line: i + 1)
                continue
            }
            guard let eq = trimmed.firstIndex(of: "=") else {
                throw ConfigError("\(at): expected `key = value`, got '\(trimmed)'")
            }
            let key = String(trimmed[..<eq]).trimmed
            var value = String(trimmed[trimmed.index(after: eq)...]).trimmed
            guard ConfigFile.keys.contains(key) else {
                if let meant = NearestWord.to(key, among: Catalog.all.map(\.key)) {
                    throw ConfigError("\(at): unknown setting '\(key)'; did you mean '\(meant)'? (garaged --help lists every setting)")
                }
                throw ConfigError("\(at): unknown setting '\(key)'; known: \(ConfigFile.keys.sorted().joined(separator: ", "))")
            }
            if let door = doors.last?.door, !ConfigFile.doorKeys.contains(key) {
                throw ConfigError("\(at): '\(key)' is a setting for all doors, not door \(door)'s; move it above the first [door] section (line \(doors[0].line))")
            }
            if let before = (doors.last ?? top).lines[key] {
                throw ConfigError("\(at): '\(key)' is set twice\(doors.last.map { " in [door \($0.door!)]" } ?? "") (first on line \(before))")
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
            if doors.isEmpty { top.set(key, value, line: i + 1) } else { doors[doors.count - 1].set(key, value, line: i + 1) }
        }
        // With sections, a door's key at the top would belong to no door (or silently to all).
        if let first = doors.first, let (key, line) = top.lines.filter({ ConfigFile.doorKeys.contains($0.key) }).min(by: { $0.value < $1.value }) {
            throw ConfigError("\(path):\(line): '\(key)' is a door's own setting, but it is outside every [door] section; with sections, each door's settings go in its section (the first is [door \(first.door!)] on line \(first.line))")
        }
    }

    /// A `[door NAME]` line: the start of a door's settings.
    private mutating func startSection(_ header: String, line: Int) throws(ConfigError) {
        let at = "\(path):\(line)"
        let words = header.hasSuffix("]") ? header.dropFirst().dropLast().split(separator: " ", omittingEmptySubsequences: true) : []
        guard words.count == 2, words[0] == "door" else {
            throw ConfigError("\(at): '\(header)' is not a section header; a door's settings start with [door NAME], e.g. [door left]")
        }
        let name = String(words[1])
        if let problem = DoorName.problem(name) { throw ConfigError("\(at): [door \(name)]: \(problem)") }
        if let same = doors.first(where: { $0.door == name }) {
            throw ConfigError("\(at): door '\(name)' is declared twice (first on line \(same.line)); each door needs a name of its own")
        }
        guard doors.count < DoorName.maxDoors else {
            throw ConfigError("\(at): [door \(name)] would be door \(doors.count + 1); garaged drives at most \(DoorName.maxDoors) doors")
        }
        doors.append(Section(door: name, line: line))
    }

    subscript(key: String) -> String? { top.values[key] }

    /// Where `key` was set in `section`, for a message: `garaged.conf:12: pulse-ms = 10`.
    func origin(of key: String, in section: Section? = nil) -> String {
        let s = section ?? top
        return "\(path):\(s.lines[key] ?? 0): \(key) = \(s.values[key] ?? "")"
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

/// The JSON form of a table, its labels and its door limits, for backups and for setting up
/// many Pis with ordinary configuration tools:
/// `{"format":"garaged-pins","version":2,"slots":16,"master":"12345",
///   "pins":[{"slot":1,"pin":"abcde","label":"Alice","doors":["left"]}]}`.
/// A PIN without `doors` may use every door. Version 1 (before door limits) is still read; it
/// cannot say whether a PIN was limited, so its `access` is nil.
/// Written and read with DoorCore's small JSON (no Foundation anywhere in the tools).
public enum TableBackup {
    public static let format = "garaged-pins"
    /// The version written: 2 carries the door limits.
    public static let version: Int64 = 2
    /// Larger than any backup can be: 170 slots, each a PIN, a 32-byte label escaped at worst
    /// (6 bytes a byte) and 8 doors of 16 letters, come to about 70 KiB.
    public static let maxBytes = 128 * 1024

    /// What a backup holds.
    public struct Contents: Equatable, Sendable {
        public var table: PinTable
        public var labels: Labels
        /// Each limited slot's doors; nil for a version 1 backup, which has none to tell.
        public var access: DoorAccess?
    }

    public static func encode(_ table: PinTable, labels: Labels, access: DoorAccess) -> JSONValue {
        let pins: [JSONValue] = table.entries.map { e in
            var m: [(String, JSONValue)] = [("slot", .number(Int64(e.slot))), ("pin", .string(e.pin.string))]
            if let l = labels[e.slot] { m.append(("label", .string(l))) }
            if let doors = access[e.slot] { m.append(("doors", .array(doors.map { .string($0) }))) }
            return .object(m)
        }
        return .object([("format", .string(format)), ("version", .number(version)),
                        ("slots", .number(Int64(table.capacity))), ("master", .string(table.master.string)),
                        ("pins", .array(pins))])
    }

    /// Pretty enough for a diff: one PIN per line.
    public static func text(_ table: PinTable, labels: Labels, access: DoorAccess) -> String {
        guard case .object(let m) = encode(table, labels: labels, access: access) else { return "" }
        var out = "{\n"
        for (i, (k, v)) in m.enumerated() {
            var key = ""
            JSONValue.quote(k, into: &key)
            if case .array(let items) = v {
                out += "  \(key): [\n" + items.map { "    " + $0.serialized }.joined(separator: ",\n") + (items.isEmpty ? "" : "\n") + "  ]"
            } else {
                out += "  \(key): \(v.serialized)"
            }
            out += i == m.count - 1 ? "\n" : ",\n"
        }
        return out + "}\n"
    }

    /// Checks everything before building anything; an error names the field at fault.
    public static func decode(_ text: String) throws(BackupError) -> Contents {
        let doc: JSONValue
        do { doc = try JSONParser.parse(text) } catch { throw .notJSON(error.description) }
        guard doc["format"]?.stringValue == format else {
            throw .field("format", "must be \"\(format)\" (write one with `garage-pins export`)")
        }
        guard let fileVersion = doc["version"]?.intValue, (1...version).contains(fileVersion) else {
            throw .field("version", "must be 1 or \(version) (\(version) keeps the door limits)")
        }
        guard let slots = doc["slots"]?.intValue, (1...Int64(PinTable.maxCapacity)).contains(slots) else {
            throw .field("slots", "must be a whole number from 1 to \(PinTable.maxCapacity)")
        }
        guard let masterText = doc["master"]?.stringValue, let master = PIN(masterText) else {
            throw .field("master", "must be 5 printable ASCII characters without spaces")
        }
        guard let pins = doc["pins"]?.arrayValue else { throw .field("pins", "must be a list (may be empty)") }
        var table: PinTable
        do { table = try PinTable(master: master, capacity: Int(slots)) } catch { throw .field("slots", error.description) }
        var labels = Labels()
        var access: DoorAccess? = fileVersion >= 2 ? DoorAccess() : nil
        for (i, entry) in pins.enumerated() {
            let at = "pins[\(i)]"
            guard let slot = entry["slot"]?.intValue, slot >= 1, slot < slots else {
                throw .field("\(at).slot", "must be a whole number from 1 to \(slots - 1)")
            }
            guard let pinText = entry["pin"]?.stringValue, let pin = PIN(pinText) else {
                throw .field("\(at).pin", "must be 5 printable ASCII characters without spaces")
            }
            do { try table.put(pin, inSlot: Int(slot)) } catch {
                throw .field(at, error == .duplicate ? "PIN is already stored in slot \(table.slot(of: pin) ?? 0)"
                                                     : "slot \(slot) appears twice")
            }
            if let label = entry["label"] {
                guard let name = label.stringValue else { throw .field("\(at).label", "must be a string") }
                if let problem = Labels.problem(with: name) { throw .field("\(at).label", problem) }
                labels.set(name, for: Int(slot))
            }
            if let doors = entry["doors"] {
                guard access != nil else {
                    throw .field("\(at).doors", "needs version \(version): a version 1 backup has no door limits")
                }
                guard let names = doorNames(doors) else {
                    throw .field("\(at).doors", "must be a list of door names (a-z, 0-9, '-', at most \(DoorChoice.maxLength), not digits alone), e.g. [\"left\"]")
                }
                access?.set(names, for: Int(slot))
            }
        }
        return Contents(table: table, labels: labels, access: access)
    }

    /// A `doors` member as door names, in order, without repeats; nil when it is not a
    /// non-empty list of names.
    private static func doorNames(_ value: JSONValue) -> [String]? {
        guard let items = value.arrayValue, !items.isEmpty else { return nil }
        var names: [String] = []
        for item in items {
            guard let text = item.stringValue, case .name(let name)? = DoorChoice(Array(text.utf8)) else { return nil }
            if !names.contains(name) { names.append(name) }
        }
        return names
    }
}

/// Why a backup could not be imported.
public enum BackupError: Error, Equatable, Sendable, CustomStringConvertible {
    case notJSON(String)
    case field(String, String)

    public var description: String {
        switch self {
        case .notJSON(let why): return "not valid JSON: \(why)"
        case .field(let name, let why): return "\(name) \(why)"
        }
    }
}

/// The JSON form of a table and its labels, for backups and for setting up many Pis with
/// ordinary configuration tools:
/// `{"format":"garaged-pins","version":1,"slots":16,"master":"12345",
///   "pins":[{"slot":1,"pin":"abcde","label":"Alice"}]}`.
/// Written and read with DoorCore's small JSON (no Foundation anywhere in the tools).
public enum TableBackup {
    public static let format = "garaged-pins"
    public static let version: Int64 = 1
    /// Larger than any backup can be: 170 slots, each a PIN and a 32-byte label escaped at
    /// worst (6 bytes a byte), come to about 40 KiB.
    public static let maxBytes = 64 * 1024

    public static func encode(_ table: PinTable, labels: Labels) -> JSONValue {
        let pins: [JSONValue] = table.entries.map { e in
            var m: [(String, JSONValue)] = [("slot", .number(Int64(e.slot))), ("pin", .string(e.pin.string))]
            if let l = labels[e.slot] { m.append(("label", .string(l))) }
            return .object(m)
        }
        return .object([("format", .string(format)), ("version", .number(version)),
                        ("slots", .number(Int64(table.capacity))), ("master", .string(table.master.string)),
                        ("pins", .array(pins))])
    }

    /// Pretty enough for a diff: one PIN per line.
    public static func text(_ table: PinTable, labels: Labels) -> String {
        guard case .object(let m) = encode(table, labels: labels) else { return "" }
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
    public static func decode(_ text: String) throws(BackupError) -> (PinTable, Labels) {
        let doc: JSONValue
        do { doc = try JSONParser.parse(text) } catch { throw .notJSON(error.description) }
        guard doc["format"]?.stringValue == format else {
            throw .field("format", "must be \"\(format)\" (write one with `garage-pins export`)")
        }
        guard doc["version"]?.intValue == version else { throw .field("version", "must be \(version)") }
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
        }
        return (table, labels)
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

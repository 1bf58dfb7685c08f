/// Names for PIN slots ("Alice", "cleaner"): the EEPROM layout has no room for them, so they
/// live beside the table. A label is at most 32 UTF-8 bytes of printable text so it fits a
/// socket line and a table column: no control characters (C0, DEL, C1), and none of the
/// invisible characters that reorder or hide text (bidi overrides and isolates, line and
/// paragraph separators), which would let a label make the history read as something else.
public struct Labels: Equatable, Sendable {
    public static let maxLength = 32

    public private(set) var names: [Int: String] = [:]

    public init(_ names: [Int: String] = [:]) { self.names = names }

    public subscript(slot: Int) -> String? { names[slot] }

    /// Sets or (with nil or an empty name) clears the label of `slot`.
    public mutating func set(_ name: String?, for slot: Int) {
        if let name, !name.isEmpty { names[slot] = name } else { names[slot] = nil }
    }

    /// Only the labels of slots that hold a PIN: a label left on a freed slot is never shown.
    public func pruned(to table: PinTable) -> Labels {
        Labels(names.filter { $0.key < table.capacity && table.slots[$0.key] != nil })
    }

    /// Bidi embeddings, overrides, isolates and marks, the line and paragraph separators, and the
    /// byte-order mark: text that changes how the rest of a line is shown.
    static let invisible: Set<UInt32> = Set([0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0xFEFF]
                                            + Array(0x202A...0x202E) + Array(0x2066...0x2069))

    /// Why `name` cannot be a label, or nil when it can.
    public static func problem(with name: String) -> String? {
        if name.utf8.count > maxLength { return "a label is at most \(maxLength) bytes, and \"\(name)\" is \(name.utf8.count)" }
        if name.unicodeScalars.contains(where: \.isControlCharacter) {
            return "a label cannot contain tabs, newlines or other control characters"
        }
        if name.unicodeScalars.contains(where: { Labels.invisible.contains($0.value) }) {
            return "a label cannot contain invisible characters that reorder or hide text (bidi controls, line separators)"
        }
        if name.hasPrefix(" ") || name.hasSuffix(" ") { return "a label cannot start or end with a space" }
        return nil
    }

    /// The sidecar's text: a comment line, then `<slot><TAB><label>` per labelled slot.
    public func encoded() -> [UInt8] { SlotLines.encode(comment: "garaged labels: slot<TAB>name, one per line", names) }

    /// Reads the sidecar; a bad line is refused with its number.
    public static func decode(_ bytes: [UInt8]) throws(LabelsError) -> Labels {
        var labels = Labels()
        try SlotLines.decode(bytes, expected: "a name") { slot, name in
            if let problem = problem(with: name) { return problem }
            labels.set(name, for: slot)
            return nil
        }
        return labels
    }
}

/// Why the labels sidecar could not be read.
public enum LabelsError: Error, Equatable, Sendable, CustomStringConvertible {
    case badLine(line: Int, reason: String)

    public var description: String {
        switch self {
        case .badLine(let line, let reason): return "line \(line): \(reason)"
        }
    }
}

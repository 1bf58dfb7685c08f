/// The shape the files beside the table share (the labels, the door access): a comment line,
/// then `<slot><TAB><text>` per slot, in slot order. A bad line is refused with its number, so a
/// hand edit gone wrong is noticed rather than silently dropping what it held.
enum SlotLines {
    static func encode(comment: String, _ entries: [Int: String]) -> [UInt8] {
        var text = "# \(comment)\n"
        for slot in entries.keys.sorted() { text += "\(slot)\t\(entries[slot]!)\n" }
        return Array(text.utf8)
    }

    /// Each slot's text, read by `read` (which says what is wrong with a text, or returns nil
    /// for a good one), in file order; `expected` names what follows the tab.
    static func decode(_ bytes: [UInt8], expected: String,
                       _ read: (Int, String) -> String?) throws(LabelsError) {
        for (n, raw) in String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let tab = line.firstIndex(of: "\t"), let slot = Int(line[..<tab]), (1..<PinTable.maxCapacity).contains(slot) else {
                throw .badLine(line: n + 1, reason: "expected a slot number from 1 to \(PinTable.maxCapacity - 1), a tab and \(expected)")
            }
            if let problem = read(slot, String(line[line.index(after: tab)...])) { throw .badLine(line: n + 1, reason: problem) }
        }
    }
}

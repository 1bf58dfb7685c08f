import DoorCore

/// Aligned columns for people, like `systemctl list-units`: a header, then one row a line,
/// every column as wide as its widest cell, the last column left ragged.
struct TextTable {
    var header: [String]
    var rows: [[String]] = []

    init(_ header: String...) { self.header = header }

    mutating func add(_ cells: String...) { rows.append(cells) }

    var text: String {
        let all = [header] + rows
        var widths = [Int](repeating: 0, count: header.count)
        for row in all { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        return all.map { row in
            row.enumerated().map { i, cell in
                i == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[i] - cell.count)
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }
}

/// Prints a JSON value (for --json) followed by a newline.
func printJSON(_ value: JSONValue) { print(value.serialized) }

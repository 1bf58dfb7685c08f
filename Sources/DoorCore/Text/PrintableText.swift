/// Text garaged did not write itself (a pairing id, a door's name, a label in a file edited by
/// hand) as it may be printed on a terminal or in a log line: each control character written as
/// an escape, so a value can neither start a line of its own nor send the terminal a sequence.
extension String {
    /// The text with each control character (C0, DEL, C1) escaped: `\n`, `\r`, `\t`, and
    /// `\xNN` for the others (ESC is `\x1b`). Text without one comes back as it was.
    public var escapingControlCharacters: String {
        guard unicodeScalars.contains(where: \.isControlCharacter) else { return self }
        var out = ""
        for scalar in unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                guard scalar.isControlCharacter else {
                    out.unicodeScalars.append(scalar)
                    continue
                }
                out += "\\x" + Hex.string(CollectionOfOne(UInt8(scalar.value)), lowercase: true)
            }
        }
        return out
    }
}

extension Unicode.Scalar {
    /// A C0 control (tab, newline, ESC...), DEL, or a C1 control (U+0080 to U+009F).
    public var isControlCharacter: Bool { value < 0x20 || (0x7F...0x9F).contains(value) }
}

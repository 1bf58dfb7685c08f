/// Hex in and out, written once for everything that prints or reads it: Bluetooth's UUIDs,
/// advertising and hcitool lines (uppercase, space-separated, as btmon and the Core spec
/// print them), the bytes named in error messages (`0x0A`), HomeKit's kept keys (lowercase,
/// unseparated) and constants written in the source.
public enum Hex {
    /// "02 01 06" for [0x02, 0x01, 0x06]; `separator: ""` gives "020106", `lowercase` "0aff".
    public static func string<C: Collection>(_ bytes: C, separator: String = " ", lowercase: Bool = false) -> String
    where C.Element == UInt8 {
        let digits = Array(lowercase ? "0123456789abcdef" : "0123456789ABCDEF")
        return bytes.map { String([digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]]) }
            .joined(separator: separator)
    }

    /// "0A" for 0x0A.
    public static func byte(_ b: UInt8) -> String { string(CollectionOfOne(b)) }

    /// "0x0A" for 0x0A: a byte as an error message names it.
    public static func literal(_ b: UInt8) -> String { "0x" + byte(b) }

    /// The bytes of hex digits written in the source, whitespace ignored; traps on anything
    /// else (a constant that is not hex is a bug).
    public static func constant(_ text: String) -> [UInt8] {
        guard let b = bytes(String(text.unicodeScalars.filter { !$0.properties.isWhitespace })) else {
            preconditionFailure("not hex: \(text)")
        }
        return b
    }

    /// The bytes of a hex string without separators ("0aff" -> [0x0A, 0xFF]); nil unless every
    /// character is a hex digit and there is an even number of them.
    public static func bytes(_ text: String) -> [UInt8]? {
        let digits = text.utf8.map { nibble($0) }
        guard digits.count % 2 == 0, !digits.contains(nil) else { return nil }
        return stride(from: 0, to: digits.count, by: 2).map { digits[$0]! << 4 | digits[$0 + 1]! }
    }

    /// The value of one ASCII hex digit, either case; nil for anything else.
    static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}

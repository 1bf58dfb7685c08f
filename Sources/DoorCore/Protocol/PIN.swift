/// A five-character PIN as the book stores it: no terminator, printable ASCII only
/// (0x21-0x7E), so every PIN can be typed in the app and on a shell.
public struct PIN: Hashable, Sendable {
    public static let length = 5

    /// The five bytes packed, the first in the lowest byte: a PIN judged allocates nothing.
    private let packed: UInt64

    /// The raw five bytes, exactly as they sit in the EEPROM slot.
    public var bytes: [UInt8] { (0..<PIN.length).map { UInt8(truncatingIfNeeded: packed >> (8 * $0)) } }

    /// Nil unless `bytes` is exactly five printable ASCII characters.
    public init?<S: Sequence>(bytes: S) where S.Element == UInt8 {
        var packed: UInt64 = 0, count = 0
        for b in bytes {
            guard count < PIN.length, PIN.isPINByte(b) else { return nil }
            packed |= UInt64(b) << (8 * count)
            count += 1
        }
        guard count == PIN.length else { return nil }
        self.packed = packed
    }

    public init?(_ string: String) { self.init(bytes: Array(string.utf8)) }

    public static func isPINByte(_ b: UInt8) -> Bool { b >= 0x21 && b <= 0x7E }

    /// Compares without an early exit, so response timing does not reveal how many leading
    /// characters of a guess were right.
    public func constantTimeEquals(_ other: PIN) -> Bool {
        packed ^ other.packed == 0
    }

    /// For the owner's own tools only (list output); never for logs.
    public var string: String { String(decoding: bytes, as: UTF8.self) }
}

extension PIN: CustomStringConvertible {
    /// Masked, so a PIN that slips into string interpolation never reaches a log.
    public var description: String { "*****" }
}

/// The content of one Security+ 2.0 wall-wire packet: a 28-bit rolling code, a 40-bit fixed code
/// and a 32-bit data word whose bits 12-15 are always the parity nibble, so every value of this
/// type is one the wire can carry and reads back equal (`SecPlus2Packet+Wire.swift` has the bytes).
public struct SecPlus2Packet: Hashable, Sendable, CustomStringConvertible {
    /// Rolling codes are below 2^28: the 18 base-3 digits on the wire hold up to 3^18, the rest is refused.
    public static let rollingLimit: UInt32 = 1 << 28
    /// Fixed codes are below 2^40: 20 bits in each half.
    public static let fixedLimit: UInt64 = 1 << 40

    /// Goes up by one per command; the opener ignores a code below the last it accepted.
    public let rolling: UInt32
    /// The sender's identity (low 32 bits, in ratgdo's layout) and the command's high nibble (bits 32-35).
    public let fixed: UInt64
    /// The command's low byte, nibble and two argument bytes, with the parity nibble in bits 12-15.
    public let data: UInt32

    /// A packet of these numbers; whatever `data` holds in bits 12-15 is replaced by the parity
    /// nibble, so a capture's data (parity included) and the same data without it give one packet.
    public init(rolling: UInt32, fixed: UInt64, data: UInt32) throws(SecPlus2PacketError) {
        guard rolling < Self.rollingLimit else { throw .rollingRange(rolling) }
        guard fixed < Self.fixedLimit else { throw .fixedRange(fixed) }
        self.rolling = rolling
        self.fixed = fixed
        self.data = data & ~0xF000 | UInt32(Self.parity(fixed: fixed, data: data & ~0xF000)) << 12
    }

    /// For the wire decoder, which has already checked every limit and the parity.
    init(checkedRolling rolling: UInt32, fixed: UInt64, data: UInt32) {
        self.rolling = rolling
        self.fixed = fixed
        self.data = data
    }

    /// The XOR of the data's eight nibbles and of fixed's bits 32-35: with the parity nibble in
    /// place it is 0, which is what the decoder checks.
    static func parity(fixed: UInt64, data: UInt32) -> UInt8 {
        var p = UInt32(truncatingIfNeeded: fixed >> 32) & 0xF
        var d = data
        for _ in 0..<8 {
            p ^= d & 0xF
            d >>= 4
        }
        return UInt8(p)
    }

    public var description: String {
        "rolling=\(rolling) fixed=0x\(SecPlus2Hex.digits(fixed, count: 10)) data=0x\(SecPlus2Hex.digits(UInt64(data), count: 8))"
    }
}

/// Fixed-width lowercase hex for the descriptions (the standard library has no format strings).
enum SecPlus2Hex {
    static func digits(_ value: UInt64, count: Int) -> String {
        let s = String(value, radix: 16)
        return String(repeating: "0", count: max(0, count - s.count)) + s
    }

    static func bytes(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { digits(UInt64($0), count: 2) }.joined(separator: " ")
    }
}

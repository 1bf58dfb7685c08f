/// Why 19 bytes are not a Security+ 2.0 packet, or why three numbers cannot become one: each case
/// names the check that failed, so a log line says what the wire (or the caller) got wrong.
public enum SecPlus2PacketError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Not 19 bytes.
    case length(Int)
    /// The first three bytes are not `55 01 00`.
    case sync(UInt8, UInt8, UInt8)
    /// A half's bits 8-9, between the indicator and the payload, are not 00 (half is 1 or 2).
    case reservedBits(half: Int, bits: UInt8)
    /// A half's indicator byte has a 2-bit digit of 3, so it names no row of the order and
    /// inversion tables.
    case indicator(half: Int, UInt8)
    /// A rolling-code digit inside a half's payload is 3, which base 3 cannot have.
    case digit(half: Int)
    /// The indicator digits repeated at the end of a half's third stream differ from its indicator.
    case indicatorRepeat(half: Int, indicator: UInt8, repeated: UInt8)
    /// The rolling code is 2^28 or more (decoded: the base-3 value before its bits are reversed).
    case rollingRange(UInt32)
    /// The fixed code is 2^40 or more (only when building a packet).
    case fixedRange(UInt64)
    /// The data's nibbles and fixed's bits 32-35 do not XOR to 0; the value is what they XOR to.
    case parity(UInt8)

    public var description: String {
        switch self {
        case .length(let n):
            return "a packet is 19 bytes, not \(n)"
        case .sync(let a, let b, let c):
            return "a packet starts 55 01 00, not \(SecPlus2Hex.bytes([a, b, c]))"
        case .reservedBits(let half, let bits):
            return "half \(half): bits 8-9 are \(bits >> 1)\(bits & 1), not 00"
        case .indicator(let half, let indicator):
            return "half \(half): indicator 0x\(SecPlus2Hex.digits(UInt64(indicator), count: 2)) has a digit 3 and is in no table"
        case .digit(let half):
            return "half \(half): a rolling-code digit is 3"
        case .indicatorRepeat(let half, let indicator, let repeated):
            return "half \(half): the indicator 0x\(SecPlus2Hex.digits(UInt64(indicator), count: 2)) is repeated as 0x\(SecPlus2Hex.digits(UInt64(repeated), count: 2))"
        case .rollingRange(let value):
            return "rolling code \(value) is 2^28 or more"
        case .fixedRange(let value):
            return "fixed code 0x\(String(value, radix: 16)) is 2^40 or more"
        case .parity(let nibble):
            return "parity nibble off by 0x\(String(nibble, radix: 16))"
        }
    }
}

/// The 19 bytes on the wall wire: `55 01 00`, then two 8-byte halves, each the 8 indicator bits,
/// two 0 bits and 54 scrambled payload bits, most significant bit first (argilo/secplus's wireline
/// encoding, the one ratgdo uses).
extension SecPlus2Packet {
    /// What every packet starts with; receivers sync on it.
    public static let sync: [UInt8] = [0x55, 0x01, 0x00]
    /// Bytes in a packet, the sync included.
    public static let length = 19

    /// The packet's 19 wire bytes.
    public var encoded: [UInt8] {
        let t = Self.rollingDigits(rolling)
        let half1 = Self.encodeHalf(digits: [t[14], t[15], t[16], t[17], t[6], t[7], t[8], t[9], t[1]],
                                    fixed: UInt32(truncatingIfNeeded: fixed >> 20) & 0xFFFFF, data: UInt16(data >> 16))
        let half2 = Self.encodeHalf(digits: [t[10], t[11], t[12], t[13], t[2], t[3], t[4], t[5], t[0]],
                                    fixed: UInt32(truncatingIfNeeded: fixed) & 0xFFFFF, data: UInt16(truncatingIfNeeded: data))
        var out = Self.sync
        out.reserveCapacity(Self.length)
        for half in [half1, half2] {
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: half >> UInt64(shift))) }
        }
        return out
    }

    /// Decodes 19 wire bytes, refusing them with the first check they fail (length, sync, then
    /// each half's reserved bits, indicator, digits and repeated indicator, then the rolling
    /// code's range and the parity).
    public init(decoding bytes: [UInt8]) throws(SecPlus2PacketError) { try self.init(decoding: bytes[...]) }

    /// The same for part of a buffer (the receiver's).
    public init(decoding bytes: ArraySlice<UInt8>) throws(SecPlus2PacketError) {
        guard bytes.count == Self.length else { throw .length(bytes.count) }
        let b = Array(bytes)
        guard b[0] == 0x55, b[1] == 0x01, b[2] == 0x00 else { throw .sync(b[0], b[1], b[2]) }
        var halves: [UInt64] = [0, 0]
        for i in 0..<16 { halves[i / 8] = halves[i / 8] << 8 | UInt64(b[3 + i]) }
        let (h1, fixed1, data1) = try Self.decodeHalf(halves[0], number: 1)
        let (h2, fixed2, data2) = try Self.decodeHalf(halves[1], number: 2)
        // The inverse of `encoded`'s placement: t[0] t[1] t[2..5] t[6..9] t[10..13] t[14..17].
        let t = [h2[8], h1[8]] + h2[4..<8] + h1[4..<8] + h2[0..<4] + h1[0..<4]
        var reversed: UInt32 = 0
        for digit in t { reversed = reversed * 3 + UInt32(digit) }
        guard reversed < Self.rollingLimit else { throw .rollingRange(reversed) }
        let fixed = UInt64(fixed1) << 20 | UInt64(fixed2)
        let data = UInt32(data1) << 16 | UInt32(data2)
        let parity = Self.parity(fixed: fixed, data: data)
        guard parity == 0 else { throw .parity(parity) }
        self.init(checkedRolling: Self.reverse28(reversed), fixed: fixed, data: data)
    }

    /// The rolling code's 28 bits reversed, as 18 base-3 digits, most significant first.
    private static func rollingDigits(_ rolling: UInt32) -> [UInt8] {
        var value = reverse28(rolling)
        var digits = [UInt8](repeating: 0, count: 18)
        for i in (0..<18).reversed() {
            digits[i] = UInt8(value % 3)
            value /= 3
        }
        return digits
    }

    /// Bit 0 becomes bit 27 and so on; its own inverse.
    private static func reverse28(_ value: UInt32) -> UInt32 {
        var out: UInt32 = 0
        for bit in 0..<28 { out = out << 1 | value >> UInt32(bit) & 1 }
        return out
    }

    /// One half: nine rolling digits (the first four are the indicator), 20 bits of fixed and 16 of data.
    private static func encodeHalf(digits r: [UInt8], fixed: UInt32, data: UInt16) -> UInt64 {
        let indicator = r[0] << 6 | r[1] << 4 | r[2] << 2 | r[3]
        let a = (fixed >> 10) << 8 | UInt32(data >> 8)
        let b = (fixed & 0x3FF) << 8 | UInt32(data & 0xFF)
        var c: UInt32 = 0
        for digit in r[4...] { c = c << 2 | UInt32(digit) }
        c = c << 8 | UInt32(indicator)
        // Every digit is 0, 1 or 2, so the indicator always names a table row.
        let scramble = SecPlus2Scramble(indicator: indicator)!
        return UInt64(indicator) << 56 | scramble.interleave(a, b, c)
    }

    /// A byte's four 2-bit digits, most significant first.
    private static func pairs(_ byte: UInt8) -> [UInt8] {
        [byte >> 6, byte >> 4 & 3, byte >> 2 & 3, byte & 3]
    }

    /// One half back: its nine rolling digits, 20 bits of fixed and 16 of data.
    private static func decodeHalf(_ half: UInt64, number: Int) throws(SecPlus2PacketError) -> ([UInt8], UInt32, UInt16) {
        let indicator = UInt8(half >> 56)
        let reserved = UInt8(half >> 54 & 3)
        guard reserved == 0 else { throw .reservedBits(half: number, bits: reserved) }
        guard let scramble = SecPlus2Scramble(indicator: indicator) else { throw .indicator(half: number, indicator) }
        let (a, b, c) = scramble.deinterleave(half & ((1 << 54) - 1))
        let digits = pairs(indicator) + stride(from: 16, through: 8, by: -2).map { UInt8(c >> UInt32($0) & 3) }
        let repeated = UInt8(c & 0xFF)
        guard !(digits + pairs(repeated)).contains(3) else { throw .digit(half: number) }
        guard repeated == indicator else { throw .indicatorRepeat(half: number, indicator: indicator, repeated: repeated) }
        let fixed = (a >> 8) << 10 | b >> 8
        let data = UInt16(a & 0xFF) << 8 | UInt16(b & 0xFF)
        return (digits, fixed, data)
    }
}

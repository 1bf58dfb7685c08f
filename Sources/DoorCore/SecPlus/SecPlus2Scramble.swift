/// How a half's indicator scrambles its three 18-bit streams (A: fixed and data high bits, B: the
/// low ones, C: rolling digits): the first two indicator digits pick their order, the last two
/// which positions are inverted, and the three are interleaved bit by bit, first stream first.
struct SecPlus2Scramble {
    /// The streams in wire order: `order[p]` is the stream (0 A, 1 B, 2 C) at position p.
    let order: (Int, Int, Int)
    /// The XOR mask (all 18 bits or none) applied at each position.
    let invert: (UInt32, UInt32, UInt32)

    private static let all: UInt32 = 0x3FFFF

    /// Indexed by the indicator's first two digits as a base-3 number (00 01 02 10 11 12 20 21 22),
    /// which is the table's 4-bit index (0000 0001 0010 0100 0101 0110 1000 1001 1010) read in base 3.
    private static let orders: [(Int, Int, Int)] = [
        (0, 2, 1), (2, 0, 1), (0, 1, 2), (1, 2, 0), (1, 0, 2), (2, 1, 0), (1, 2, 0), (2, 1, 0), (0, 1, 2),
    ]
    /// Indexed by the last two digits the same way: true where that position is inverted.
    private static let inversions: [(Bool, Bool, Bool)] = [
        (true, true, false), (false, true, false), (false, false, true), (true, true, true), (true, false, true),
        (false, true, true), (true, false, false), (false, false, false), (true, false, true),
    ]

    /// The scramble an indicator byte names, or nil when one of its 2-bit digits is 3.
    init?(indicator: UInt8) {
        let d = (indicator >> 6, indicator >> 4 & 3, indicator >> 2 & 3, indicator & 3)
        guard d.0 < 3, d.1 < 3, d.2 < 3, d.3 < 3 else { return nil }
        order = Self.orders[Int(d.0 * 3 + d.1)]
        let i = Self.inversions[Int(d.2 * 3 + d.3)]
        invert = (i.0 ? Self.all : 0, i.1 ? Self.all : 0, i.2 ? Self.all : 0)
    }

    /// The 54 payload bits of streams A, B and C (18 bits each, first bit most significant).
    func interleave(_ a: UInt32, _ b: UInt32, _ c: UInt32) -> UInt64 {
        let streams = [a, b, c]
        let x = UInt64(streams[order.0] ^ invert.0)
        let y = UInt64(streams[order.1] ^ invert.1)
        let z = UInt64(streams[order.2] ^ invert.2)
        var out: UInt64 = 0
        for bit in (0..<18).reversed() {
            out = out << 3 | (x >> bit & 1) << 2 | (y >> bit & 1) << 1 | z >> bit & 1
        }
        return out
    }

    /// Streams A, B and C back from 54 payload bits.
    func deinterleave(_ payload: UInt64) -> (a: UInt32, b: UInt32, c: UInt32) {
        var x: UInt32 = 0, y: UInt32 = 0, z: UInt32 = 0
        for bit in (0..<18).reversed() {
            let three = UInt32(truncatingIfNeeded: payload >> (3 * bit)) & 7
            x = x << 1 | three >> 2
            y = y << 1 | three >> 1 & 1
            z = z << 1 | three & 1
        }
        var streams: [UInt32] = [0, 0, 0]
        streams[order.0] = x ^ invert.0
        streams[order.1] = y ^ invert.1
        streams[order.2] = z ^ invert.2
        return (streams[0], streams[1], streams[2])
    }
}

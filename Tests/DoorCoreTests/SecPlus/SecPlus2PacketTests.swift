import XCTest
@testable import DoorCore

/// The wall-wire packet codec: the published captures both ways, every refusal, random round
/// trips, and single-bit damage.
final class SecPlus2PacketTests: XCTestCase {
    private func refusal(_ bytes: [UInt8]) -> SecPlus2PacketError? {
        do { _ = try SecPlus2Packet(decoding: bytes); return nil } catch { return error }
    }

    /// 19 bytes from two halves given as indicator, bits 8-9 and the three streams (A, B, C), so a
    /// test can put on the wire what no encoder would.
    private func wire(_ halves: [(indicator: UInt8, reserved: UInt64, a: UInt32, b: UInt32, c: UInt32)]) -> [UInt8] {
        var out = SecPlus2Packet.sync
        for h in halves {
            let scramble = SecPlus2Scramble(indicator: h.indicator)!
            let half = UInt64(h.indicator) << 56 | h.reserved << 54 | scramble.interleave(h.a, h.b, h.c)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: half >> UInt64(shift))) }
        }
        return out
    }

    func testTheCapturesEncodeToTheirBytes() throws {
        for c in SecPlus2Captures.all {
            let packet = try SecPlus2Packet(rolling: c.rolling, fixed: c.fixed, data: c.data)
            XCTAssertEqual(packet.data, c.data, "the captures' data already holds its parity nibble")
            XCTAssertEqual(packet.encoded, c.bytes, "rolling \(c.rolling)")
        }
    }

    func testTheCapturesDecodeToTheirNumbers() throws {
        for c in SecPlus2Captures.all {
            let packet = try SecPlus2Packet(decoding: c.bytes)
            XCTAssertEqual(packet.rolling, c.rolling)
            XCTAssertEqual(packet.fixed, c.fixed)
            XCTAssertEqual(packet.data, c.data)
        }
    }

    func testEncodingComputesTheParityNibbleWhateverDataHeldThere() throws {
        let motion = SecPlus2Captures.motion
        for nibble: UInt32 in [0, 0x5, 0xf] {
            let packet = try SecPlus2Packet(rolling: motion.rolling, fixed: motion.fixed, data: motion.data & ~0xF000 | nibble << 12)
            XCTAssertEqual(packet.data, 0xf085)
            XCTAssertEqual(packet.encoded, motion.bytes)
        }
    }

    func testNumbersOutOfRangeAreRefused() {
        XCTAssertThrowsError(try SecPlus2Packet(rolling: 1 << 28, fixed: 0, data: 0)) {
            XCTAssertEqual($0 as? SecPlus2PacketError, .rollingRange(1 << 28))
        }
        XCTAssertThrowsError(try SecPlus2Packet(rolling: 0, fixed: 1 << 40, data: 0)) {
            XCTAssertEqual($0 as? SecPlus2PacketError, .fixedRange(1 << 40))
        }
        XCTAssertNoThrow(try SecPlus2Packet(rolling: (1 << 28) - 1, fixed: (1 << 40) - 1, data: .max))
    }

    func testAWrongLengthOrSyncIsRefused() {
        let bytes = SecPlus2Captures.status.bytes
        XCTAssertEqual(refusal(Array(bytes.dropLast())), .length(18))
        XCTAssertEqual(refusal(bytes + [0]), .length(20))
        XCTAssertEqual(refusal([]), .length(0))
        var wrong = bytes
        wrong[1] = 0x02
        XCTAssertEqual(refusal(wrong), .sync(0x55, 0x02, 0x00))
        XCTAssertEqual(refusal(wrong)?.description, "a packet starts 55 01 00, not 55 02 00")
    }

    func testBitsEightAndNineOfEitherHalfMustBeZero() {
        var bytes = SecPlus2Captures.status.bytes
        bytes[4] |= 0x80
        XCTAssertEqual(refusal(bytes), .reservedBits(half: 1, bits: 2))
        bytes = SecPlus2Captures.status.bytes
        bytes[12] |= 0x40
        XCTAssertEqual(refusal(bytes), .reservedBits(half: 2, bits: 1))
        XCTAssertEqual(refusal(bytes)?.description, "half 2: bits 8-9 are 01, not 00")
    }

    func testAnIndicatorWithADigitThreeIsInNoTable() {
        var bytes = SecPlus2Captures.status.bytes
        bytes[3] = 0x3C
        XCTAssertEqual(refusal(bytes), .indicator(half: 1, 0x3C))
        bytes = SecPlus2Captures.status.bytes
        bytes[11] = 0xC0
        XCTAssertEqual(refusal(bytes), .indicator(half: 2, 0xC0))
        XCTAssertEqual(refusal(bytes)?.description, "half 2: indicator 0xc0 has a digit 3 and is in no table")
        // Every indicator whose four digits are 0, 1 or 2 names a row of both tables.
        for byte in 0...255 {
            let hasThree = (0..<4).contains { byte >> (2 * $0) & 3 == 3 }
            XCTAssertEqual(SecPlus2Scramble(indicator: UInt8(byte)) == nil, hasThree, "indicator \(byte)")
        }
    }

    func testARollingDigitOfThreeIsRefused() {
        let good = (indicator: UInt8(0x24), reserved: UInt64(0), a: UInt32(0), b: UInt32(0), c: UInt32(0x24))
        // The third stream's first digit is 3 (bits 17-16), its repeated indicator intact.
        var threeFirst = good
        threeFirst.c = 0x30000 | 0x24
        XCTAssertEqual(refusal(wire([good, threeFirst])), .digit(half: 2))
        // A 3 among the repeated indicator digits is a digit 3 too, before any comparison.
        var threeRepeated = good
        threeRepeated.c = 0x27
        XCTAssertEqual(refusal(wire([threeRepeated, good])), .digit(half: 1))
    }

    func testTheRepeatedIndicatorMustMatch() {
        let good = (indicator: UInt8(0x24), reserved: UInt64(0), a: UInt32(0), b: UInt32(0), c: UInt32(0x24))
        XCTAssertEqual(refusal(wire([(0x24, 0, 0, 0, 0x21), good])), .indicatorRepeat(half: 1, indicator: 0x24, repeated: 0x21))
        XCTAssertEqual(refusal(wire([good, good])), nil, "the same halves with the repeat intact decode")
    }

    func testARollingCodeOfTwoToThe28OrMoreIsRefused() {
        // Every digit 2: 3^18 - 1 = 387420488.
        let twos = (indicator: UInt8(0xAA), reserved: UInt64(0), a: UInt32(0), b: UInt32(0), c: UInt32(0x2AA << 8 | 0xAA))
        XCTAssertEqual(refusal(wire([twos, twos])), .rollingRange(387_420_488))
    }

    func testABadParityNibbleIsRefused() throws {
        let c = SecPlus2Captures.status
        let bad = SecPlus2Packet(checkedRolling: c.rolling, fixed: c.fixed, data: c.data ^ 0x5000)
        XCTAssertEqual(refusal(bad.encoded), .parity(5))
        XCTAssertEqual(refusal(bad.encoded)?.description, "parity nibble off by 0x5")
    }

    func testRandomPacketsRoundTrip() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var g = SeededGenerator(seed: seed)
        for _ in 0..<10_000 {
            let packet = try SecPlus2Packet(rolling: .random(in: 0..<SecPlus2Packet.rollingLimit, using: &g),
                                            fixed: .random(in: 0..<SecPlus2Packet.fixedLimit, using: &g),
                                            data: .random(in: 0...UInt32.max, using: &g))
            let bytes = packet.encoded
            XCTAssertEqual(bytes.count, 19)
            XCTAssertEqual(try SecPlus2Packet(decoding: bytes), packet, "\(packet), seed \(seed)")
        }
        // The edges: all zeros and all ones.
        for packet in [try SecPlus2Packet(rolling: 0, fixed: 0, data: 0),
                       try SecPlus2Packet(rolling: SecPlus2Packet.rollingLimit - 1, fixed: SecPlus2Packet.fixedLimit - 1, data: .max)] {
            XCTAssertEqual(try SecPlus2Packet(decoding: packet.encoded), packet)
        }
    }

    func testEveryOneBitFlipOfACaptureIsRefusedOrAnotherPacket() throws {
        for c in SecPlus2Captures.all {
            let original = try SecPlus2Packet(decoding: c.bytes)
            var refused = 0
            for bit in 0..<(19 * 8) {
                var bytes = c.bytes
                bytes[bit / 8] ^= 0x80 >> UInt8(bit % 8)
                do {
                    let other = try SecPlus2Packet(decoding: bytes)
                    XCTAssertNotEqual(other, original, "bit \(bit)")
                    XCTAssertEqual(other.encoded, bytes, "what decodes encodes back to the same bytes")
                } catch {
                    refused += 1
                }
            }
            // Every flip in the sync, the reserved bits or a parity-covered bit is caught; the
            // rolling code has no check of its own, so a few flips there decode to another code.
            XCTAssertGreaterThan(refused, 19 * 8 / 2, "rolling \(c.rolling)")
        }
    }
}

@testable import DoorCore

/// The five published Security+ 2.0 wall-wire captures (argilo/secplus's test vectors): the
/// numbers and the 19 bytes they are on the wire.
enum SecPlus2Captures {
    struct Capture {
        let rolling: UInt32
        let fixed: UInt64
        let data: UInt32
        let bytes: [UInt8]
    }

    static let all: [Capture] = [
        Capture(rolling: 1375, fixed: 0xc2_1895_590c, data: 0xf085, bytes: hex("5501005a3a32c729b2c9658a28b3c635524e79")),
        Capture(rolling: 1376, fixed: 0xc1_1895_590c, data: 0x728c, bytes: hex("550100153e9691ecb69a69920a30c781e046e1")),
        Capture(rolling: 1382, fixed: 0xc3_1895_590c, data: 0x8092, bytes: hex("550100a1350d399869a493520e28ab99e0c261")),
        Capture(rolling: 732, fixed: 0x10_aad8_002e, data: 0x0360_e281, bytes: hex("550100a4278efb1cd67f9b280593cfb440cb06")),
        Capture(rolling: 739, fixed: 0x13_aad8_002e, data: 0x8193, bytes: hex("550100563be3b94e69a693040ff67db55fef72")),
    ]

    /// A MOTION from a wall panel.
    static var motion: Capture { all[0] }
    /// A STATUS from an opener: closed.
    static var status: Capture { all[3] }

    /// Bytes from a string of hex digits.
    static func hex(_ s: String) -> [UInt8] {
        let digits = Array(s.utf8)
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
    }
}

/// SplitMix64: a seeded generator, so a failing random case can be run again from its seed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

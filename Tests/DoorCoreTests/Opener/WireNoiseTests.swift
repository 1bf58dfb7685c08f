import XCTest
@testable import DoorCore

/// Noise on an opener's wire: the first of a minute said whole, the rest one count a minute.
final class WireNoiseTests: XCTestCase {
    func testTheFirstIsSaidWholeTheRestCountedAndSaidOnceTheMinuteIsOver() {
        var noise = WireNoise()
        let first = noise.heard(.init(.warning, "opener-byte-refused", [("byte", "ff")]), at: t(0))
        XCTAssertEqual(first, [.init(.warning, "opener-byte-refused", [("byte", "ff"), ("then", "more are counted, said once a minute")])])
        for i in 1...500 { XCTAssertEqual(noise.heard(.init(.warning, "opener-byte-refused", []), at: t(i * 100)), [], "counted, not said") }
        XCTAssertEqual(noise.nextWake, t(60_000))
        XCTAssertEqual(noise.summarise(at: t(59_999)), [], "the minute is not over")
        XCTAssertEqual(noise.summarise(at: t(60_000)), [.init(.warning, "opener-garbage-repeats", [("more", "500"), ("over_s", "60")])])
        XCTAssertNil(noise.nextWake, "nothing counted: no wake")
        XCTAssertEqual(noise.summarise(at: t(120_000)), [], "said once")
    }

    func testAMinuteWithOneAloneEndsSilentlyAndTheNextAfterItIsSaidWhole() {
        var noise = WireNoise(.error, repeats: "opener-identity-forged-repeats")
        XCTAssertEqual(noise.heard(.init(.error, "opener-identity-forged", []), at: t(0)).count, 1)
        XCTAssertEqual(noise.heard(.init(.error, "opener-identity-forged", []), at: t(30_000)), [])
        let later = noise.heard(.init(.error, "opener-identity-forged", [("rolling", "7")]), at: t(61_000))
        XCTAssertEqual(later, [.init(.error, "opener-identity-forged-repeats", [("more", "1"), ("over_s", "61")]),
                               .init(.error, "opener-identity-forged", [("rolling", "7"), ("then", "more are counted, said once a minute")])],
                       "the last minute's count first, then the new one whole")
        XCTAssertEqual(noise.summarise(at: t(200_000)), [], "nothing followed the new one")
    }
}

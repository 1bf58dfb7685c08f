import XCTest
@testable import DoorCore

/// `Duration.nanoseconds` reads the attoseconds once (it is on every press): it must agree with
/// the seconds-and-attoseconds reading it replaced, rounding toward zero both ways.
final class InstantTests: XCTestCase {
    func testNanosecondsAgreeWithTheComponentsEitherSideOfZero() {
        func viaComponents(_ d: Duration) -> Int64 {
            let c = d.components
            return c.seconds * 1_000_000_000 + c.attoseconds / 1_000_000_000
        }
        var g = SystemRandomNumberGenerator()
        var samples: [Duration] = [.zero, .nanoseconds(1), .nanoseconds(-1), .seconds(2), .milliseconds(-300),
                                   .seconds(86_400 * 365 * 100), .seconds(-86_400 * 365 * 100)]
        for _ in 0..<20_000 {
            let atto = Int128(Int64.random(in: -9_000_000_000_000_000_000 ... 9_000_000_000_000_000_000, using: &g))
                * Int128(Int.random(in: 1...1_000, using: &g))
            samples.append(Duration(attoseconds: atto))
        }
        samples.append(Duration(attoseconds: 999_999_999))   // under a nanosecond: 0
        samples.append(Duration(attoseconds: -999_999_999))
        for d in samples { XCTAssertEqual(d.nanoseconds, viaComponents(d), "\(d)") }
        XCTAssertEqual(Duration(attoseconds: 1_999_999_999).nanoseconds, 1)
        XCTAssertEqual(Duration(attoseconds: -1_999_999_999).nanoseconds, -1)
    }

    func testAnInstantMovesByADurationEitherWay() {
        let t = Instant(nanoseconds: 5_000_000_000)
        XCTAssertEqual((t + .milliseconds(1_500)).nanoseconds, 6_500_000_000)
        XCTAssertEqual((t + .milliseconds(-1_500)).nanoseconds, 3_500_000_000)
        XCTAssertEqual(Instant(nanoseconds: 1) - Instant(nanoseconds: 3), .nanoseconds(-2))
    }
}

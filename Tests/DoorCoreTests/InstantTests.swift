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
        func duration(_ seconds: Int64, _ attoseconds: Int64) -> Duration {
            Duration(secondsComponent: seconds, attosecondsComponent: attoseconds)
        }
        for _ in 0..<20_000 {
            // Both components of one sign, as Duration keeps them.
            let sign: Int64 = Bool.random(using: &g) ? 1 : -1
            samples.append(duration(sign * Int64.random(in: 0...3_000_000_000, using: &g),
                                    sign * Int64.random(in: 0..<1_000_000_000_000_000_000, using: &g)))
        }
        samples.append(duration(0, 999_999_999))   // under a nanosecond: 0
        samples.append(duration(0, -999_999_999))
        for d in samples { XCTAssertEqual(d.nanoseconds, viaComponents(d), "\(d)") }
        XCTAssertEqual(duration(0, 1_999_999_999).nanoseconds, 1)
        XCTAssertEqual(duration(0, -1_999_999_999).nanoseconds, -1)
        XCTAssertEqual(duration(-2, -500_000_000_000_000_000).nanoseconds, -2_500_000_000)
    }

    func testAnInstantMovesByADurationEitherWay() {
        let t = Instant(nanoseconds: 5_000_000_000)
        XCTAssertEqual((t + .milliseconds(1_500)).nanoseconds, 6_500_000_000)
        XCTAssertEqual((t + .milliseconds(-1_500)).nanoseconds, 3_500_000_000)
        XCTAssertEqual(Instant(nanoseconds: 1) - Instant(nanoseconds: 3), .nanoseconds(-2))
    }
}

/// The log's press widths: exact, three decimals.
final class MillisecondsTextTests: XCTestCase {
    func testThreeDecimalsExactToTheMicrosecond() {
        XCTAssertEqual(Duration.nanoseconds(300_043_999).millisecondsText, "300.043")
        XCTAssertEqual(Duration.milliseconds(1000).millisecondsText, "1000.000")
        XCTAssertEqual(Duration.microseconds(5).millisecondsText, "0.005")
        XCTAssertEqual(Duration.microseconds(-1_500).millisecondsText, "-1.500")
    }
}

import XCTest
@testable import DoorCore

/// Strangers' key exchanges: a few a second per address and in all, refilled with time.
final class HandshakeBudgetTests: XCTestCase {
    let t0 = Instant(nanoseconds: 1_000_000_000_000)

    func testOneAddressGetsSixteenAtOnceThenEightASecond() {
        var budget = HandshakeBudget()
        XCTAssertEqual((0..<40).filter { _ in budget.spend(peer: "192.0.2.7", at: t0) }.count, 16)
        XCTAssertFalse(budget.spend(peer: "192.0.2.7", at: t0 + .milliseconds(100)))
        XCTAssertTrue(budget.spend(peer: "192.0.2.7", at: t0 + .milliseconds(125)))
        XCTAssertTrue(budget.spend(peer: "192.0.2.8", at: t0), "another address has its own")
    }

    func testEveryAddressTogetherGetsThirtyTwoASecond() {
        var budget = HandshakeBudget()
        let granted = (0..<100).filter { budget.spend(peer: "198.51.100.\($0)", at: t0) }.count
        XCTAssertEqual(granted, 32, "a stranger with many addresses still shares the whole")
        XCTAssertFalse(budget.spend(peer: "203.0.113.1", at: t0 + .milliseconds(25)))
        XCTAssertTrue(budget.spend(peer: "203.0.113.1", at: t0 + .milliseconds(32)))
    }
}

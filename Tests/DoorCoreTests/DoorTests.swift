import XCTest
@testable import DoorCore

final class DoorTests: XCTestCase {
    private let timing = DoorTiming(pulse: .milliseconds(300), travel: .seconds(12), autoClose: .seconds(30))

    func testStartsClosedAndNeverPressesOnItsOwnFromClosed() {
        var door = Door(timing: timing)
        XCTAssertEqual(door.position, .closed)
        XCTAssertNil(door.nextDeadline)
        XCTAssertEqual(door.advance(to: t(3_600_000)), [])
    }

    func testOpenTravelAutoClose() {
        var door = Door(timing: timing)
        XCTAssertEqual(door.request(open: true, at: t(0)), .init(reply: .ok, press: .open))
        XCTAssertEqual(door.position, .opening)
        XCTAssertEqual(door.autoCloseIn(at: t(0)), 42)
        XCTAssertEqual(door.advance(to: t(11_999)), [])
        XCTAssertEqual(door.nextDeadline, t(12_000))
        XCTAssertEqual(door.advance(to: t(12_000)), [.arrived(.open)])
        XCTAssertEqual(door.autoCloseIn(at: t(12_000)), 30)
        XCTAssertEqual(door.nextDeadline, t(42_000))
        XCTAssertEqual(door.advance(to: t(41_999)), [])
        XCTAssertEqual(door.advance(to: t(42_000)), [.pressed(.autoClose)])
        XCTAssertEqual(door.position, .closing)
        XCTAssertEqual(door.advance(to: t(54_000)), [.arrived(.closed)])
        XCTAssertNil(door.nextDeadline)
    }

    func testALateTickStillArrivesThenAutoClosesInOrder() {
        var door = Door(timing: timing)
        _ = door.request(open: true, at: t(0))
        XCTAssertEqual(door.advance(to: t(50_000)), [.arrived(.open), .pressed(.autoClose)])
    }

    func testOpenWhileOpenRestartsTheAutoCloseTimerWithoutPressing() {
        var door = Door(timing: timing)
        _ = door.request(open: true, at: t(0))
        _ = door.advance(to: t(12_000))
        XCTAssertEqual(door.request(open: true, at: t(40_000)), .init(reply: .ok, press: nil))
        XCTAssertEqual(door.advance(to: t(42_000)), [], "the old deadline no longer fires")
        XCTAssertEqual(door.autoCloseIn(at: t(42_000)), 28)
        XCTAssertEqual(door.advance(to: t(70_000)), [.pressed(.autoClose)])
    }

    func testBusyAndSameDirectionAnswers() {
        var door = Door(timing: timing)
        XCTAssertEqual(door.request(open: false, at: t(0)), .init(reply: .ok, press: nil), "close when closed: nothing")
        _ = door.request(open: true, at: t(0))
        XCTAssertEqual(door.request(open: true, at: t(1_000)), .init(reply: .ok, press: nil))
        XCTAssertEqual(door.request(open: false, at: t(1_000)), .init(reply: .error(.busy), press: nil))
        _ = door.advance(to: t(12_000))
        XCTAssertEqual(door.request(open: false, at: t(13_000)), .init(reply: .ok, press: .close))
        XCTAssertEqual(door.request(open: true, at: t(14_000)), .init(reply: .error(.busy), press: nil))
        XCTAssertEqual(door.request(open: false, at: t(14_000)), .init(reply: .ok, press: nil))
        XCTAssertNil(door.autoCloseIn(at: t(14_000)))
    }

    func testTwoPressesAreNeverCloserThanTheTravelTimeNorOverlap() {
        var door = Door(timing: DoorTiming(pulse: .milliseconds(300), travel: .zero, autoClose: nil))
        XCTAssertEqual(door.request(open: true, at: t(0)).press, .open)
        XCTAssertEqual(door.request(open: false, at: t(100)), .init(reply: .error(.busy), press: nil),
                       "with travel 0 the door still counts as moving for the length of the press")
        XCTAssertEqual(door.request(open: false, at: t(300)).press, .close)

        var slow = Door(timing: timing)
        var presses: [Int] = []
        for ms in stride(from: 0, through: 120_000, by: 100) {
            if slow.request(open: ms % 200 == 0, at: t(ms)).press != nil { presses.append(ms) }
            if slow.advance(to: t(ms)).contains(.pressed(.autoClose)) { presses.append(ms) }
        }
        for (a, b) in zip(presses, presses.dropFirst()) { XCTAssertGreaterThanOrEqual(b - a, 12_000) }
    }

    func testAutoCloseOff() {
        var door = Door(timing: DoorTiming(pulse: .milliseconds(300), travel: .seconds(1), autoClose: nil))
        _ = door.request(open: true, at: t(0))
        XCTAssertEqual(door.advance(to: t(1_000)), [.arrived(.open)])
        XCTAssertNil(door.nextDeadline)
        XCTAssertEqual(door.advance(to: t(10_000_000)), [])
        XCTAssertNil(door.autoCloseIn(at: t(5_000)))
    }
}

final class ThrottleTests: XCTestCase {
    func testFiveFreeAttemptsThenDoublingDelaysUpTo15Minutes() {
        var th = Throttle()
        for i in 0..<4 { XCTAssertNil(th.recordFailure(at: t(i))) }
        XCTAssertNil(th.remainingLock(at: t(4)))
        XCTAssertEqual(th.recordFailure(at: t(4)), .seconds(1))
        XCTAssertEqual(th.remainingLock(at: t(4)), .seconds(1))
        XCTAssertEqual(th.remainingLock(at: t(504)), .milliseconds(500))
        XCTAssertNil(th.remainingLock(at: t(1004)))
        var delays: [Duration] = []
        var now = 1004
        for _ in 0..<14 {
            let d = th.recordFailure(at: t(now))!
            delays.append(d)
            now += Int(d.nanoseconds / 1_000_000)
        }
        XCTAssertEqual(delays.prefix(10).map { $0.secondsRoundedUp }, [2, 4, 8, 16, 32, 64, 128, 256, 512, 900])
        XCTAssertEqual(delays.last, .seconds(900))
    }

    func testACorrectPINAfterTheDelayStartsOver() {
        var th = Throttle()
        for i in 0..<5 { th.recordFailure(at: t(i)) }
        th.recordSuccess()
        XCTAssertNil(th.remainingLock(at: t(10)))
        for i in 0..<4 { XCTAssertNil(th.recordFailure(at: t(20 + i))) }
        XCTAssertEqual(th.recordFailure(at: t(30)), .seconds(1))
    }

    func testSecondsRoundUpSoAShortLockNeverReadsZero() {
        XCTAssertEqual(Duration.milliseconds(1).secondsRoundedUp, 1)
        XCTAssertEqual(Duration.milliseconds(1000).secondsRoundedUp, 1)
        XCTAssertEqual(Duration.milliseconds(1001).secondsRoundedUp, 2)
    }
}

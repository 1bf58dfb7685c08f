import XCTest
@testable import DoorCore

/// The gate every press passes, one rule at a time, with the findings of the second attack
/// review that broke each (B3, B5, W6, W7) replayed at the door.
final class PressGateTests: XCTestCase {
    /// Travel 10 s, auto-close 30 s, warning 5 s.
    private let timing = DoorTiming(pulse: .milliseconds(300), travel: .seconds(10), autoClose: .seconds(30), warning: .seconds(5))
    private let both = DoorSensing(closedSwitch: true, openSwitch: true)
    private let closedOnly = DoorSensing(closedSwitch: true)

    /// Every permit names the one action its drive carries out: an opener's wire sends it as
    /// is (never a toggle); a relay presses for any of them.
    func testEveryPermitNamesItsAction() {
        func actions(_ events: [Door.Event]) -> [DoorAction] {
            events.compactMap { if case .press(let p) = $0 { return p.action } else { return nil } }
        }
        let plain = DoorTiming(pulse: .milliseconds(300), travel: .seconds(10), autoClose: .seconds(30))
        var door = Door(timing: plain, sensing: both, closed: true, at: t(0))
        XCTAssertEqual(actions(door.request(open: true, at: t(0)).events), [.open])
        _ = door.pressEnded(at: t(300))
        _ = door.sensor(.closed, active: false, at: t(1_000))
        XCTAssertEqual(actions(door.stop(at: t(2_000)).events), [.stop])
        _ = door.pressEnded(at: t(2_300))
        XCTAssertEqual(actions(door.request(open: false, at: t(3_000)).events), [.close])
        _ = door.pressEnded(at: t(3_300))
        _ = door.sensor(.closed, active: true, at: t(9_000))
        _ = door.request(open: true, at: t(10_000))
        _ = door.pressEnded(at: t(10_300))
        _ = door.sensor(.closed, active: false, at: t(11_000))
        _ = door.sensor(.open, active: true, at: t(20_000))
        XCTAssertEqual(actions(door.advance(to: t(50_000))), [.close], "the auto-close")
    }

    /// B5: with only the closed switch, a door resting off it is STOPPED; a press from there
    /// may close it, so `O=1` warns a whole warning first.
    func testAnOpenFromStoppedIsWarnedFirst() {
        var door = Door(timing: timing, sensing: closedOnly, at: t(0))
        XCTAssertEqual(door.position, .stopped)
        let open = door.request(open: true, at: t(1_000))
        XCTAssertEqual(open.reply, .ok)
        XCTAssertEqual(seen(open.events), [.warning(on: true), .pressWarned(.open)])
        door.warningShown(at: t(1_010))
        XCTAssertEqual(pressed(door.advance(to: t(6_009))), [], "not before a whole warning from when it went on")
        XCTAssertEqual(pressed(door.advance(to: t(6_010))), [.open])
        XCTAssertTrue(door.warningOn, "the door may be closing: the warning runs through the travel")
    }

    /// B5: an auto-close reversed by an obstacle leaves a one-switch door STOPPED; the `O=1`
    /// the book's app sends on arrival is warned too.
    func testAnOpenAfterAFailedAutoCloseIsWarned() {
        var door = Door(timing: timing, sensing: closedOnly, closed: true, at: t(0))
        _ = door.request(open: true, at: t(0))
        _ = door.pressEnded(at: t(300))
        _ = door.sensor(.closed, active: false, at: t(1_000))
        _ = door.advance(to: t(11_000))
        XCTAssertEqual(door.position, .open)
        _ = door.advance(to: t(41_000))
        door.warningShown(at: t(41_000))
        XCTAssertEqual(pressed(door.advance(to: t(46_000))), [.autoClose])
        _ = door.pressEnded(at: t(46_300))
        _ = door.advance(to: t(56_000))
        XCTAssertEqual(door.position, .stopped)
        XCTAssertTrue(door.closeFailed)
        let open = door.request(open: true, at: t(60_000))
        XCTAssertNil(open.press)
        XCTAssertEqual(seen(open.events), [.warning(on: true), .pressWarned(.open)])
    }

    /// B3: with both switches and the door OPENING, repeated STOPs make one press (after the
    /// warning, since a press while opening may reverse it), and the door is STOPPED at once.
    func testRepeatedStopsMakeOnePressAndTheDoorIsStopped() {
        var door = Door(timing: timing, sensing: both, closed: true, at: t(0))
        _ = door.request(open: true, at: t(0))
        _ = door.pressEnded(at: t(300))
        _ = door.sensor(.closed, active: false, at: t(1_000))
        XCTAssertEqual(door.position, .opening)
        var presses: [Door.Press] = []
        presses += pressed(door.stop(at: t(2_000)).events)
        door.warningShown(at: t(2_000))
        presses += pressed(door.stop(at: t(3_000)).events)
        presses += pressed(door.advance(to: t(7_000)))
        XCTAssertEqual(door.position, .stopped, "whatever the switches say")
        _ = door.pressEnded(at: t(7_300))
        for ms in [7_400, 7_500, 8_000] { presses += pressed(door.stop(at: t(ms)).events) }
        XCTAssertEqual(presses, [.stop])
    }

    /// A STOP while garaged's own warned close runs presses at once: the warning has been on
    /// the whole time.
    func testAStopDuringAWarnedCloseIsImmediate() {
        var door = closingDoor(timing: timing, sensing: both)
        XCTAssertEqual(pressed(door.stop(at: t(7_000)).events), [.stop])
        XCTAssertEqual(door.position, .stopped)
    }

    /// W7: both switches at once is a SENSORS fault: no press at all, asked for or automatic.
    func testContradictingSwitchesStopEveryPress() {
        var door = Door(timing: timing, sensing: both, closed: true, open: true, at: t(0))
        XCTAssertEqual(door.fault, .sensors)
        XCTAssertEqual(door.request(open: false, at: t(0)).reply, .error(.fault))
        XCTAssertEqual(door.request(open: true, at: t(0)).reply, .error(.fault))
        // Opened, then the closed switch sticks on too: auto-close must not press.
        var stuck = Door(timing: timing, sensing: both, closed: true, at: t(0))
        _ = stuck.request(open: true, at: t(0))
        _ = stuck.pressEnded(at: t(300))
        _ = stuck.sensor(.closed, active: false, at: t(1_000))
        _ = stuck.sensor(.open, active: true, at: t(11_000))
        XCTAssertEqual(seen(stuck.sensor(.closed, active: true, at: t(20_000))), [.fault(.sensors)])
        XCTAssertEqual(pressed(stuck.advance(to: t(3_600_000))), [])
        XCTAssertEqual(stuck.request(open: false, at: t(3_600_000)).reply, .error(.fault))
    }

    /// W6: a close that failed before a restart is kept; the door found open again takes `O=1`
    /// but arms no auto-close, until it is seen closed.
    func testAFailedCloseOutlivesARestart() {
        var door = Door(timing: timing, sensing: both, open: true, closeFailed: true, at: t(0))
        XCTAssertTrue(door.closeFailed)
        XCTAssertEqual(door.fault, .didNotClose)
        XCTAssertEqual(door.request(open: true, at: t(1_000)).reply, .ok)
        XCTAssertNil(door.closesIn(at: t(1_000)))
        XCTAssertEqual(pressed(door.advance(to: t(3_600_000))), [], "no automatic close toward the obstacle")
        _ = door.sensor(.open, active: false, at: t(3_601_000))
        _ = door.sensor(.closed, active: true, at: t(3_611_000))
        XCTAssertFalse(door.closeFailed, "seen closed: resolved")
        let foundClosed = Door(timing: timing, sensing: both, closed: true, closeFailed: true, at: t(0))
        XCTAssertFalse(foundClosed.closeFailed, "found closed at start: resolved at once")
    }

    /// W4 (issue 29): with the photo-eye's beam broken, every press that may close the door is
    /// refused as a close is, in every state: an open of a door anywhere but CLOSED and a STOP of
    /// an opening door too. An open from CLOSED and a STOP of a closing door still pass; with
    /// the beam clear, so does everything else the other rules allow.
    func testEveryPressThatMayCloseIsRefusedWhileTheBeamIsBroken() {
        let expected: [(DoorPosition, Door.Press, PressRefusal?)] = [
            (.closed, .open, nil), (.closed, .close, .alreadyThere(.closed)), (.closed, .stop, .notMoving),
            (.open, .open, .alreadyThere(.open)), (.open, .close, .obstructed), (.open, .autoClose, .obstructed), (.open, .stop, .notMoving),
            (.stopped, .open, .obstructed), (.stopped, .close, .obstructed), (.stopped, .autoClose, .obstructed), (.stopped, .stop, .notMoving),
            (.opening, .open, .moving), (.opening, .close, .moving), (.opening, .stop, .obstructed),
            (.closing, .open, .moving), (.closing, .close, .moving), (.closing, .stop, nil),
        ]
        for broken in [true, false] {
            var door = Door(timing: timing, sensing: DoorSensing(obstructionSwitch: true), obstructed: broken, at: t(0))
            for (position, press, refusal) in expected {
                door.position = position
                let want = !broken && refusal == .obstructed ? nil : refusal
                XCTAssertEqual(door.refusal(press, automatic: press == .autoClose, age: nil), want,
                               "\(press) from \(position), beam \(broken ? "broken" : "clear")")
            }
        }
    }

    func testAStaleRequestNeverPresses() {
        var door = Door(timing: timing, sensing: both, closed: true, at: t(0))
        let late = door.request(open: true, at: t(0), age: .milliseconds(2_001))
        XCTAssertEqual(late.reply, .error(.stale))
        XCTAssertNil(late.press)
        XCTAssertEqual(door.request(open: true, at: t(0), age: .milliseconds(2_000)).press, .open)
    }

    /// The press waits for the daemon to confirm the warning output really went on; one that
    /// could not be switched on calls the press off.
    func testNoWarnedPressWithoutTheWarningConfirmed() {
        var door = Door(timing: timing, sensing: both, open: true, at: t(0))
        _ = door.request(open: false, at: t(0))
        XCTAssertEqual(pressed(door.advance(to: t(3_600_000))), [], "never confirmed: never pressed")
        XCTAssertEqual(seen(door.warningFailed(at: t(3_600_000))),
                       [.pressCancelled(.close, "the warning output could not be switched on"), .warning(on: false)])
        XCTAssertFalse(door.warningOn)
    }

    func testPermitsAreNumberedInOrder() {
        var door = Door(timing: DoorTiming(pulse: .milliseconds(300), travel: .seconds(1), autoClose: nil))
        var numbers: [UInt64] = []
        for i in 0..<4 {
            numbers += door.request(open: i % 2 == 0, at: t(i * 2_000)).events.presses.map(\.number)
            _ = door.pressEnded(at: t(i * 2_000 + 300))
            _ = door.advance(to: t(i * 2_000 + 1_500))
        }
        XCTAssertEqual(numbers, [1, 2, 3, 4])
    }

    /// B4: a guest PIN flooding `O=0`/`O=1` on an open door starts the warning three times a
    /// minute, then gets ERR RATE; `H=` six times a minute. The owner's channel is its own.
    func testWarningsAndHoldsAreRateLimitedPerChannel() throws {
        var c = Controller(table: try PinTable(master: pin("12345"), capacity: 4),
                           door: Door(timing: timing, sensing: both, open: true, at: t(0)), store: MemoryStore())
        let phone = RequestSource("bluetooth 00:11", channel: .remote)
        let owner = RequestSource("local uid=0", channel: nil, isLocal: true)
        var warnings = 0, rate = 0
        for i in 0..<200 {
            let o = c.judgeAndAccount(Array((i % 2 == 0 ? "12345O=0" : "12345O=1").utf8), from: phone, at: t(i * 10))
            warnings += o.door.filter { $0 == .warning(on: true) }.count
            if o.result == .error(.rate) { rate += 1 }
        }
        XCTAssertEqual(warnings, 3)
        XCTAssertEqual(rate, 97)
        XCTAssertEqual(c.judgeAndAccount(Array("12345O=0".utf8), from: owner, at: t(2_000)).result, .ok, "the owner's own allowance")
        XCTAssertEqual(c.judgeAndAccount(Array("12345O=0".utf8), from: phone, at: t(62_000)).result, .ok, "one back every 20 s")
        var holds: [Reply] = []
        for i in 0..<10 { holds.append(c.judgeAndAccount(Array("12345H=\(i % 2)".utf8), from: phone, at: t(70_000 + i)).result) }
        XCTAssertEqual(holds.filter { $0 == .error(.rate) }.count, 4)
    }

    func testTheControllerKeepsAFailedCloseAndItsEnd() throws {
        let kept = MemoryDoorState()
        var c = Controller(table: try PinTable(master: pin("12345"), capacity: 4),
                           door: Door(timing: timing, sensing: both, open: true, at: t(0)), store: MemoryStore(),
                           doorStateStore: kept)
        _ = c.judgeAndAccount(Array("12345O=0".utf8), from: RequestSource("local uid=0", channel: nil, isLocal: true), at: t(0))
        c.warningShown(at: t(0))
        XCTAssertEqual(c.tick(at: t(5_000)).presses.map(\.reason), [.close])
        _ = c.pressEnded(at: t(5_300))
        _ = c.sensor(.open, active: false, at: t(6_000))
        _ = c.sensor(.open, active: true, at: t(9_000))
        XCTAssertEqual(kept.saved, [true])
        _ = c.sensor(.open, active: false, at: t(20_000))
        _ = c.sensor(.closed, active: true, at: t(30_000))
        XCTAssertEqual(kept.saved, [true, false])
        // A kept failure the door found resolved at start is cleared by the first input.
        let stale = MemoryDoorState()
        var d = Controller(table: try PinTable(master: pin("12345"), capacity: 4),
                           door: Door(timing: timing, sensing: both, closed: true, closeFailed: true, at: t(0)),
                           store: MemoryStore(), doorStateStore: stale, keptCloseFailed: true)
        _ = d.tick(at: t(1))
        XCTAssertEqual(stale.saved, [false])
    }
}

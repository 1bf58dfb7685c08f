import XCTest
@testable import DoorCore

/// The door with limit switches, on an injected clock with scripted edges: what the sensors
/// say wins, no press toward where the door is, a warned close, holds, faults, the light.
final class SensedDoorTests: XCTestCase {
    private let both = DoorSensing(closedSwitch: true, openSwitch: true)
    /// Travel 10 s, auto-close 30 s, warning 5 s, left open after 600 s, light 60 s.
    private let timing = DoorTiming(pulse: .milliseconds(300), travel: .seconds(10), autoClose: .seconds(30),
                                    warning: .seconds(5), leftOpen: .seconds(600), light: .seconds(60))

    private func closedDoor(_ sensing: DoorSensing? = nil, timing: DoorTiming? = nil, debounce: Duration = .zero,
                            anyOpening: Bool = true) -> Door {
        Door(timing: timing ?? self.timing, sensing: sensing ?? both, debounce: debounce, closed: true,
             autoCloseAnyOpening: anyOpening, at: t(0))
    }

    /// Presses among `events`.
    private func presses(_ events: [Door.Event]) -> [Door.Press] { pressed(events) }

    /// The door moving by itself (the opener doing what a press asked): the closed switch
    /// releases at `leave`, the open one closes at `arrive` (or the reverse).
    private func travel(_ door: inout Door, open: Bool, leave: Int, arrive: Int) -> [Door.Event] {
        door.sensor(open ? .closed : .open, active: false, at: t(leave))
            + door.sensor(open ? .open : .closed, active: true, at: t(arrive))
    }

    func testAnOpenAndAWarnedAutoCloseFollowTheSwitches() {
        var door = closedDoor()
        let decision = door.request(open: true, at: t(0))
        XCTAssertEqual(decision.reply, .ok)
        XCTAssertEqual(seen(decision.events), [.press(.open)], "the position waits for the switch")
        XCTAssertEqual(door.position, .closed)
        _ = door.pressEnded(at: t(300))
        XCTAssertEqual(seen(door.sensor(.closed, active: false, at: t(1_000))), [.moved(.opening, bySomeoneElse: false), .light(on: true)])
        XCTAssertEqual(seen(door.sensor(.open, active: true, at: t(11_000))), [.moved(.open, bySomeoneElse: false)])
        XCTAssertEqual(door.closesIn(at: t(11_000)), 35, "30 s of auto-close, then 5 s of warning")
        // The warning starts when auto-close falls due; the press comes 5 s after the daemon
        // confirmed the output on.
        XCTAssertEqual(seen(door.advance(to: t(41_000))), [.warning(on: true), .pressWarned(.autoClose)])
        door.warningShown(at: t(41_000))
        XCTAssertEqual(door.closesIn(at: t(43_000)), 3)
        XCTAssertEqual(seen(door.advance(to: t(46_000))), [.press(.autoClose)])
        _ = door.pressEnded(at: t(46_300))
        XCTAssertEqual(seen(door.sensor(.open, active: false, at: t(47_000))), [.moved(.closing, bySomeoneElse: false)])
        XCTAssertTrue(door.warningOn, "the warning runs through the closing travel")
        XCTAssertEqual(seen(door.sensor(.closed, active: true, at: t(57_000))), [.moved(.closed, bySomeoneElse: false), .warning(on: false)])
        XCTAssertNil(door.fault)
    }

    func testNeverPressesTowardWhereTheDoorIs() {
        var door = closedDoor()
        XCTAssertEqual(door.request(open: false, at: t(0)), .init(reply: .ok, events: [], refusal: .alreadyThere(.closed)), "closed: a close presses nothing")
        _ = door.request(open: true, at: t(0))
        _ = door.pressEnded(at: t(300))
        _ = travel(&door, open: true, leave: 1_000, arrive: 11_000)
        XCTAssertEqual(door.request(open: true, at: t(12_000)), .init(reply: .ok, events: [], refusal: .alreadyThere(.open)), "open: an open presses nothing")
        // Someone closes it with the wall button: the switches say so, and an open is a press again.
        _ = travel(&door, open: false, leave: 13_000, arrive: 23_000)
        XCTAssertEqual(door.position, .closed)
        XCTAssertEqual(door.request(open: false, at: t(24_000)).press, nil)
        XCTAssertEqual(door.request(open: true, at: t(24_000)).press, .open)
    }

    /// The hazard of the believed design: someone closes the door by hand before auto-close;
    /// with a sensor, auto-close never presses (which would open it again).
    func testADoorClosedByHandBeforeAutoCloseIsNotPressed() {
        var door = closedDoor()
        _ = door.request(open: true, at: t(0))
        _ = door.pressEnded(at: t(300))
        _ = travel(&door, open: true, leave: 1_000, arrive: 11_000)
        let closing = door.sensor(.open, active: false, at: t(20_000))
        XCTAssertEqual(closing.first, .moved(.closing, bySomeoneElse: true))
        XCTAssertEqual(seen(door.sensor(.closed, active: true, at: t(30_000))).first, .moved(.closed, bySomeoneElse: true))
        XCTAssertEqual(presses(door.advance(to: t(3_600_000))), [], "nothing pressed, ever")
    }

    func testADoorOpenedByItsRemoteIsSeenAndAutoClosedOrLeftAsConfigured() {
        var door = closedDoor()
        XCTAssertEqual(seen(door.sensor(.closed, active: false, at: t(0))).first, .moved(.opening, bySomeoneElse: true))
        XCTAssertEqual(seen(door.sensor(.open, active: true, at: t(10_000))), [.moved(.open, bySomeoneElse: true)])
        XCTAssertEqual(seen(door.advance(to: t(40_000))), [.warning(on: true), .pressWarned(.autoClose)],
                       "auto-closed like any other opening")
        door.warningShown(at: t(40_000))
        XCTAssertEqual(presses(door.advance(to: t(45_000))), [.autoClose])

        var own = closedDoor(anyOpening: false)
        _ = travel(&own, open: true, leave: 0, arrive: 10_000)
        XCTAssertNil(own.closesIn(at: t(10_000)))
        XCTAssertEqual(presses(own.advance(to: t(3_600_000))), [], "only openings garaged made are closed automatically")
    }

    func testAnyRequestOrMovementDuringTheWarningCancelsTheClose() {
        var door = closedDoor()
        _ = travel(&door, open: true, leave: 0, arrive: 10_000)
        XCTAssertEqual(seen(door.advance(to: t(40_000))), [.warning(on: true), .pressWarned(.autoClose)])
        door.warningShown(at: t(40_000))
        XCTAssertEqual(seen(door.request(open: true, at: t(42_000)).events),
                       [.pressCancelled(.autoClose, "an open request"), .warning(on: false)])
        XCTAssertEqual(presses(door.advance(to: t(45_000))), [], "no press after a cancelled warning")
        XCTAssertEqual(door.closesIn(at: t(45_000)), 32, "the countdown started again at the open request")
        // A user's close warns too; a sensor change during it calls it off.
        let close = door.request(open: false, at: t(50_000))
        XCTAssertEqual(close.reply, .ok)
        XCTAssertEqual(seen(close.events), [.warning(on: true), .pressWarned(.close)])
        door.warningShown(at: t(50_000))
        XCTAssertEqual(Array(seen(door.sensor(.open, active: false, at: t(52_000))).prefix(2)),
                       [.pressCancelled(.close, "the door moved"), .warning(on: false)])
        XCTAssertEqual(presses(door.advance(to: t(60_000))), [])
    }

    func testAHoldSuspendsAutoCloseUntilItEnds() {
        var noLight = timing
        noLight.light = nil
        var door = closedDoor(timing: noLight)
        _ = travel(&door, open: true, leave: 0, arrive: 10_000)
        XCTAssertEqual(door.hold(minutes: 2, at: t(20_000)).reply, .ok)
        XCTAssertNil(door.closesIn(at: t(20_000)))
        XCTAssertEqual(door.holdUntil, t(140_000), "two minutes from the request")
        XCTAssertEqual(seen(door.advance(to: t(139_999))), [])
        XCTAssertEqual(seen(door.advance(to: t(140_000))), [.holdEnded])
        XCTAssertEqual(door.closesIn(at: t(140_000)), 35)
        XCTAssertEqual(door.hold(minutes: 60, at: t(150_000)).reply, .ok)
        XCTAssertEqual(door.hold(minutes: 0, at: t(160_000)).reply, .ok, "H=0 ends it early")
        XCTAssertEqual(seen(door.advance(to: t(190_000))), [.warning(on: true), .pressWarned(.autoClose)])
    }

    /// An obstacle: the opener reverses the auto-close; the fault is reported, and auto-close
    /// does not try again by itself until the door is seen closed.
    func testAFailedCloseIsAFaultAndIsNotRetried() {
        var door = closedDoor()
        _ = travel(&door, open: true, leave: 0, arrive: 10_000)
        _ = door.advance(to: t(40_000))
        door.warningShown(at: t(40_000))
        _ = door.advance(to: t(45_000))
        _ = door.pressEnded(at: t(45_300))
        _ = door.sensor(.open, active: false, at: t(46_000))
        let reversed = door.sensor(.open, active: true, at: t(50_000))
        XCTAssertEqual(reversed.first, .moved(.open, bySomeoneElse: true))
        XCTAssertTrue(reversed.contains(.fault(.didNotClose)))
        XCTAssertTrue(reversed.contains(.warning(on: false)))
        XCTAssertEqual(door.fault, .didNotClose)
        XCTAssertNil(door.closesIn(at: t(50_000)))
        XCTAssertEqual(presses(door.advance(to: t(3_600_000))), [], "no blind retry")
        // Closed by someone: the fault clears and the next opening is auto-closed again.
        _ = travel(&door, open: false, leave: 3_700_000, arrive: 3_710_000)
        XCTAssertNil(door.fault)
        XCTAssertFalse(door.closeFailed)
        _ = travel(&door, open: true, leave: 3_800_000, arrive: 3_810_000)
        XCTAssertEqual(seen(door.advance(to: t(3_840_000))), [.warning(on: true), .pressWarned(.autoClose)])
    }

    func testAStuckDoorAndAStoppedDoor() {
        var stuck = closedDoor()
        _ = stuck.request(open: true, at: t(0))
        _ = stuck.pressEnded(at: t(300))
        XCTAssertEqual(seen(stuck.advance(to: t(10_000))), [.fault(.didNotMove)], "pressed, and the door never left CLOSED")
        XCTAssertEqual(stuck.position, .closed)

        var halfway = closedDoor()
        _ = halfway.request(open: true, at: t(0))
        _ = halfway.pressEnded(at: t(300))
        _ = halfway.sensor(.closed, active: false, at: t(1_000))
        let events = halfway.advance(to: t(11_000))
        XCTAssertEqual(events, [.moved(.stopped, bySomeoneElse: false), .fault(.didNotOpen)])
        XCTAssertEqual(halfway.position, .stopped)
        XCTAssertEqual(halfway.request(open: false, at: t(12_000)).press, nil, "a close from STOPPED warns first")
        halfway.warningShown(at: t(12_000))
        XCTAssertEqual(presses(halfway.advance(to: t(17_000))), [.close])
    }

    func testSwitchBounceIsDebounced() {
        var door = closedDoor(debounce: .milliseconds(100))
        XCTAssertEqual(seen(door.sensor(.closed, active: false, at: t(0))), [])
        XCTAssertEqual(seen(door.sensor(.closed, active: true, at: t(20))), [], "bounced back")
        XCTAssertEqual(seen(door.sensor(.closed, active: false, at: t(40))), [])
        XCTAssertEqual(door.nextDeadline, t(140))
        XCTAssertEqual(seen(door.advance(to: t(139))), [])
        XCTAssertEqual(seen(door.advance(to: t(140))).first, .moved(.opening, bySomeoneElse: true), "held 100 ms: it counts")
        XCTAssertEqual(seen(door.sensor(.closed, active: true, at: t(500))), [])
        XCTAssertEqual(seen(door.sensor(.closed, active: false, at: t(550))), [], "a blip shorter than the debounce is nothing")
        XCTAssertEqual(seen(door.advance(to: t(1_000))), [])
        XCTAssertEqual(door.position, .opening)
    }

    func testWithOnlyAClosedSwitchOpenIsInferredFromTheTravelTime() {
        let closedOnly = DoorSensing(closedSwitch: true)
        var door = closedDoor(closedOnly)
        _ = door.request(open: true, at: t(0))
        _ = door.pressEnded(at: t(300))
        _ = door.sensor(.closed, active: false, at: t(1_000))
        XCTAssertEqual(seen(door.advance(to: t(11_000))), [.moved(.open, bySomeoneElse: false)], "OPEN inferred when the travel time is up")
        XCTAssertNil(door.fault)
        // The close press cannot be seen starting: CLOSING at once, then the switch must close.
        _ = door.advance(to: t(41_000))
        door.warningShown(at: t(41_000))
        XCTAssertEqual(seen(door.advance(to: t(46_000))), [.press(.autoClose), .moved(.closing, bySomeoneElse: false)])
        _ = door.pressEnded(at: t(46_300))
        XCTAssertEqual(seen(door.advance(to: t(56_000))), [.moved(.stopped, bySomeoneElse: false), .fault(.didNotClose), .warning(on: false)],
                       "the sensed end not reached: STOPPED, and a fault")
    }

    func testNeverAtStartEvenWithTheDoorOpen() {
        var door = Door(timing: timing, sensing: both, open: true, at: t(0))
        XCTAssertEqual(door.position, .open)
        XCTAssertEqual(presses(door.advance(to: t(3_600_000))), [], "found open at start: reported, never closed unasked")
        var unknown = Door(timing: timing, sensing: both, at: t(0))
        XCTAssertEqual(unknown.position, .stopped, "neither switch: where it is is not known")
        XCTAssertEqual(presses(unknown.advance(to: t(3_600_000))), [])
        let conflict = Door(timing: timing, sensing: both, closed: true, open: true, at: t(0))
        XCTAssertEqual(conflict.fault, .sensors)
    }

    /// The daemon sets the warning output a moment after the door decides the close: the press
    /// waits a whole warning from when the output really went on, never less.
    func testTheCloseWaitsAWholeWarningFromWhenTheOutputWentOn() {
        var door = closedDoor()
        _ = door.sensor(.closed, active: false, at: t(1_000))
        _ = door.sensor(.open, active: true, at: t(11_000))
        XCTAssertEqual(seen(door.advance(to: t(41_000))), [.warning(on: true), .pressWarned(.autoClose)])
        door.warningShown(at: t(41_007))
        XCTAssertEqual(seen(door.advance(to: t(46_000))), [], "5 s after the decision, but not 5 s after the output")
        XCTAssertEqual(seen(door.advance(to: t(46_007))), [.press(.autoClose)])
        // An output that went on "before" the decision (a clock read early) never shortens it.
        var other = closedDoor()
        _ = other.sensor(.closed, active: false, at: t(1_000))
        _ = other.sensor(.open, active: true, at: t(11_000))
        _ = other.advance(to: t(41_000))
        other.warningShown(at: t(40_000))
        XCTAssertEqual(seen(other.advance(to: t(45_999))), [])
        XCTAssertEqual(seen(other.advance(to: t(46_000))), [.press(.autoClose)])
    }

    func testLeftOpenIsReportedAndRepeated() {
        var door = closedDoor(timing: DoorTiming(pulse: .milliseconds(300), travel: .seconds(10), autoClose: nil, leftOpen: .seconds(600)))
        _ = door.sensor(.closed, active: false, at: t(0))
        _ = door.sensor(.open, active: true, at: t(10_000))
        XCTAssertEqual(seen(door.advance(to: t(600_000))), [.leftOpen(.seconds(600))])
        XCTAssertEqual(seen(door.advance(to: t(1_199_999))), [])
        XCTAssertEqual(seen(door.advance(to: t(1_200_000))), [.leftOpen(.seconds(1200))])
        _ = door.sensor(.open, active: false, at: t(1_300_000))
        _ = door.sensor(.closed, active: true, at: t(1_310_000))
        XCTAssertEqual(seen(door.advance(to: t(3_600_000))), [], "closed: no more reports")
    }

    func testTheLightComesOnWithMovementAndByRequest() {
        var door = closedDoor()
        XCTAssertEqual(door.setLight(on: true, at: t(0)).events, [.light(on: true)])
        XCTAssertEqual(seen(door.advance(to: t(3_600_000))), [], "switched on by hand, it stays on")
        XCTAssertEqual(door.setLight(on: false, at: t(3_600_000)).events, [.light(on: false)])
        _ = door.sensor(.closed, active: false, at: t(3_601_000))
        XCTAssertTrue(door.lightOn)
        XCTAssertEqual(seen(door.advance(to: t(3_661_000))).last, .light(on: false), "60 s after the door started to move")
        var dark = Door(timing: DoorTiming.book, sensing: both, closed: true, at: t(0))
        XCTAssertEqual(dark.setLight(on: true, at: t(0)).reply, .error(.command), "no light wired")
    }
}

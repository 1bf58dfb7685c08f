import XCTest
@testable import DoorCore

/// The opener's photo-eye (`--sensor-obstruction`): no press that may close the door starts
/// while its beam is broken (a close, an open of a STOPPED door, a STOP of an opening one), a
/// warned one is called off when it breaks, an auto-close waits for another interval, an open
/// from CLOSED and a STOP of a closing door are never held back, and every audience reads it
/// from the status (HomeKit's ObstructionDetected).
final class ObstructionTests: XCTestCase {
    /// Travel 10 s, auto-close 30 s, warning 5 s; both limit switches and the photo-eye.
    private let timing = DoorTiming(pulse: .milliseconds(300), travel: .seconds(10), autoClose: .seconds(30), warning: .seconds(5))
    private let sensing = DoorSensing(closedSwitch: true, openSwitch: true, obstructionSwitch: true)

    private func openDoor(obstructed: Bool = false) -> Door {
        Door(timing: timing, sensing: sensing, open: true, obstructed: obstructed, at: t(0))
    }

    func testACloseIsRefusedWhileTheBeamIsBrokenAndNoWarningStarts() {
        var door = openDoor(obstructed: true)
        let close = door.request(open: false, at: t(1_000))
        XCTAssertEqual(close.reply, .error(.obstructed))
        XCTAssertEqual(close.refusal, .obstructed)
        XCTAssertFalse(door.warningOn, "no warning for a close that cannot start")
        XCTAssertEqual(pressed(door.advance(to: t(20_000))), [])
        // The beam clears: the same close is warned and then pressed.
        _ = door.sensor(.obstruction, active: false, at: t(20_000))
        _ = door.advance(to: t(20_000))
        XCTAssertEqual(door.request(open: false, at: t(21_000)).reply, .ok)
        XCTAssertTrue(door.warningOn)
        door.warningShown(at: t(21_000))
        XCTAssertEqual(pressed(door.advance(to: t(26_000))), [.close])
    }

    func testTheBeamBreakingDuringTheWarningCallsTheCloseOff() {
        var door = openDoor()
        XCTAssertEqual(door.request(open: false, at: t(1_000)).reply, .ok)
        door.warningShown(at: t(1_000))
        let broken = door.sensor(.obstruction, active: true, at: t(3_000))
        XCTAssertEqual(seen(broken), [.pressCancelled(.close, PressRefusal.obstructed.why), .warning(on: false)])
        XCTAssertEqual(door.position, .open, "the photo-eye says nothing of where the door is")
        XCTAssertEqual(pressed(door.advance(to: t(10_000))), [], "the close never comes")
        XCTAssertFalse(door.warningOn)
    }

    func testAnOpenFromClosedIsNeverHeldBackByTheBeam() {
        var door = Door(timing: timing, sensing: sensing, closed: true, obstructed: true, at: t(0))
        let open = door.request(open: true, at: t(1_000))
        XCTAssertEqual(open.reply, .ok)
        XCTAssertNotNil(open.press)
    }

    /// W4 (issue 29): a STOPPED door goes the other way, so with the beam broken `O=1` may close
    /// it: refused like a close (no warning, nothing pressed); once the beam is clear it is warned
    /// and pressed.
    func testAnOpenOfAStoppedDoorIsRefusedWhileTheBeamIsBroken() {
        var door = Door(timing: timing, sensing: DoorSensing(closedSwitch: true, obstructionSwitch: true), obstructed: true, at: t(0))
        XCTAssertEqual(door.position, .stopped)
        let open = door.request(open: true, at: t(1_000))
        XCTAssertEqual(open.reply, .error(.obstructed))
        XCTAssertEqual(open.refusal, .obstructed)
        XCTAssertEqual(seen(open.events), [], "no warning for a press that cannot start")
        XCTAssertFalse(door.warningOn)
        XCTAssertEqual(pressed(door.advance(to: t(20_000))), [])
        _ = door.sensor(.obstruction, active: false, at: t(20_000))
        _ = door.advance(to: t(20_000))
        XCTAssertEqual(seen(door.request(open: true, at: t(21_000)).events), [.warning(on: true), .pressWarned(.open)])
        door.warningShown(at: t(21_000))
        XCTAssertEqual(pressed(door.advance(to: t(26_000))), [.open])
    }

    /// W4: the beam breaking while the open of a STOPPED door is warned calls it off, as a close.
    func testTheBeamBreakingCallsOffAWarnedOpenOfAStoppedDoor() {
        var door = Door(timing: timing, sensing: DoorSensing(closedSwitch: true, obstructionSwitch: true), at: t(0))
        XCTAssertEqual(door.request(open: true, at: t(1_000)).reply, .ok)
        door.warningShown(at: t(1_000))
        let broken = door.sensor(.obstruction, active: true, at: t(3_000))
        XCTAssertEqual(seen(broken), [.pressCancelled(.open, PressRefusal.obstructed.why), .warning(on: false)])
        XCTAssertEqual(pressed(door.advance(to: t(10_000))), [], "the open never comes")
    }

    /// W4: some openers reverse a door pressed while it opens, so with the beam broken a STOP
    /// of an opening door is refused, and one being warned is called off when the beam breaks.
    func testAStopOfAnOpeningDoorIsRefusedWhileTheBeamIsBroken() {
        var door = Door(timing: timing, sensing: sensing, closed: true, at: t(0))
        _ = door.sensor(.closed, active: false, at: t(1_000))  // opened by its remote
        XCTAssertEqual(door.position, .opening)
        XCTAssertEqual(seen(door.stop(at: t(1_500)).events), [.warning(on: true), .pressWarned(.stop)])
        door.warningShown(at: t(1_500))
        let broken = door.sensor(.obstruction, active: true, at: t(2_000))
        XCTAssertEqual(seen(broken), [.pressCancelled(.stop, PressRefusal.obstructed.why), .warning(on: false)])
        let stop = door.stop(at: t(2_500))
        XCTAssertEqual(stop.reply, .error(.obstructed))
        XCTAssertEqual(seen(stop.events), [], "no warning for a press that cannot start")
        XCTAssertEqual(pressed(door.advance(to: t(8_000))), [])
        XCTAssertEqual(door.position, .opening)
    }

    /// A STOP of a closing door is what a broken beam asks for: still pressed.
    func testAStopOfAClosingDoorIsStillPressedWhileTheBeamIsBroken() {
        var door = closingDoor(timing: timing, sensing: sensing)
        _ = door.sensor(.obstruction, active: true, at: t(7_000))
        let stop = door.stop(at: t(7_000))
        XCTAssertEqual(stop.reply, .ok)
        XCTAssertEqual(pressed(stop.events), [.stop])
        XCTAssertEqual(door.position, .stopped)
    }

    func testAnAutoCloseWaitsAnotherIntervalWhileTheBeamIsBroken() {
        var door = Door(timing: timing, sensing: sensing, closed: true, at: t(0))
        XCTAssertEqual(pressed(door.request(open: true, at: t(0)).events), [.open])
        _ = door.pressEnded(at: t(300))
        _ = door.sensor(.closed, active: false, at: t(1_000))
        _ = door.sensor(.open, active: true, at: t(9_000))
        _ = door.advance(to: t(9_000))
        XCTAssertEqual(door.position, .open)
        _ = door.sensor(.obstruction, active: true, at: t(10_000))
        _ = door.advance(to: t(10_000))
        XCTAssertEqual(pressed(door.advance(to: t(40_000))), [], "no close with the beam broken")
        XCTAssertFalse(door.warningOn, "and no warning for it")
        XCTAssertNotNil(door.closesAt(at: t(40_000)), "the auto-close is armed again for another interval")
        _ = door.sensor(.obstruction, active: false, at: t(50_000))
        _ = door.advance(to: t(50_000))
        XCTAssertFalse(door.warningOn)
        _ = door.advance(to: t(69_900))
        XCTAssertFalse(door.warningOn, "not before another whole interval from the refusal")
        _ = door.advance(to: t(70_000))
        XCTAssertTrue(door.warningOn, "once the beam is clear the next auto-close is warned")
    }

    /// W8 (issue 29): the beam broken 30 times for 60 ms, 40 ms clear between, during a warned
    /// close, with the default 100 ms debounce. Debounced both ways, as a limit switch, no break
    /// ever counted and the close was pressed. A break counts at once: the close is called off
    /// at the first; the beam reads broken throughout (a close asked in a clear gap is refused)
    /// and clear only once it stayed clear for the debounce. The door is driven as the daemon's
    /// loop drives it: each edge with its stamp, then a turn (`advance`) at that time.
    func testABeamBrokenBrieflyAgainAndAgainStopsAWarnedClose() {
        var door = Door(timing: timing, sensing: sensing, debounce: .milliseconds(100), open: true, at: t(0))
        XCTAssertEqual(door.request(open: false, at: t(0)).reply, .ok)
        door.warningShown(at: t(0))
        var events: [Door.Event] = []
        for i in 0..<30 {
            let broke = 3_000 + i * 100
            events += door.sensor(.obstruction, active: true, at: t(broke)) + door.advance(to: t(broke))
            XCTAssertEqual(door.isActive(.obstruction), true, "break \(i + 1) counts at once")
            events += door.sensor(.obstruction, active: false, at: t(broke + 60)) + door.advance(to: t(broke + 60))
            events += door.advance(to: t(broke + 99))
            XCTAssertEqual(door.isActive(.obstruction), true, "40 ms clear is not clear")
            if i == 15 { XCTAssertEqual(door.request(open: false, at: t(broke + 80)).reply, .error(.obstructed)) }
        }
        XCTAssertEqual(seen(events).filter { if case .pressCancelled = $0 { return true } else { return false } },
                       [.pressCancelled(.close, PressRefusal.obstructed.why)], "called off at the first break")
        // The last clear came at 5,960 ms: the beam counts as clear 100 ms later, not before.
        events += door.advance(to: t(6_059))
        XCTAssertEqual(door.isActive(.obstruction), true)
        events += door.advance(to: t(6_060))
        XCTAssertEqual(door.isActive(.obstruction), false)
        events += door.advance(to: t(20_000))
        XCTAssertEqual(pressed(events), [], "the close is never pressed")
        XCTAssertFalse(door.warningOn)
    }

    func testTheStatusAndHomeKitReadTheBeam() {
        var controller = Controller(table: try! PinTable(master: PIN("12345")!, capacity: 4),
                                    door: openDoor(obstructed: true), store: MemoryStore())
        XCTAssertEqual(controller.status(at: t(0)).obstructed, true)
        XCTAssertTrue(HAPDoorView(controller.status(at: t(0))).obstruction)
        _ = controller.sensor(.obstruction, active: false, at: t(1_000))
        _ = controller.tick(at: t(1_000))
        XCTAssertEqual(controller.status(at: t(1_000)).obstructed, false)
        XCTAssertFalse(HAPDoorView(controller.status(at: t(1_000))).obstruction)
        XCTAssertNil(Controller(table: try! PinTable(master: PIN("12345")!, capacity: 4), door: Door(timing: timing),
                                store: MemoryStore()).status(at: t(0)).obstructed, "no photo-eye, no reading")
    }
}

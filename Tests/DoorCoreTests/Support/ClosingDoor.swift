import XCTest
@testable import DoorCore

/// A door seen OPEN at 0 that garaged closes with its warning (5 s in the tests' timings), then
/// past its open switch at 6 s: the closing door a STOP is pressed on.
func closingDoor(timing: DoorTiming, sensing: DoorSensing, file: StaticString = #filePath, line: UInt = #line) -> Door {
    var door = Door(timing: timing, sensing: sensing, open: true, at: t(0))
    _ = door.request(open: false, at: t(0))
    door.warningShown(at: t(0))
    XCTAssertEqual(pressed(door.advance(to: t(5_000))), [.close], file: file, line: line)
    _ = door.pressEnded(at: t(5_300))
    _ = door.sensor(.open, active: false, at: t(6_000))
    XCTAssertEqual(door.position, .closing, file: file, line: line)
    return door
}

import DoorCore
@testable import GaragedKit
import XCTest

/// `opener = secplus1:DEVICE` in process: what it makes of the door, its refusals, and the Pi's
/// mini UART (no parity) refused at start and by doctor, directly or through a link, naming the
/// PL011 to use instead.
final class SecPlus1SettingsTests: XCTestCase {
    /// A Security+ 1.0 opener reports the door (the status says `secplus1`), flashes its light as
    /// the warning without a warn output, listens 15 s for a panel unless told otherwise.
    func testASecPlus1OpenerIsTheDoorsReportAndItsWarning() throws {
        let s = try settings(["--opener", "secplus1:/dev/ttyAMA0", "--no-ble"])
        XCTAssertEqual(s.door.opener, .secPlus1(device: "/dev/ttyAMA0"))
        XCTAssertEqual(s.door.sensing.opener, "the Security+ 1.0 opener on /dev/ttyAMA0")
        XCTAssertEqual(s.door.sensing.openerKind?.id, "secplus1")
        XCTAssertEqual(s.door.sensing.openerDevice, "/dev/ttyAMA0")
        XCTAssertTrue(s.door.timing.warningFlashesLight)
        XCTAssertNotNil(s.door.timing.warning, "the gate warns every press from anywhere but CLOSED")
        XCTAssertEqual(s.door.openerListenS, 15)
        XCTAssertEqual(try settings(["--opener", "secplus1:/dev/ttyAMA0", "--opener-listen-s", "3", "--no-ble"]).door.openerListenS, 3)
        XCTAssertEqual(SecPlus1Session.line, OpenerLine(baud: 1200, evenParity: true, breakBefore: nil))
    }

    /// A spec without its device, or of a kind garaged does not speak, says what it accepts.
    func testABadSpecSaysWhatIsAccepted() {
        XCTAssertEqual(refusal(["--opener", "secplus1:"]), "--opener secplus1:: secplus1: needs the serial device, e.g. secplus1:/dev/serial0 on a Pi 3, 4, 400 or Zero 2 W, secplus1:/dev/ttyAMA0 on a Pi 5")
        let other = refusal(["--opener", "secplus3:/dev/ttyAMA0"]) ?? ""
        XCTAssertTrue(other.contains("'secplus3:/dev/ttyAMA0' is not an opener garaged speaks to; it accepts secplus2:DEVICE"), other)
        XCTAssertTrue(other.contains("secplus1:DEVICE (Security+ 1.0"), other)
    }

    /// The mini UART, by its name or through links (absolute or relative, as /dev/serial0 is),
    /// is refused naming /dev/ttyAMA0; the PL011 and a pty pass.
    func testTheMiniUARTIsRefusedDirectlyOrThroughALink() throws {
        let dir = try TempFolder()
        XCTAssertTrue(MiniUART.refusal("/dev/ttyS0")?.contains("use the PL011, secplus1:/dev/ttyAMA0") ?? false)
        let auto = MiniUART.refusal("/dev/ttyS0", for: .auto) ?? ""
        XCTAssertTrue(auto.contains("auto may find Security+ 1.0") && auto.contains("use the PL011, auto:/dev/ttyAMA0"), "auto's fix names auto: \(auto)")
        XCTAssertEqual(symlink("/dev/ttyS0", dir.file("serial0")), 0)
        XCTAssertEqual(symlink("serial0", dir.file("opener")), 0)
        XCTAssertTrue(MiniUART.refusal(dir.file("serial0"))?.hasPrefix("\(dir.file("serial0")) is the Raspberry Pi's mini UART (ttyS0), which has no parity") ?? false)
        XCTAssertNotNil(MiniUART.refusal(dir.file("opener")), "two links deep: \(MiniUART.chain(dir.file("opener")))")
        XCTAssertEqual(symlink("/dev/ttyAMA0", dir.file("uart")), 0)
        XCTAssertNil(MiniUART.refusal(dir.file("uart")))
        XCTAssertNil(MiniUART.refusal("/dev/pts/3"))
    }

    /// doctor says the same of a 1.0 opener on the mini UART, and asks nothing of it.
    func testDoctorFailsTheMiniUARTForSecPlus1() throws {
        let dir = try TempFolder()
        XCTAssertEqual(symlink("/dev/ttyS0", dir.file("serial0")), 0)
        let s = try settings(["--pins", dir.file("pins"), "--socket", dir.file("s.sock"), "--no-ble", "--opener", "secplus1:\(dir.file("serial0"))"])
        var report = DoctorReport()
        DoctorChecks(settings: s).openers(into: &report)
        XCTAssertTrue(report.failed)
        XCTAssertTrue(report.text.contains("FAIL  opener: \(dir.file("serial0")) is the Raspberry Pi's mini UART (ttyS0)"), report.text)
        XCTAssertTrue(report.text.contains("secplus1:/dev/ttyAMA0"), report.text)
    }
}

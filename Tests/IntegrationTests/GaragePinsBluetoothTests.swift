import Foundation
import XCTest

/// The owner's local-socket extensions never reach Bluetooth: through the daemon's ATT seam (the
/// same ATT server a phone talks to) every `L` request is `ERR CMD`, changes nothing, and is not
/// counted as a wrong PIN; the book's commands still work beside them.
final class GaragePinsBluetoothTests: GaragedTestCase {
    func testAnATTBearerIsAnsweredErrCmdForEveryLocalExtension() throws {
        let daemon = try startATTDaemon()
        let phone = try connectBearer(daemon)
        XCTAssertEqual(try phone.enableNotifications(), "13")
        for request in ["12345Llist", "12345Ladd abcde Eve", "12345Llabel 1 Eve", "12345Lstatus",
                        "12345Llog", "12345Lfollow log", "12345Lfollow status", "12345Lnope", "12345L"] {
            try phone.writeCommand(request)
            XCTAssertEqual(try phone.notification(), "ERR CMD", request)
        }
        try phone.writeCommand("12345Aabcde")
        XCTAssertEqual(try phone.notification(), "OK 1")
        XCTAssertEqual(readBytes(pinsPath), expectedImage(slots([1: "abcde"])))
        // Nothing was counted against the throttle, and no label was written.
        XCTAssertTrue(try daemon.ask("12345Lstatus").hasPrefix(#"{"door":"CLOSED","auto_close_s":null,"locked_s":0,"failures":0,"lockout":{"remote":{"locked_s":0,"failures":0},"local":{"locked_s":0,"failures":0}},"mode":"believed""#))
        XCTAssertFalse(readText(pinsPath + ".labels").contains("Eve"))
    }
}

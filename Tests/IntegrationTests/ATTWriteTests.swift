import Foundation
import XCTest

/// Commands written to 6E400002 (value handle 0x000C) and replies notified on 6E400003 (value
/// handle 0x000E), as the book's app does it, through the daemon's ATT seam; and per-bearer state.
final class ATTWriteTests: GaragedTestCase {
    /// Write Command (3.4.5.3, opcode 0x52, never answered) of `12345O=1`: one 300 ms press, and
    /// the reply record as a Handle Value Notification (3.4.7.1): 1B, handle 0x000E, "OK".
    func testWriteCommandOpensAndNotifiesOK() throws {
        let daemon = try startATTDaemon()
        let phone = try connectBearer(daemon)
        XCTAssertEqual(try phone.enableNotifications(), "13")

        try phone.send("52 0C 00 " + attHex("12345O=1"))
        // The first PDU after a Write Command is the notification: there is no Write Response.
        XCTAssertEqual(try phone.receive(), "1B 0E 00 4F 4B")
        if let press = try waitForNextPress(daemon) { assertWidth(press, 300, "ATT Write Command 12345O=1") }
        XCTAssertEqual(daemon.stop(), .exited(0))
        XCTAssertEqual(try daemon.trace().map(\.level), [0, 1, 0], "exactly one press")
    }

    /// Write Request (3.4.5.1, 0x12) of the same: Write Response 0x13 first, then the notification.
    func testWriteRequestOpensThenNotifiesOK() throws {
        let daemon = try startATTDaemon()
        let phone = try connectBearer(daemon)
        XCTAssertEqual(try phone.enableNotifications(), "13")

        XCTAssertEqual(try phone.exchange("12 0C 00 31 32 33 34 35 4F 3D 31"), "13")
        XCTAssertEqual(try phone.receive(), "1B 0E 00 4F 4B")
        if let press = try waitForNextPress(daemon) { assertWidth(press, 300, "ATT Write Request 12345O=1") }
        XCTAssertEqual(daemon.stop(), .exited(0))
        XCTAssertEqual(try daemon.trace().map(\.level), [0, 1, 0], "exactly one press")
    }

    /// A multi-record answer arrives as one notification per record, in order.
    func testListIsOneNotificationPerRecord() throws {
        let daemon = try startATTDaemon()
        let phone = try connectBearer(daemon)
        XCTAssertEqual(try phone.enableNotifications(), "13")

        try phone.writeCommand("12345Aaaaaa")
        XCTAssertEqual(try phone.notification(), "OK 1")
        XCTAssertEqual(try phone.writeRequest("12345Abbbbb"), "13")
        XCTAssertEqual(try phone.notification(), "OK 2")

        try phone.writeCommand("12345P")
        XCTAssertEqual(try phone.receive(), "1B 0E 00 " + attHex("1=aaaaa"))
        XCTAssertEqual(try phone.receive(), "1B 0E 00 " + attHex("2=bbbbb"))
        XCTAssertEqual(try phone.receive(), "1B 0E 00 " + attHex("OK 2"))
        try phone.assertNothingPending("after the list's final record")

        // The owner's local view agrees, and the table on disk holds both.
        XCTAssertEqual(try daemon.connect().request("12345P"), ["1=aaaaa", "2=bbbbb", "OK 2"])
        XCTAssertEqual(readBytes(pinsPath), expectedImage(slots([1: "aaaaa", 2: "bbbbb"])))
    }

    /// Without the CCCD written, an open still presses, but no notification is sent (and a Write
    /// Request still gets its Write Response: that is ATT, not the reply).
    func testWithoutNotificationsTheOpenPressesSilently() throws {
        let daemon = try startATTDaemon()
        let phone = try connectBearer(daemon)

        try phone.writeCommand("12345O=1")
        // The press first, whole: by the release the reply had long been sent, had there been one.
        let press = try waitForNextPress(daemon)
        if let press { assertWidth(press, 300, "ATT Write Command without notifications") }
        // Then a bounded window in which nothing may arrive.
        let silenceMs = 150
        let stray = try phone.next(within: .milliseconds(silenceMs))
        XCTAssertNil(stray, "no notification without the CCCD, but got \(stray.map(\.description) ?? "")")
        print("ATT silence window ms: \(silenceMs) (no packet after the press end)")

        // A Write Request is answered with 0x13 and nothing more.
        XCTAssertEqual(try phone.writeRequest("12345S"), "13")
        try phone.assertNothingPending("a status request without notifications")
        XCTAssertEqual(try phone.exchange("0A 0F 00"), "0B 00 00", "the CCCD is still 0x0000")
        XCTAssertEqual(daemon.stop(), .exited(0))
        XCTAssertEqual(try daemon.trace().map(\.level), [0, 1, 0])
    }

    /// Two bearers at once: MTU and CCCD are each bearer's own, and replies go only to the bearer
    /// whose write they answer.
    func testTwoBearersHaveSeparateMTUAndNotifications() throws {
        let daemon = try startATTDaemon()
        let a = try connectBearer(daemon)
        let b = try connectBearer(daemon)

        XCTAssertEqual(try a.exchangeMTU(0x00F7), "03 F7 00")
        XCTAssertEqual(try a.enableNotifications(), "13")
        XCTAssertEqual(try a.exchange("0A 0F 00"), "0B 01 00")
        XCTAssertEqual(try b.exchange("0A 0F 00"), "0B 00 00", "B's CCCD is not A's")

        // Characteristic discovery shows each bearer's MTU: A (247) gets both declarations in one
        // response, B (23) only the first.
        XCTAssertEqual(try a.exchange("08 0A 00 0F 00 03 28"),
                       "09 15 0B 00 0C 0C 00 " + NUSWire.command + " 0D 00 10 0E 00 " + NUSWire.reply)
        XCTAssertEqual(try b.exchange("08 0A 00 0F 00 03 28"), "09 15 0B 00 0C 0C 00 " + NUSWire.command)

        // So does the longest write: 21 octets is over B's ATT_MTU-3 = 20 (Invalid Attribute Value
        // Length, 0x0D) but within A's 244; it reaches the controller, whose ERR FORMAT only A,
        // subscribed, is notified of.
        let long21 = "12345S" + String(repeating: " ", count: 15)
        XCTAssertEqual(try b.writeRequest(long21), "01 12 0C 00 0D")
        XCTAssertEqual(try a.writeRequest(long21), "13")
        XCTAssertEqual(try a.notification(), "ERR FORMAT")

        // A asks: the reply goes to A only.
        try a.writeCommand("12345S")
        XCTAssertEqual(try a.notification(), "S CLOSED")
        try b.assertNothingPending("B after A's status request")
        // B asks: B gets its Write Response, no notification (B did not subscribe), and nothing
        // reaches A.
        XCTAssertEqual(try b.writeRequest("12345S"), "13")
        try b.assertNothingPending("B's own status request")
        try a.assertNothingPending("A after B's status request")

        // B now exchanges a smaller MTU of its own (64): its limit becomes 61, A keeps 244.
        XCTAssertEqual(try b.exchangeMTU(0x0040), "03 F7 00")
        XCTAssertEqual(try b.writeRequest("12345S" + String(repeating: " ", count: 56)), "01 12 0C 00 0D", "62 > 64-3")
        XCTAssertEqual(try b.writeRequest("12345S" + String(repeating: " ", count: 55)), "13", "61 = 64-3")
        XCTAssertEqual(try a.writeRequest("12345S" + String(repeating: " ", count: 56)), "13")
        XCTAssertEqual(try a.notification(), "ERR FORMAT")
        try b.assertNothingPending("B after its 61-octet write (B is not subscribed)")
        XCTAssertEqual(try daemon.trace().count, 1, "nothing here presses")
    }
}

import XCTest
@testable import DoorCore

final class ATTServerWriteTests: XCTestCase {
    func testWriteRequestsToReadOnlyOrUnknownAttributes() {
        var s = garageServer()
        XCTAssertEqual(s.respond("12 03 00 41"), spaced("01 12 03 00 03"))  // Device Name
        XCTAssertEqual(s.respond("12 01 00 00 18"), spaced("01 12 01 00 03"))  // service declaration
        XCTAssertEqual(s.respond("12 0B 00 00"), spaced("01 12 0B 00 03"))  // characteristic declaration
        XCTAssertEqual(s.respond("12 0E 00 4F 4B"), spaced("01 12 0E 00 03"))  // 6E400003's value
        XCTAssertEqual(s.respond("12 08 00 01 00 0F 00"), spaced("01 12 08 00 03"))  // Service Changed
        XCTAssertEqual(s.respond("12 00 00 01"), spaced("01 12 00 00 01"))
        XCTAssertEqual(s.respond("12 10 00 01"), spaced("01 12 10 00 01"))
    }

    func testCCCDWrites() {
        var s = garageServer()
        XCTAssertEqual(s.respond("12 0F 00 01"), spaced("01 12 0F 00 0D"))
        XCTAssertEqual(s.respond("12 0F 00"), spaced("01 12 0F 00 0D"))
        XCTAssertEqual(s.respond("12 0F 00 01 00 00"), spaced("01 12 0F 00 0D"))
        // Indications on a notify-only characteristic, and reserved bits.
        XCTAssertEqual(s.respond("12 0F 00 02 00"), spaced("01 12 0F 00 FD"))
        XCTAssertEqual(s.respond("12 0F 00 03 00"), spaced("01 12 0F 00 FD"))
        XCTAssertEqual(s.respond("12 0F 00 01 80"), spaced("01 12 0F 00 FD"))
        XCTAssertFalse(s.notificationsEnabled)
        // Service Changed takes indications only.
        XCTAssertEqual(s.respond("12 09 00 01 00"), spaced("01 12 09 00 FD"))
        XCTAssertEqual(s.respond("12 09 00 02 00"), "13")
        XCTAssertEqual(s.respond("0A 09 00"), spaced("0B 02 00"))
        XCTAssertFalse(s.notificationsEnabled)
        // On, then off again.
        XCTAssertEqual(s.respond("12 0F 00 01 00"), "13")
        XCTAssertTrue(s.notificationsEnabled)
        XCTAssertEqual(s.respond("12 0F 00 00 00"), "13")
        XCTAssertFalse(s.notificationsEnabled)
        XCTAssertEqual(try s.notification(Array("OK".utf8)), nil)
    }

    func testCommandWritesByRequestAndByCommand() {
        var s = garageServer()
        let open = Array("12345O=1".utf8)
        XCTAssertEqual(s.answer(wire("12 0C 00") + open), ATTServer.Output(response: [0x13], command: open))
        XCTAssertEqual(s.answer(wire("52 0C 00") + open), ATTServer.Output(command: open))
        // An empty write is still one write; CommandCodec answers ERR FORMAT for it.
        XCTAssertEqual(s.answer(wire("52 0C 00")), ATTServer.Output(command: []))
        // Exactly ATT_MTU-3 = 20 octets is the book's limit and passes.
        let twenty = [UInt8](repeating: 0x31, count: 20)
        XCTAssertEqual(s.answer(wire("52 0C 00") + twenty), ATTServer.Output(command: twenty))
    }

    func testOverlongWritesAreRefusedNeverTruncated() {
        var s = garageServer()
        let long = [UInt8](repeating: 0x31, count: 21)
        // Write Request: Invalid Attribute Value Length at the handle, and no command.
        XCTAssertEqual(s.answer(wire("12 0C 00") + long), ATTServer.Output(response: wire("01 12 0C 00 0D")))
        // Write Command: silently dropped.
        XCTAssertEqual(s.answer(wire("52 0C 00") + long), ATTServer.Output())
        // After an MTU exchange the limit is ATT_MTU-3.
        XCTAssertEqual(s.respond("02 20 00"), spaced("03 F7 00"))  // 32
        XCTAssertEqual(s.answer(wire("52 0C 00") + long), ATTServer.Output(command: long))
        let thirty = [UInt8](repeating: 0x31, count: 30)
        XCTAssertEqual(s.answer(wire("12 0C 00") + thirty), ATTServer.Output(response: wire("01 12 0C 00 0D")))
    }

    func testWriteCommandsThatFailAreSilent() {
        var s = garageServer()
        XCTAssertEqual(s.answer(wire("52 03 00 41")), ATTServer.Output())       // read-only
        XCTAssertEqual(s.answer(wire("52 10 00 41")), ATTServer.Output())       // no such handle
        XCTAssertEqual(s.answer(wire("52 00 00 41")), ATTServer.Output())
        // A CCCD is written with Write Request only; a command leaves it alone.
        XCTAssertEqual(s.answer(wire("52 0F 00 01 00")), ATTServer.Output())
        XCTAssertFalse(s.notificationsEnabled)
        XCTAssertEqual(s.answer(wire("52 0C")), ATTServer.Output(malformed: true))  // malformed
    }

    func testNotifications() throws {
        var s = garageServer()
        // Not subscribed: nothing to send.
        XCTAssertNil(try s.notification(Array("OK".utf8)))
        XCTAssertEqual(s.respond("12 0F 00 01 00"), "13")
        // The longest reply record, 20 octets, fits the default MTU exactly.
        let record = Array("ERR LOCKED 123456789".utf8)
        XCTAssertEqual(record.count, Reply.maxRecordLength)
        XCTAssertEqual(try s.notification(record), wire("1B 0E 00") + record)
        XCTAssertEqual(try s.notification([]), wire("1B 0E 00"))
        // One octet more would have to be cut: refused, subscribed or not.
        XCTAssertThrowsError(try s.notification(record + [0x20])) {
            XCTAssertEqual($0 as? ATTNotificationError, .tooLong(length: 21, limit: 20))
        }
        XCTAssertThrowsError(try garageServer().notification(record + [0x20]))
        XCTAssertEqual(s.respond("02 B9 00"), spaced("03 F7 00"))
        XCTAssertEqual(try s.notification(record + [0x20]), wire("1B 0E 00") + record + [0x20])
    }
}

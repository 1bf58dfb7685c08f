import XCTest
@testable import DoorCore

/// The whole conversation a phone has with the garage, each response derived by hand from the
/// Core spec's PDU tables and the layout in GarageGATT.
final class ATTServerDiscoveryTests: XCTestCase {
    func testTheBookPhoneAtTheDefaultMTU() {
        var s = garageServer()

        // Primary services, 0x0001-0xFFFF: two 16-bit services (6-octet entries), then the list
        // stops because the UART service's value is 16 octets long.
        XCTAssertEqual(s.respond("10 01 00 FF FF 00 28"),
                       spaced("11 06  01 00 05 00 00 18  06 00 09 00 01 18"))
        // Continue from the last end handle + 1.
        XCTAssertEqual(s.respond("10 0A 00 FF FF 00 28"), spaced("11 14  0A 00 0F 00 " + UART.service))
        XCTAssertEqual(s.respond("10 10 00 FF FF 00 28"), spaced("01 10 10 00 0A"))
        XCTAssertFalse(s.answer(wire("10 10 00 FF FF 00 28")).malformed,
                       "Attribute Not Found is how discovery ends, not garbage")

        // Characteristics of the UART service: one 21-octet entry fills the 23-octet MTU exactly.
        XCTAssertEqual(s.respond("08 0A 00 0F 00 03 28"), spaced("09 15  0B 00  0C 0C 00 " + UART.command))
        XCTAssertEqual(s.respond("08 0C 00 0F 00 03 28"), spaced("09 15  0D 00  10 0E 00 " + UART.reply))
        XCTAssertEqual(s.respond("08 0E 00 0F 00 03 28"), spaced("01 08 0E 00 0A"))

        // Descriptors of 6E400003: from its value handle + 1 to the service end.
        XCTAssertEqual(s.respond("04 0F 00 0F 00"), spaced("05 01  0F 00 02 29"))

        // Enable notifications, then the write that opens the door.
        XCTAssertFalse(s.notificationsEnabled)
        XCTAssertEqual(s.respond("12 0F 00 01 00"), "13")
        XCTAssertTrue(s.notificationsEnabled)
        let out = s.answer(wire("52 0C 00 31 32 33 34 35 4F 3D 31"))
        XCTAssertNil(out.response)
        XCTAssertEqual(out.command, Array("12345O=1".utf8))
        XCTAssertEqual(CommandCodec.decode(out.command!), .success(Request(pin: pin("12345"), command: .open)))

        // The reply "OK" as a Handle Value Notification on 0x000E.
        XCTAssertEqual(try s.notification(Reply.ok.bytes), wire("1B 0E 00 4F 4B"))
        XCTAssertEqual(try s.notification(Reply.status(.open, autoCloseIn: 30).bytes),
                       wire("1B 0E 00") + Array("S OPEN 30".utf8))

        // Device Name.
        XCTAssertEqual(s.respond("0A 03 00"), spaced("0B 47 61 72 61 67 65"))
        XCTAssertEqual(s.mtu, 23)
    }

    func testAfterAnMTUExchange() {
        var s = garageServer()
        // An iPhone offers 517; we answer our 247 (F7 00) and both use 247.
        XCTAssertEqual(s.respond("02 05 02"), spaced("03 F7 00"))
        XCTAssertEqual(s.mtu, 247)

        // Every attribute from 0x0001 up to the first 128-bit type, in one response.
        XCTAssertEqual(s.respond("04 01 00 FF FF"), spaced("""
            05 01  01 00 00 28  02 00 03 28  03 00 00 2A  04 00 03 28  05 00 01 2A  06 00 00 28
                   07 00 03 28  08 00 05 2A  09 00 02 29  0A 00 00 28  0B 00 03 28
            """))
        // All 7-octet characteristic declarations at once; 0x000B's is longer and ends the list.
        XCTAssertEqual(s.respond("08 01 00 FF FF 03 28"), spaced("""
            09 07  02 00 02 03 00 00 2A  04 00 02 05 00 01 2A  07 00 20 08 00 05 2A
            """))
        // Service discovery by UUID (what CoreBluetooth sends for discoverServices([uuid])).
        XCTAssertEqual(s.respond("06 01 00 FF FF 00 28 " + UART.service), spaced("07 0A 00 0F 00"))
        XCTAssertEqual(s.respond("06 10 00 FF FF 00 28 " + UART.service), spaced("01 06 10 00 0A"))
        XCTAssertEqual(s.respond("06 01 00 FF FF 00 28 00 18"), spaced("07 01 00 05 00"))
        // A 20-octet command by Write Request is fine at any MTU.
        let out = s.answer(wire("12 0C 00") + [UInt8](repeating: 0x41, count: 20))
        XCTAssertEqual(out, ATTServer.Output(response: [0x13], command: [UInt8](repeating: 0x41, count: 20)))
    }

    func testPaginationAtTheDefaultMTU() {
        var s = garageServer()
        // Five 4-octet entries fill 2 + 20 = 22 of 23 octets.
        XCTAssertEqual(s.respond("04 01 00 FF FF"),
                       spaced("05 01  01 00 00 28  02 00 03 28  03 00 00 2A  04 00 03 28  05 00 01 2A"))
        // A 128-bit type: one handle-UUID pair per response (format 0x02).
        XCTAssertEqual(s.respond("04 0C 00 0F 00"), spaced("05 02  0C 00 " + UART.command))
        XCTAssertEqual(s.respond("04 0E 00 0F 00"), spaced("05 02  0E 00 " + UART.reply))
        // Three 7-octet declarations fill 2 + 21 = 23 octets exactly.
        XCTAssertEqual(s.respond("08 01 00 FF FF 03 28"), spaced("""
            09 07  02 00 02 03 00 00 2A  04 00 02 05 00 01 2A  07 00 20 08 00 05 2A
            """))
        XCTAssertEqual(s.respond("08 08 00 FF FF 03 28"), spaced("09 15  0B 00 0C 0C 00 " + UART.command))
    }

    func testResponsesFillTheMTUExactly() {
        var s = garageServer()
        // ATT_MTU 26: 2 + 6 x 4 = 26, so a sixth Find Information entry just fits, a seventh not.
        XCTAssertEqual(s.respond("02 1A 00"), spaced("03 F7 00"))
        XCTAssertEqual(s.respond("04 01 00 FF FF"), spaced("""
            05 01  01 00 00 28  02 00 03 28  03 00 00 2A  04 00 03 28  05 00 01 2A  06 00 00 28
            """))
        // 1 + 6 x 4 = 25: six Find By Type Value entries would fit; the CCCDs are two.
        XCTAssertEqual(s.respond("06 01 00 FF FF 02 29 00 00"), spaced("07 09 00 09 00 0F 00 0F 00"))
    }

    func testReadsOfEveryReadableKind() {
        var s = garageServer()
        XCTAssertEqual(s.respond("0A 01 00"), spaced("0B 00 18"))
        XCTAssertEqual(s.respond("0A 05 00"), spaced("0B 02 07"))
        XCTAssertEqual(s.respond("0A 0B 00"), spaced("0B 0C 0C 00 " + UART.command))
        XCTAssertEqual(s.respond("0A 0F 00"), spaced("0B 00 00"))
        XCTAssertEqual(s.respond("0A 09 00"), spaced("0B 00 00"))
        // Read By Type on a 16-bit characteristic UUID (GATT "Read Using Characteristic UUID").
        XCTAssertEqual(s.respond("08 01 00 FF FF 00 2A"), spaced("09 08 03 00 47 61 72 61 67 65"))
        // Both CCCDs, 2 octets each; the values are this connection's.
        XCTAssertEqual(s.respond("12 0F 00 01 00"), "13")
        XCTAssertEqual(s.respond("08 01 00 FF FF 02 29"), spaced("09 04  09 00 00 00  0F 00 01 00"))
        // Read Multiple: concatenated values.
        XCTAssertEqual(s.respond("0E 03 00 05 00"), spaced("0F 47 61 72 61 67 65 02 07"))
        // Read Blob on a variable-length value: the part from the offset, empty at the end.
        XCTAssertEqual(s.respond("0C 03 00 00 00"), spaced("0D 47 61 72 61 67 65"))
        XCTAssertEqual(s.respond("0C 03 00 04 00"), spaced("0D 67 65"))
        XCTAssertEqual(s.respond("0C 03 00 06 00"), "0D")
    }

    func testLongDeviceNameIsReadInParts() {
        let name = "Garage on Rosemary Lane, north side"  // 35 octets
        var s = garageServer(name: name)
        let bytes = Array(name.utf8)
        XCTAssertEqual(s.answer(wire("0A 03 00")).response, [0x0B] + bytes.prefix(22))
        XCTAssertEqual(s.answer(wire("0C 03 00 16 00")).response, [0x0D] + bytes[22...])
        XCTAssertEqual(s.answer(wire("0C 03 00 23 00")).response, [0x0D])
        // Read By Type cuts each value to ATT_MTU-4 = 19 octets.
        XCTAssertEqual(s.answer(wire("08 01 00 FF FF 00 2A")).response, [0x09, 0x15, 0x03, 0x00] + bytes.prefix(19))
    }

    func testEachConnectionHasItsOwnState() {
        var a = garageServer()
        var b = garageServer()
        XCTAssertEqual(a.respond("02 05 02"), spaced("03 F7 00"))
        XCTAssertEqual(a.respond("12 0F 00 01 00"), "13")
        XCTAssertTrue(a.notificationsEnabled)
        XCTAssertFalse(b.notificationsEnabled)
        XCTAssertEqual(b.mtu, 23)
        XCTAssertEqual(try b.notification(Array("OK".utf8)), nil)
        XCTAssertEqual(b.respond("0A 0F 00"), spaced("0B 00 00"))
    }
}

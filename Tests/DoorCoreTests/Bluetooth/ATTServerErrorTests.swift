import XCTest
@testable import DoorCore

/// Every refusal the server makes, with the opcode, handle and code the Core spec gives.
final class ATTServerErrorTests: XCTestCase {
    func testMalformedRequestsAreInvalidPDUAtHandleZero() {
        var s = garageServer()
        XCTAssertEqual(s.respond("02 17"), spaced("01 02 00 00 04"))
        XCTAssertEqual(s.respond("04 01 00 FF"), spaced("01 04 00 00 04"))
        XCTAssertEqual(s.respond("06 01 00 FF FF 00"), spaced("01 06 00 00 04"))
        XCTAssertEqual(s.respond("08 01 00 FF FF 03"), spaced("01 08 00 00 04"))
        XCTAssertEqual(s.respond("0A 03"), spaced("01 0A 00 00 04"))
        XCTAssertEqual(s.respond("0C 03 00 00"), spaced("01 0C 00 00 04"))
        XCTAssertEqual(s.respond("0E 03 00"), spaced("01 0E 00 00 04"))
        XCTAssertEqual(s.respond("10 01 00 FF FF 00"), spaced("01 10 00 00 04"))
        XCTAssertEqual(s.respond("12 0F"), spaced("01 12 00 00 04"))
    }

    func testHandleRanges() {
        var s = garageServer()
        // Starting handle 0x0000, and start > end: Invalid Handle at the starting handle.
        XCTAssertEqual(s.respond("04 00 00 FF FF"), spaced("01 04 00 00 01"))
        XCTAssertEqual(s.respond("04 05 00 04 00"), spaced("01 04 05 00 01"))
        XCTAssertEqual(s.respond("06 00 00 FF FF 00 28 00 18"), spaced("01 06 00 00 01"))
        XCTAssertEqual(s.respond("06 09 00 08 00 00 28 00 18"), spaced("01 06 09 00 01"))
        XCTAssertEqual(s.respond("08 00 00 FF FF 03 28"), spaced("01 08 00 00 01"))
        XCTAssertEqual(s.respond("08 0F 00 0E 00 03 28"), spaced("01 08 0F 00 01"))
        XCTAssertEqual(s.respond("10 00 00 FF FF 00 28"), spaced("01 10 00 00 01"))
        XCTAssertEqual(s.respond("10 02 00 01 00 00 28"), spaced("01 10 02 00 01"))
        // Nothing in range: Attribute Not Found at the starting handle.
        XCTAssertEqual(s.respond("04 10 00 FF FF"), spaced("01 04 10 00 0A"))
        XCTAssertEqual(s.respond("06 01 00 FF FF 00 28 02 18"), spaced("01 06 01 00 0A"))
        XCTAssertEqual(s.respond("08 01 00 FF FF 04 2A"), spaced("01 08 01 00 0A"))
        XCTAssertEqual(s.respond("08 01 00 09 00 " + UART.command), spaced("01 08 01 00 0A"))
        XCTAssertEqual(s.respond("10 0B 00 FF FF 00 28"), spaced("01 10 0B 00 0A"))
    }

    func testReadByGroupTypeOnlyGroupsServices() {
        var s = garageServer()
        // «Characteristic» and any 128-bit type are not grouping types for this request.
        XCTAssertEqual(s.respond("10 01 00 FF FF 03 28"), spaced("01 10 01 00 10"))
        XCTAssertEqual(s.respond("10 05 00 FF FF 00 2A"), spaced("01 10 05 00 10"))
        XCTAssertEqual(s.respond("10 01 00 FF FF " + UART.service), spaced("01 10 01 00 10"))
        // «Secondary Service» is one, but there are none.
        XCTAssertEqual(s.respond("10 01 00 FF FF 01 28"), spaced("01 10 01 00 0A"))
        // The 128-bit spelling of 0x2800 is the same type.
        XCTAssertEqual(s.respond("10 01 00 FF FF FB 34 9B 5F 80 00 00 80 00 10 00 00 00 28 00 00"),
                       spaced("11 06  01 00 05 00 00 18  06 00 09 00 01 18"))
    }

    func testReadsOfUnknownOrUnreadableAttributes() {
        var s = garageServer()
        XCTAssertEqual(s.respond("0A 00 00"), spaced("01 0A 00 00 01"))
        XCTAssertEqual(s.respond("0A 10 00"), spaced("01 0A 10 00 01"))
        XCTAssertEqual(s.respond("0A FF FF"), spaced("01 0A FF FF 01"))
        // 6E400002 (write-only), 6E400003 (notify-only), Service Changed (indicate-only).
        XCTAssertEqual(s.respond("0A 0C 00"), spaced("01 0A 0C 00 02"))
        XCTAssertEqual(s.respond("0A 0E 00"), spaced("01 0A 0E 00 02"))
        XCTAssertEqual(s.respond("0A 08 00"), spaced("01 0A 08 00 02"))
        // Read By Type whose first match is unreadable: Read Not Permitted at that handle.
        XCTAssertEqual(s.respond("08 01 00 FF FF 05 2A"), spaced("01 08 08 00 02"))
        XCTAssertEqual(s.respond("08 01 00 FF FF " + UART.reply), spaced("01 08 0E 00 02"))
        XCTAssertEqual(s.respond("08 0A 00 0F 00 " + UART.command), spaced("01 08 0C 00 02"))
        // Find By Type Value never matches what cannot be read.
        XCTAssertEqual(s.respond("06 01 00 FF FF 05 2A"), spaced("01 06 01 00 0A"))
        // Read Multiple names the first handle at fault.
        XCTAssertEqual(s.respond("0E 03 00 0C 00 10 00"), spaced("01 0E 0C 00 02"))
        XCTAssertEqual(s.respond("0E 03 00 20 00 0C 00"), spaced("01 0E 20 00 01"))
    }

    func testReadBlobRules() {
        var s = garageServer()
        XCTAssertEqual(s.respond("0C 00 00 00 00"), spaced("01 0C 00 00 01"))
        XCTAssertEqual(s.respond("0C 10 00 00 00"), spaced("01 0C 10 00 01"))
        XCTAssertEqual(s.respond("0C 0C 00 00 00"), spaced("01 0C 0C 00 02"))
        // Offset past the end: Invalid Offset.
        XCTAssertEqual(s.respond("0C 03 00 07 00"), spaced("01 0C 03 00 07"))
        XCTAssertEqual(s.respond("0C 05 00 03 00"), spaced("01 0C 05 00 07"))
        // Fixed-length values that a Read returns whole: Attribute Not Long.
        XCTAssertEqual(s.respond("0C 05 00 00 00"), spaced("01 0C 05 00 0B"))
        XCTAssertEqual(s.respond("0C 0F 00 00 00"), spaced("01 0C 0F 00 0B"))
        XCTAssertEqual(s.respond("0C 0B 00 01 00"), spaced("01 0C 0B 00 0B"))
    }

    func testUnsupportedRequestsAndCommands() {
        var s = garageServer()
        // Prepare Write, Execute Write, Read Multiple Variable, and opcodes nobody defined.
        XCTAssertEqual(s.respond("16 0C 00 00 00 41"), spaced("01 16 00 00 06"))
        XCTAssertEqual(s.respond("18 01"), spaced("01 18 00 00 06"))
        XCTAssertEqual(s.respond("20 03 00 05 00"), spaced("01 20 00 00 06"))
        XCTAssertEqual(s.respond("3F 01 02"), spaced("01 3F 00 00 06"))
        // Signed Write Command and unknown commands: no response at all, and no command.
        XCTAssertEqual(s.answer(wire("D2 0C 00 31 32 33 34 35 4F 3D 31 00 00 00 00 00 00 00 00 00 00 00 00")),
                       ATTServer.Output())
        XCTAssertEqual(s.answer(wire("7F 00")), ATTServer.Output())
        // Confirmations (no indication pending): silence. Server-side PDUs and empty PDUs:
        // silence too, and they count as garbage (no conforming client sends them).
        XCTAssertEqual(s.answer(wire("1E")), ATTServer.Output())
        XCTAssertEqual(s.answer(wire("1B 0E 00 4F 4B")), ATTServer.Output(malformed: true))
        XCTAssertEqual(s.answer(wire("01 0A 03 00 01")), ATTServer.Output(malformed: true))
        XCTAssertEqual(s.answer([]), ATTServer.Output(malformed: true))
    }

    func testPDUsLongerThanTheMTU() {
        var s = garageServer()
        // A 17-octet value makes a 24-octet Find By Type Value: past "0 to ATT_MTU-7".
        XCTAssertEqual(s.respond("06 01 00 FF FF 00 28 " + UART.service + " 00"), spaced("01 06 00 00 04"))
        // Eleven handles: 23 octets fits, twelve (25) does not.
        let eleven = "0E" + String(repeating: " 03 00", count: 11)
        XCTAssertEqual(s.answer(wire(eleven)).response?.first, 0x0F)
        XCTAssertEqual(s.respond(eleven + " 03 00"), spaced("01 0E 00 00 04"))
        // After the exchange, the larger MTU applies.
        XCTAssertEqual(s.respond("02 B9 00"), spaced("03 F7 00"))
        XCTAssertEqual(s.mtu, 185)
        XCTAssertEqual(s.respond("06 01 00 FF FF 00 28 " + UART.service + " 00"), spaced("01 06 01 00 0A"))
    }

    func testMTUExchangeRules() {
        var s = garageServer(serverRxMTU: 100)
        // Client below 23: answered, ATT_MTU unchanged.
        XCTAssertEqual(s.respond("02 14 00"), spaced("03 64 00"))
        XCTAssertEqual(s.mtu, 23)
        // The minimum of the two.
        XCTAssertEqual(s.respond("02 B9 00"), spaced("03 64 00"))
        XCTAssertEqual(s.mtu, 100)
        XCTAssertEqual(s.respond("02 32 00"), spaced("03 64 00"))
        XCTAssertEqual(s.mtu, 50)
        XCTAssertEqual(s.respond("02 17 00"), spaced("03 64 00"))
        XCTAssertEqual(s.mtu, 23)
        var d = garageServer()
        XCTAssertEqual(d.serverRxMTU, ATTServer.defaultServerRxMTU)
        XCTAssertEqual(d.respond("02 FF FF"), spaced("03 F7 00"))
        XCTAssertEqual(d.mtu, 247)
    }
}

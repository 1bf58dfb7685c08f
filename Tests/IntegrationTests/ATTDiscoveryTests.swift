import Foundation
import XCTest

/// What a phone does before it can open the door, byte for byte, through the daemon's ATT seam:
/// the GATT procedures of Core Vol 3 Part G 4.3-4.8 over the PDUs of Part F 3.4. All multi-octet
/// fields are little-endian; 128-bit UUIDs travel reversed.
final class ATTDiscoveryTests: GaragedTestCase {
    /// The discovery a phone performs, then the CCCD write and the Device Name read.
    func testThePhonesDiscoveryByteForByte() throws {
        let daemon = try startATTDaemon()
        let phone = try connectBearer(daemon)

        // Exchange MTU (3.4.2.1): Client Rx MTU 0x00F7 (247). The response carries the server's
        // Rx MTU, 247 too; ATT_MTU becomes min(247, 247).
        XCTAssertEqual(try phone.exchange("02 F7 00"), "03 F7 00")

        // Primary service discovery (Part G 4.4.1): Read By Group Type, 0x0001-0xFFFF, «Primary
        // Service» 0x2800. The response (3.4.4.10) lists groups of one value size only: length 6
        // (handle, end group handle, 16-bit UUID), GAP 0x1800 at 0x0001-0x0005 and GATT 0x1801 at
        // 0x0006-0x0009. The 128-bit service has another size and needs the next request.
        XCTAssertEqual(try phone.exchange("10 01 00 FF FF 00 28"),
                       "11 06 01 00 05 00 00 18 06 00 09 00 01 18")
        // From the handle after the last end group handle: length 20 (4 + 16), the Nordic UART
        // service at 0x000A-0x000F.
        XCTAssertEqual(try phone.exchange("10 0A 00 FF FF 00 28"),
                       "11 14 0A 00 0F 00 " + NUSWire.service)
        // From 0x0010: nothing left, Error Response (3.4.1.1) for opcode 0x10 at the starting
        // handle, Attribute Not Found (0x0A), which ends the procedure.
        XCTAssertEqual(try phone.exchange("10 10 00 FF FF 00 28"), "01 10 10 00 0A")

        // Discover primary service by UUID (Part G 4.4.2): Find By Type Value, 0x0001-0xFFFF,
        // type 0x2800, value the 128-bit service UUID. Response (3.4.3.4): found handle 0x000A,
        // group end 0x000F.
        XCTAssertEqual(try phone.exchange("06 01 00 FF FF 00 28 " + NUSWire.service), "07 0A 00 0F 00")

        // All characteristics of the GAP service (Part G 4.6.1), where the phone learns that the
        // Device Name is at 0x0003: Read By Type 0x0001-0x0005, «Characteristic» 0x2803. Each
        // declaration value is properties (0x02 read), value handle, 16-bit UUID: length 7.
        XCTAssertEqual(try phone.exchange("08 01 00 05 00 03 28"),
                       "09 07 02 00 02 03 00 00 2A 04 00 02 05 00 01 2A")

        // All characteristics of the Nordic UART service: Read By Type 0x000A-0x000F, 0x2803.
        // Length 21 (handle + 1 + 2 + 16): 0x000B declares 6E400002 at 0x000C with write (0x08) +
        // write without response (0x04); 0x000D declares 6E400003 at 0x000E with notify (0x10).
        XCTAssertEqual(try phone.exchange("08 0A 00 0F 00 03 28"),
                       "09 15 0B 00 0C 0C 00 " + NUSWire.command + " 0D 00 10 0E 00 " + NUSWire.reply)
        // Continued after the last declaration found: none left in the service.
        XCTAssertEqual(try phone.exchange("08 0E 00 0F 00 03 28"), "01 08 0E 00 0A")

        // Descriptor discovery for 6E400003 (Part G 4.7.1): Find Information from value handle + 1
        // to the service's end, 0x000F-0x000F. Response (3.4.3.2): format 0x01 (16-bit UUIDs),
        // 0x000F is a «Client Characteristic Configuration» 0x2902.
        XCTAssertEqual(try phone.exchange("04 0F 00 0F 00"), "05 01 0F 00 02 29")

        // Notifications on (Part G 4.12.3): Write Request (3.4.5.1) of 0x0001 to the CCCD; Write
        // Response (3.4.5.2) is the bare opcode 0x13. Reading it back gives 0x0001.
        XCTAssertEqual(try phone.exchange("0A 0F 00"), "0B 00 00", "notifications start off")
        XCTAssertEqual(try phone.exchange("12 0F 00 01 00"), "13")
        XCTAssertEqual(try phone.exchange("0A 0F 00"), "0B 01 00")

        // Read Request (3.4.4.3) of the Device Name value: Read Response 0x0B + "Garage".
        XCTAssertEqual(try phone.exchange("0A 03 00"), "0B 47 61 72 61 67 65")
        // And the Appearance: 0x0702, Access Control: Garage Door.
        XCTAssertEqual(try phone.exchange("0A 05 00"), "0B 02 07")
        // Read characteristic by UUID (Part G 4.8.2), as some phones fetch the name: Read By Type
        // «Device Name» 0x2A00 over the whole range. Length 8 (handle + "Garage").
        XCTAssertEqual(try phone.exchange("08 01 00 FF FF 00 2A"), "09 08 03 00 " + attHex("Garage"))
    }

    /// At the default ATT_MTU of 23 (no exchange), characteristic discovery gets one 21-octet
    /// entry per response and goes on from the next handle; primary service discovery still fits.
    func testDiscoveryAtTheDefaultMTU() throws {
        let daemon = try startATTDaemon()
        let phone = try connectBearer(daemon)
        XCTAssertEqual(try phone.exchange("10 01 00 FF FF 00 28"), "11 06 01 00 05 00 00 18 06 00 09 00 01 18")
        XCTAssertEqual(try phone.exchange("10 0A 00 FF FF 00 28"), "11 14 0A 00 0F 00 " + NUSWire.service)
        // 2 + 21 = 23 octets: one declaration only.
        XCTAssertEqual(try phone.exchange("08 0A 00 0F 00 03 28"), "09 15 0B 00 0C 0C 00 " + NUSWire.command)
        XCTAssertEqual(try phone.exchange("08 0C 00 0F 00 03 28"), "09 15 0D 00 10 0E 00 " + NUSWire.reply)
        XCTAssertEqual(try phone.exchange("08 0E 00 0F 00 03 28"), "01 08 0E 00 0A")
    }

    /// `--ble-name Door` is what the Device Name characteristic holds.
    func testBLENameSetsTheDeviceName() throws {
        let daemon = try startATTDaemon(["--ble-name", "Door"])
        let phone = try connectBearer(daemon)
        XCTAssertEqual(try phone.exchange("0A 03 00"), "0B 44 6F 6F 72")
        XCTAssertEqual(try phone.exchange("08 01 00 FF FF 00 2A"), "09 06 03 00 44 6F 6F 72")
    }
}

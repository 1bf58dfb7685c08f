import XCTest
@testable import DoorCore

final class BluetoothUUIDTests: XCTestCase {
    func testParsesThe128BitServiceUUIDAndWritesItLittleEndian() {
        let u = BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")!
        XCTAssertEqual(u.bytes, wire("6E 40 00 01 B5 A3 F3 93 E0 A9 E5 0E 24 DC CA 9E"))
        XCTAssertEqual(u.wireBytes, wire(UART.service))
        XCTAssertEqual(u.wireBytes128, wire(UART.service))
        XCTAssertNil(u.shortValue)
        XCTAssertEqual(u.description, "6E400001-B5A3-F393-E0A9-E50E24DCCA9E")
        XCTAssertEqual(BluetoothUUID("6e400001-b5a3-f393-e0a9-e50e24dcca9e"), u)
        XCTAssertEqual(GarageGATT.serviceUUID, u)
        XCTAssertEqual(GarageGATT.commandUUID.wireBytes, wire(UART.command))
        XCTAssertEqual(GarageGATT.replyUUID.wireBytes, wire(UART.reply))
    }

    func testSixteenBitUUIDsAreTheBaseUUIDRange() {
        let short = BluetoothUUID(0x2A00)
        XCTAssertEqual(short.wireBytes, [0x00, 0x2A])
        XCTAssertEqual(short.shortValue, 0x2A00)
        XCTAssertEqual(short.description, "0x2A00")
        XCTAssertEqual(short.wireBytes128, wire("FB 34 9B 5F 80 00 00 80 00 10 00 00 00 2A 00 00"))
        // The 128-bit spelling is the same UUID and goes on the wire in 2 bytes.
        let long = BluetoothUUID("00002A00-0000-1000-8000-00805F9B34FB")!
        XCTAssertEqual(long, short)
        XCTAssertEqual(long.wireBytes, [0x00, 0x2A])
        XCTAssertEqual(BluetoothUUID("2a00"), short)
        XCTAssertEqual(BluetoothUUID(wire: [0x00, 0x28]), .primaryService)
        XCTAssertEqual(BluetoothUUID(wire: wire(UART.reply)), GarageGATT.replyUUID)
    }

    func testRejectsMalformedText() {
        for bad in ["", "2A0", "2A000", "0x2A00", "G A00", "6E400001B5A3F393E0A9E50E24DCCA9E",
                    "6E400001-B5A3-F393-E0A9-E50E24DCCA9", "6E400001-B5A3-F393-E0A9-E50E24DCCA9EE",
                    "6E400001+B5A3-F393-E0A9-E50E24DCCA9E", "6E40000X-B5A3-F393-E0A9-E50E24DCCA9E"] {
            XCTAssertNil(BluetoothUUID(bad), bad)
        }
        XCTAssertNil(BluetoothUUID(wire: [0x00]))
        XCTAssertNil(BluetoothUUID(wire: [UInt8](repeating: 0, count: 4)))
        XCTAssertNil(BluetoothUUID(bigEndian: [UInt8](repeating: 0, count: 15)))
    }

    func testTheBookBeaconUUIDIsNotA16BitAlias() {
        let u = IBeacon.bookProximityUUID
        XCTAssertEqual(u.bytes, [UInt8](repeating: 0, count: 15) + [0xFF])
        XCTAssertNil(u.shortValue)
    }

    func testHexFormatter() {
        XCTAssertEqual(Hex.string([0x02, 0x01, 0x06, 0xAB]), "02 01 06 AB")
        XCTAssertEqual(Hex.string([0x0f, 0xa0], separator: ""), "0FA0")
        XCTAssertEqual(Hex.string([UInt8]()), "")
    }
}

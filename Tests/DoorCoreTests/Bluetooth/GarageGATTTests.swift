import XCTest
@testable import DoorCore

final class GarageGATTTests: XCTestCase {
    func testHandleLayout() throws {
        let g = try GarageGATT()
        let rows = g.database.attributes.map { ($0.handle, $0.type, $0.groupEnd) }
        let expected: [(UInt16, BluetoothUUID, UInt16)] = [
            (0x01, .primaryService, 0x05), (0x02, .characteristic, 0x03), (0x03, .deviceName, 0x03),
            (0x04, .characteristic, 0x05), (0x05, .appearance, 0x05),
            (0x06, .primaryService, 0x09), (0x07, .characteristic, 0x09), (0x08, .serviceChanged, 0x08),
            (0x09, .clientCharacteristicConfiguration, 0x09),
            (0x0A, .primaryService, 0x0F), (0x0B, .characteristic, 0x0C), (0x0C, GarageGATT.commandUUID, 0x0C),
            (0x0D, .characteristic, 0x0F), (0x0E, GarageGATT.replyUUID, 0x0E),
            (0x0F, .clientCharacteristicConfiguration, 0x0F),
        ]
        XCTAssertEqual(rows.count, expected.count)
        for (row, exp) in zip(rows, expected) {
            XCTAssertEqual(row.0, exp.0)
            XCTAssertEqual(row.1, exp.1, "handle \(row.0)")
            XCTAssertEqual(row.2, exp.2, "group end of \(row.0)")
        }
        XCTAssertEqual(g.deviceNameHandle, 0x03)
        XCTAssertEqual(g.appearanceHandle, 0x05)
        XCTAssertEqual(g.serviceChangedConfigurationHandle, 0x09)
        XCTAssertEqual(g.commandHandle, 0x0C)
        XCTAssertEqual(g.replyHandle, 0x0E)
        XCTAssertEqual(g.replyConfigurationHandle, 0x0F)
    }

    func testDeclarationValuesByteForByte() throws {
        let db = try GarageGATT().database
        func value(_ h: UInt16) -> GATTValue { db.attribute(h)!.value }
        XCTAssertEqual(value(0x01), .fixed(wire("00 18")))
        // Properties 0x02 read, value handle 0x0003, UUID 0x2A00.
        XCTAssertEqual(value(0x02), .fixed(wire("02 03 00 00 2A")))
        XCTAssertEqual(value(0x03), .variable(Array("Garage".utf8)))
        XCTAssertEqual(value(0x04), .fixed(wire("02 05 00 01 2A")))
        XCTAssertEqual(value(0x05), .fixed(wire("02 07")))
        XCTAssertEqual(value(0x06), .fixed(wire("01 18")))
        // 0x20 indicate, value handle 0x0008, Service Changed 0x2A05.
        XCTAssertEqual(value(0x07), .fixed(wire("20 08 00 05 2A")))
        XCTAssertEqual(value(0x08), GATTValue.none)
        XCTAssertEqual(value(0x09), .clientConfiguration(allowed: 0x0002))
        XCTAssertEqual(value(0x0A), .fixed(wire(UART.service)))
        // 0x0C = write (0x08) | write without response (0x04).
        XCTAssertEqual(value(0x0B), .fixed(wire("0C 0C 00 " + UART.command)))
        XCTAssertEqual(value(0x0C), .sink)
        // 0x10 notify, value handle 0x000E.
        XCTAssertEqual(value(0x0D), .fixed(wire("10 0E 00 " + UART.reply)))
        XCTAssertEqual(value(0x0E), GATTValue.none)
        XCTAssertEqual(value(0x0F), .clientConfiguration(allowed: 0x0001))
    }

    func testPermissions() throws {
        let db = try GarageGATT().database
        XCTAssertEqual(db.attribute(0x03)!.permissions, .read)
        XCTAssertEqual(db.attribute(0x08)!.permissions, [])
        XCTAssertEqual(db.attribute(0x09)!.permissions, [.read, .write])
        XCTAssertEqual(db.attribute(0x0C)!.permissions, [.write, .writeCommand])
        XCTAssertEqual(db.attribute(0x0E)!.permissions, [])
        XCTAssertEqual(db.attribute(0x0F)!.permissions, [.read, .write])
        XCTAssertNil(db.attribute(0x0000))
        XCTAssertNil(db.attribute(0x0010))
        XCTAssertEqual(db.attributes(in: ATTHandleRange(start: 0x0E, end: 0xFFFF)!).map(\.handle), [0x0E, 0x0F])
        XCTAssertTrue(db.attributes(in: ATTHandleRange(start: 0x10, end: 0xFFFF)!).isEmpty)
    }

    func testNameAndAppearanceAreSettable() throws {
        let g = try GarageGATT(name: "Tor", appearance: 0x0000)
        XCTAssertEqual(g.database.attribute(0x03)!.value, .variable(Array("Tor".utf8)))
        XCTAssertEqual(g.database.attribute(0x05)!.value, .fixed([0x00, 0x00]))
        XCTAssertEqual(GarageGATT.garageDoorAppearance, 0x1C << 6 | 0x02)
        XCTAssertNoThrow(try GarageGATT(name: String(repeating: "x", count: 248)))
    }

    func testBadNames() {
        XCTAssertThrowsError(try GarageGATT(name: "")) { XCTAssertEqual($0 as? DeviceNameError, .empty) }
        XCTAssertThrowsError(try GarageGATT(name: String(repeating: "é", count: 125))) {
            XCTAssertEqual($0 as? DeviceNameError, .tooLong(octets: 250))
        }
    }
}

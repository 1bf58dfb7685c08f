import XCTest
@testable import DoorCore

final class AdvertisingTests: XCTestCase {
    func testDefaultAdvertisingDataFieldByField() throws {
        let adv = try GarageAdvertising().advertisingData()
        XCTAssertEqual(adv.count, 30)
        XCTAssertEqual(adv[0...2], [0x02, 0x01, 0x06])                 // Flags: LE General Disc., no BR/EDR
        XCTAssertEqual(adv[3], 0x1A)                                   // 26 octets follow
        XCTAssertEqual(adv[4], 0xFF)                                   // Manufacturer Specific Data
        XCTAssertEqual(adv[5...6], [0x4C, 0x00])                       // Apple, little-endian
        XCTAssertEqual(adv[7], 0x02)                                   // iBeacon
        XCTAssertEqual(adv[8], 0x15)                                   // 21 octets follow
        XCTAssertEqual(Array(adv[9...24]), [UInt8](repeating: 0, count: 15) + [0xFF])  // UUID, big-endian
        XCTAssertEqual(adv[25...26], [0x00, 0x00])                     // major 0
        XCTAssertEqual(adv[27...28], [0x00, 0x01])                     // minor 1, big-endian
        XCTAssertEqual(adv[29], 0xC5)                                  // -59 dBm
        XCTAssertEqual(adv, wire("02 01 06 1A FF 4C 00 02 15 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 FF 00 00 00 01 C5"))
    }

    func testCustomBeacon() throws {
        let beacon = IBeacon(proximityUUID: BluetoothUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!,
                             major: 0x1234, minor: 0xABCD, measuredPower: -1)
        let adv = try GarageAdvertising(beacon: beacon).advertisingData()
        XCTAssertEqual(Array(adv[9...24]), wire("E2 C5 6D B5 DF FB 48 D2 B0 60 D0 F5 A7 10 96 E0"))
        XCTAssertEqual(adv[25...28], [0x12, 0x34, 0xAB, 0xCD])
        XCTAssertEqual(adv[29], 0xFF)
        XCTAssertEqual(IBeacon(measuredPower: 0).structure.data.last, 0x00)
        XCTAssertEqual(IBeacon(measuredPower: -128).structure.data.last, 0x80)
    }

    func testScanResponseWithTheDefaultName() throws {
        let scan = try GarageAdvertising().scanResponse()
        XCTAssertEqual(scan, wire("11 07 " + UART.service + " 07 09 47 61 72 61 67 65"))
        XCTAssertEqual(scan.count, 26)
    }

    func testNamesFillTheScanResponseThenAreShortened() throws {
        // 11 octets is the most that fits beside the 18-octet UUID structure: complete.
        let eleven = try GarageAdvertising(name: "Garage Door").scanResponse()
        XCTAssertEqual(eleven.count, 31)
        XCTAssertEqual(Array(eleven[18...]), [0x0C, 0x09] + Array("Garage Door".utf8))
        // Longer: the first 11 octets, as a Shortened Local Name.
        let long = try GarageAdvertising(name: "Garage Door Opener").scanResponse()
        XCTAssertEqual(long.count, 31)
        XCTAssertEqual(Array(long[18...]), [0x0C, 0x08] + Array("Garage Door".utf8))
        // Never in the middle of a UTF-8 character: six 2-octet characters shorten to five.
        let accents = try GarageAdvertising(name: "éééééé").scanResponse()
        XCTAssertEqual(Array(accents[18...]), [0x0B, 0x08] + Array("ééééé".utf8))
        // An empty name sends none.
        XCTAssertEqual(try GarageAdvertising(name: "").scanResponse(), wire("11 07 " + UART.service))
    }

    func testPayloadsOver31OctetsAreRefused() {
        let big = ADStructure(type: ADStructure.manufacturerSpecificData, data: [UInt8](repeating: 0, count: 29))
        XCTAssertEqual(try AdvertisingPayload.encode([big]).count, 31)
        let bigger = ADStructure(type: ADStructure.manufacturerSpecificData, data: [UInt8](repeating: 0, count: 30))
        XCTAssertThrowsError(try AdvertisingPayload.encode([bigger])) {
            XCTAssertEqual($0 as? AdvertisingError, .tooLong(length: 32, limit: 31))
        }
        let flags = ADStructure(type: ADStructure.flags, data: [0x06])
        XCTAssertThrowsError(try AdvertisingPayload.encode([flags, IBeacon().structure, flags])) {
            XCTAssertEqual($0 as? AdvertisingError, .tooLong(length: 33, limit: 31))
        }
        XCTAssertThrowsError(try AdvertisingPayload.hciParameters([UInt8](repeating: 0, count: 32)))
    }

    func testHCIParametersAndReport() throws {
        let ad = GarageAdvertising()
        let params = try AdvertisingPayload.hciParameters(try ad.advertisingData())
        XCTAssertEqual(params.count, 32)
        XCTAssertEqual(params[0], 30)
        XCTAssertEqual(params[31], 0)
        XCTAssertEqual(GarageAdvertising.intervalUnits, 400)
        let lines = try ad.report().split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 4)
        XCTAssertEqual(lines[0], "advertising data (30 bytes): 02 01 06 1A FF 4C 00 02 15 "
                       + "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 FF 00 00 00 01 C5")
        XCTAssertEqual(lines[1], "scan response (26 bytes): 11 07 " + UART.service + " 07 09 47 61 72 61 67 65")
        XCTAssertEqual(lines[2], "hcitool -i hci0 cmd 0x08 0x0008 1E " + lines[0].dropFirst(29) + " 00")
        XCTAssertTrue(lines[3].hasPrefix("hcitool -i hci0 cmd 0x08 0x0009 1A 11 07 9E"))
        XCTAssertTrue(lines[3].hasSuffix(" 65" + String(repeating: " 00", count: 5)))
    }
}

import XCTest
@testable import DoorCore

final class ATTDecoderTests: XCTestCase {
    private func decode(_ hex: String) -> Result<ATTRequest, ATTDecodeError> {
        Result { () throws(ATTDecodeError) -> ATTRequest in try ATTRequest.decode(wire(hex)) }
    }

    private func range(_ s: UInt16, _ e: UInt16) -> ATTHandleRange { ATTHandleRange(start: s, end: e)! }

    func testEverySupportedRequest() {
        XCTAssertEqual(decode("02 05 02"), .success(.exchangeMTU(clientRxMTU: 517)))
        XCTAssertEqual(decode("04 01 00 FF FF"), .success(.findInformation(range(1, 0xFFFF))))
        XCTAssertEqual(decode("06 01 00 FF FF 00 28 00 18"),
                       .success(.findByTypeValue(range(1, 0xFFFF), type: .primaryService, value: [0x00, 0x18])))
        XCTAssertEqual(decode("06 01 00 FF FF 00 28"),
                       .success(.findByTypeValue(range(1, 0xFFFF), type: .primaryService, value: [])))
        XCTAssertEqual(decode("08 01 00 FF FF 03 28"), .success(.readByType(range(1, 0xFFFF), type: .characteristic)))
        XCTAssertEqual(decode("08 0A 00 0F 00 " + UART.reply),
                       .success(.readByType(range(10, 15), type: GarageGATT.replyUUID)))
        XCTAssertEqual(decode("0A 03 00"), .success(.read(handle: 3)))
        XCTAssertEqual(decode("0C 03 00 16 00"), .success(.readBlob(handle: 3, offset: 22)))
        XCTAssertEqual(decode("0E 03 00 05 00 09 00"), .success(.readMultiple(handles: [3, 5, 9])))
        XCTAssertEqual(decode("10 01 00 FF FF 00 28"),
                       .success(.readByGroupType(range(1, 0xFFFF), groupType: .primaryService)))
        XCTAssertEqual(decode("12 0F 00 01 00"), .success(.write(handle: 15, value: [1, 0])))
        XCTAssertEqual(decode("12 0C 00"), .success(.write(handle: 12, value: [])))
        XCTAssertEqual(decode("52 0C 00 31 32 33 34 35 4F 3D 31"),
                       .success(.writeCommand(handle: 12, value: Array("12345O=1".utf8))))
        XCTAssertEqual(decode("1E"), .success(.handleValueConfirmation))
    }

    func testWrongLengthsAreInvalidPDU() {
        let cases: [(String, UInt8)] = [
            ("02", 0x02), ("02 17", 0x02), ("02 17 00 00", 0x02),
            ("04 01 00 FF", 0x04), ("04 01 00 FF FF 00", 0x04),
            ("06 01 00 FF FF 00", 0x06),
            ("08 01 00 FF FF 03", 0x08), ("08 01 00 FF FF 03 28 00", 0x08),
            ("08 01 00 FF FF 00 00 00 00", 0x08),  // a 4-octet UUID is not an ATT UUID
            ("0A", 0x0A), ("0A 03", 0x0A), ("0A 03 00 00", 0x0A),
            ("0C 03 00 00", 0x0C), ("0C 03 00 00 00 00", 0x0C),
            ("0E", 0x0E), ("0E 03 00", 0x0E), ("0E 03 00 05", 0x0E),
            ("10 01 00 FF FF", 0x10), ("10 01 00 FF FF 00 28 00", 0x10),
            ("12", 0x12), ("12 0C", 0x12),
        ]
        for (pdu, opcode) in cases {
            XCTAssertEqual(decode(pdu), .failure(.invalidPDU(opcode: opcode)), pdu)
            XCTAssertEqual(try? ATTRequest.decode(wire(pdu)), nil)
        }
        // Answered for requests, silent for commands and confirmations.
        XCTAssertEqual(ATTDecodeError.invalidPDU(opcode: 0x0A).errorResponse?.bytes, wire("01 0A 00 00 04"))
        XCTAssertEqual(decode("52 0C"), .failure(.invalidPDU(opcode: 0x52)))
        XCTAssertNil(ATTDecodeError.invalidPDU(opcode: 0x52).errorResponse)
        XCTAssertEqual(decode("1E 00"), .failure(.invalidPDU(opcode: 0x1E)))
        XCTAssertNil(ATTDecodeError.invalidPDU(opcode: 0x1E).errorResponse)
    }

    func testBadHandleRangesAreInvalidHandleAtTheStartingHandle() {
        XCTAssertEqual(decode("04 00 00 FF FF"), .failure(.invalidHandleRange(opcode: 0x04, start: 0)))
        XCTAssertEqual(decode("04 05 00 04 00"), .failure(.invalidHandleRange(opcode: 0x04, start: 5)))
        XCTAssertEqual(decode("06 00 00 FF FF 00 28"), .failure(.invalidHandleRange(opcode: 0x06, start: 0)))
        XCTAssertEqual(decode("08 10 00 0F 00 03 28"), .failure(.invalidHandleRange(opcode: 0x08, start: 16)))
        XCTAssertEqual(decode("10 00 00 00 00 00 28"), .failure(.invalidHandleRange(opcode: 0x10, start: 0)))
        XCTAssertEqual(ATTDecodeError.invalidHandleRange(opcode: 0x08, start: 16).errorResponse?.bytes,
                       wire("01 08 10 00 01"))
        // start == end is a valid range of one handle.
        XCTAssertEqual(decode("04 0F 00 0F 00"), .success(.findInformation(range(15, 15))))
    }

    func testUnsupportedAndForeignOpcodes() {
        // Requests this server does not implement, and unknown opcodes with bit 6 clear.
        for op: UInt8 in [0x16, 0x18, 0x20, 0x30, 0x3F, 0x14, 0x00] {
            XCTAssertEqual(decode(BluetoothHex.string([op, 0x01, 0x00])), .failure(.unsupportedRequest(opcode: op)))
            XCTAssertEqual(ATTDecodeError.unsupportedRequest(opcode: op).errorResponse?.bytes, [0x01, op, 0, 0, 0x06])
        }
        // Commands (bit 6 set) it does not know or support: silence.
        for op: UInt8 in [0xD2, 0x40, 0x7F, 0xFF, 0x53] {
            XCTAssertEqual(decode(BluetoothHex.string([op, 0x0C, 0x00])), .failure(.unsupportedCommand(opcode: op)))
            XCTAssertNil(ATTDecodeError.unsupportedCommand(opcode: op).errorResponse)
        }
        // Server-to-client PDUs arriving at the server: not requests, ignored.
        for op: UInt8 in [0x01, 0x03, 0x05, 0x0B, 0x13, 0x1B, 0x1D, 0x23] {
            XCTAssertEqual(decode(BluetoothHex.string([op, 0x00])), .failure(.notARequest(opcode: op)))
            XCTAssertNil(ATTDecodeError.notARequest(opcode: op).errorResponse)
        }
        XCTAssertEqual(decode(""), .failure(.empty))
        XCTAssertNil(ATTDecodeError.empty.errorResponse)
    }

    func testOpcodeKindsFollowTheCommandBit() {
        for op in ATTOpcode.allCases {
            XCTAssertEqual(op.kind == .command, ATTOpcode.isCommand(op.rawValue), "\(op)")
        }
        XCTAssertEqual(ATTErrorCode.invalidAttributeValueLength.rawValue, 0x0D)
        XCTAssertEqual(ATTErrorCode.unsupportedGroupType.rawValue, 0x10)
        XCTAssertEqual(ATTErrorCode.attributeNotLong.rawValue, 0x0B)
    }

    func testEveryDeclaredLayoutDecodes() {
        // Guards the layout table against a layout whose reader was forgotten.
        for (opcode, parameters) in ATTLayout.parameters {
            var pdu = [opcode.rawValue]
            for p in parameters {
                switch p {
                case .uint16: pdu += [0x01, 0x00]
                case .uuid: pdu += [0x00, 0x28]
                case .bytes: pdu += [0xAA]
                case .handles: pdu += [0x01, 0x00, 0x02, 0x00]
                }
            }
            XCTAssertEqual(try ATTRequest.decode(pdu).opcode, opcode)
        }
    }
}

import XCTest
@testable import DoorCore

/// The PDU declarations (`ATTPDU`): each one decodes and encodes its PDU, the length rules come
/// from it alone, and the server answers what does not fit as the Core spec says.
final class ATTDecoderTests: XCTestCase {
    private func range(_ s: UInt16, _ e: UInt16) -> ATTHandleRange { ATTHandleRange(start: s, end: e)! }

    /// Every PDU type this server accepts or sends.
    private let requests: [any ATTPDU.Type] = [
        ATTExchangeMTURequest.self, ATTFindInformationRequest.self, ATTFindByTypeValueRequest.self,
        ATTReadByTypeRequest.self, ATTReadRequest.self, ATTReadBlobRequest.self, ATTReadMultipleRequest.self,
        ATTReadByGroupTypeRequest.self, ATTWriteRequest.self, ATTWriteCommand.self, ATTHandleValueConfirmation.self,
    ]
    private let responses: [any ATTPDU.Type] = [
        ATTErrorResponse.self, ATTExchangeMTUResponse.self, ATTFindInformationResponse.self,
        ATTFindByTypeValueResponse.self, ATTReadByTypeResponse.self, ATTReadResponse.self, ATTReadBlobResponse.self,
        ATTReadMultipleResponse.self, ATTReadByGroupTypeResponse.self, ATTWriteResponse.self,
        ATTHandleValueNotification.self,
    ]

    /// Decodes `hex` with the declaration its opcode names.
    private func decode(_ hex: String) throws -> any ATTPDU {
        let bytes = wire(hex)
        guard let type = (requests + responses).first(where: { $0.opcode.rawValue == bytes.first }) else {
            throw ATTDecodeError.unsupportedRequest(opcode: bytes.first ?? 0)
        }
        return try type.decode(bytes)
    }

    private func decodeError(_ hex: String) -> ATTDecodeError? {
        do { _ = try decode(hex); return nil } catch { return error as? ATTDecodeError }
    }

    func testEverySupportedRequestDecodesToItsFields() throws {
        XCTAssertEqual(try decode("02 05 02") as? ATTExchangeMTURequest, { var r = ATTExchangeMTURequest(); r.clientRxMTU = 517; return r }())
        XCTAssertEqual((try decode("04 01 00 FF FF") as? ATTFindInformationRequest)?.range, range(1, 0xFFFF))
        let fbtv = try XCTUnwrap(try decode("06 01 00 FF FF 00 28 00 18") as? ATTFindByTypeValueRequest)
        XCTAssertEqual(fbtv.range, range(1, 0xFFFF))
        XCTAssertEqual(fbtv.type, .primaryService)
        XCTAssertEqual(fbtv.value, [0x00, 0x18])
        XCTAssertEqual((try decode("06 01 00 FF FF 00 28") as? ATTFindByTypeValueRequest)?.value, [])
        XCTAssertEqual((try decode("08 01 00 FF FF 03 28") as? ATTReadByTypeRequest)?.type, .characteristic)
        let rbt = try XCTUnwrap(try decode("08 0A 00 0F 00 " + UART.reply) as? ATTReadByTypeRequest)
        XCTAssertEqual(rbt.range, range(10, 15))
        XCTAssertEqual(rbt.type, GarageGATT.replyUUID)
        XCTAssertEqual((try decode("0A 03 00") as? ATTReadRequest)?.handle, 3)
        let blob = try XCTUnwrap(try decode("0C 03 00 16 00") as? ATTReadBlobRequest)
        XCTAssertEqual([blob.handle, blob.offset], [3, 22])
        XCTAssertEqual((try decode("0E 03 00 05 00 09 00") as? ATTReadMultipleRequest)?.handles, [3, 5, 9])
        XCTAssertEqual((try decode("10 01 00 FF FF 00 28") as? ATTReadByGroupTypeRequest)?.groupType, .primaryService)
        let write = try XCTUnwrap(try decode("12 0F 00 01 00") as? ATTWriteRequest)
        XCTAssertEqual(write.handle, 15)
        XCTAssertEqual(write.value, [1, 0])
        XCTAssertEqual((try decode("12 0C 00") as? ATTWriteRequest)?.value, [])
        XCTAssertEqual((try decode("52 0C 00 31 32 33 34 35 4F 3D 31") as? ATTWriteCommand)?.value, Array("12345O=1".utf8))
        XCTAssertNotNil(try decode("1E") as? ATTHandleValueConfirmation)
    }

    /// The writes are read straight from the bytes (every phone command rides on one); that
    /// reading must agree with the field table's on every length, short ones included.
    func testWritesReadFastAsTheirTableReadsThem() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...40 {
            for _ in 0..<20 {
                let tail = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                for opcode: UInt8 in [0x12, 0x52] {
                    let pdu = [opcode] + tail
                    if opcode == 0x12 {
                        XCTAssertEqual(reading { try ATTWriteRequest.decode(pdu) }, reading { try ATTWriteRequest.decodeByFields(pdu) })
                    } else {
                        XCTAssertEqual(reading { try ATTWriteCommand.decode(pdu) }, reading { try ATTWriteCommand.decodeByFields(pdu) })
                    }
                }
            }
        }
    }

    /// What a decoder made of a PDU, as comparable text: its bytes again, or its error.
    private func reading<P: ATTPDU>(_ decode: () throws -> P) -> String {
        do { return "\(try decode().bytes)" } catch { return "\(error)" }
    }

    /// One declaration drives both directions: what a PDU decodes to encodes back byte for byte.
    func testEveryDeclarationEncodesWhatItDecodes() throws {
        for type in requests + responses {
            var pdu = [type.opcode.rawValue]
            for field in type.sampleFieldBytes { pdu += field }
            XCTAssertEqual(try type.decode(pdu).bytes, pdu, "\(type)")
        }
        XCTAssertEqual(ATTErrorResponse(requestOpcode: 0x0A, handle: 3, code: .readNotPermitted).bytes, wire("01 0A 03 00 02"))
        XCTAssertEqual(ATTHandleValueNotification(handle: 14, value: Array("OK".utf8)).bytes, wire("1B 0E 00 4F 4B"))
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
            XCTAssertEqual(decodeError(pdu), .invalidPDU(opcode: opcode), pdu)
            // The server answers a malformed request with Invalid PDU at handle 0x0000.
            var server = garageServer()
            let out = server.answer(wire(pdu))
            XCTAssertEqual(out.response, [0x01, opcode, 0, 0, 0x04], pdu)
            XCTAssertTrue(out.malformed, pdu)
        }
        // Silent for commands and confirmations.
        XCTAssertEqual(decodeError("52 0C"), .invalidPDU(opcode: 0x52))
        XCTAssertNil(ATTDecodeError.invalidPDU(opcode: 0x52).errorResponse)
        XCTAssertEqual(decodeError("1E 00"), .invalidPDU(opcode: 0x1E))
        var server = garageServer()
        XCTAssertNil(server.answer(wire("52 0C")).response)
        XCTAssertNil(server.answer(wire("1E 00")).response)
    }

    func testBadHandleRangesAreInvalidHandleAtTheStartingHandle() {
        XCTAssertEqual(decodeError("04 00 00 FF FF"), .invalidHandleRange(opcode: 0x04, start: 0))
        XCTAssertEqual(decodeError("04 05 00 04 00"), .invalidHandleRange(opcode: 0x04, start: 5))
        XCTAssertEqual(decodeError("06 00 00 FF FF 00 28"), .invalidHandleRange(opcode: 0x06, start: 0))
        XCTAssertEqual(decodeError("08 10 00 0F 00 03 28"), .invalidHandleRange(opcode: 0x08, start: 16))
        XCTAssertEqual(decodeError("10 00 00 00 00 00 28"), .invalidHandleRange(opcode: 0x10, start: 0))
        var server = garageServer()
        XCTAssertEqual(server.answer(wire("08 10 00 0F 00 03 28")).response, wire("01 08 10 00 01"))
        // start == end is a valid range of one handle.
        XCTAssertNil(decodeError("04 0F 00 0F 00"))
    }

    func testUnsupportedAndForeignOpcodes() {
        var server = garageServer()
        // Requests this server does not implement, and unknown opcodes with bit 6 clear.
        for op: UInt8 in [0x16, 0x18, 0x20, 0x30, 0x3F, 0x14, 0x00] {
            let out = server.answer([op, 0x01, 0x00])
            XCTAssertEqual(out.response, [0x01, op, 0, 0, 0x06], "\(op)")
            XCTAssertFalse(out.malformed)
        }
        // Commands (bit 6 set) it does not know or support: silence.
        for op: UInt8 in [0xD2, 0x40, 0x7F, 0xFF, 0x53] {
            let out = server.answer([op, 0x0C, 0x00])
            XCTAssertNil(out.response, "\(op)")
            XCTAssertFalse(out.malformed)
        }
        // Server-to-client PDUs arriving at the server: not requests, ignored, counted as garbage.
        for op: UInt8 in [0x01, 0x03, 0x05, 0x0B, 0x13, 0x1B, 0x1D, 0x23] {
            let out = server.answer([op, 0x00])
            XCTAssertNil(out.response, "\(op)")
            XCTAssertTrue(out.malformed)
        }
        XCTAssertNil(server.answer([]).response)
        XCTAssertTrue(server.answer([]).malformed)
    }

    func testOpcodeKindsFollowTheCommandBit() {
        for op in ATTOpcode.allCases {
            XCTAssertEqual(op.kind == .command, ATTOpcode.isCommand(op.rawValue), "\(op)")
        }
        XCTAssertEqual(ATTErrorCode.invalidAttributeValueLength.rawValue, 0x0D)
        XCTAssertEqual(ATTErrorCode.unsupportedGroupType.rawValue, 0x10)
        XCTAssertEqual(ATTErrorCode.attributeNotLong.rawValue, 0x0B)
    }

    /// Every request the server answers (the writes in `handle`, the rest through `routes`) has
    /// a declaration, and every declaration of a request is answered: a PDU cannot be declared
    /// and forgotten, nor answered twice.
    func testEveryRequestDeclarationIsRouted() {
        let writes = Set(ATTServer.writes.map(\.rawValue)), routed = Set(ATTServer.routes.keys.map(\.rawValue))
        XCTAssertTrue(writes.isDisjoint(with: routed), "a write has one handler")
        XCTAssertEqual(writes.union(routed), Set(requests.map { $0.opcode.rawValue }))
    }
}

private extension ATTPDU {
    /// Sample wire bytes for each declared field, the way a peer could send them.
    static var sampleFieldBytes: [[UInt8]] {
        fields.map { field in
            switch field {
            case .uint8: return [0x01]
            case .uint16: return [0x01, 0x00]
            case .handleRange: return [0x01, 0x00, 0x02, 0x00]
            case .uuid16, .uuid: return [0x00, 0x28]
            case .bytes: return [0xAA]
            case .handles: return [0x01, 0x00, 0x02, 0x00]
            }
        }
    }
}

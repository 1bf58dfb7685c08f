import XCTest
@testable import DoorCore

/// HAP's TLV8: the byte layout, fragmentation at 255 bytes, when fragments join, and refusals.
final class TLV8Tests: XCTestCase {
    private typealias Items = [(type: UInt8, value: [UInt8])]

    /// Items compared field by field (tuples are not Equatable).
    private func assertItems(_ got: Items, _ want: Items, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(got.map(\.type), want.map(\.type), "types", file: file, line: line)
        XCTAssertEqual(got.map(\.value), want.map(\.value), "values", file: file, line: line)
    }

    private func bytes(_ n: Int, from seed: UInt8 = 0) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: $0 &+ Int(seed)) } }

    private func refusal(_ bytes: [UInt8]) -> TLV8Error? {
        do { _ = try TLV8.decode(bytes); return nil } catch { return error }
    }

    func testItemsAreTypeLengthValueAndAnEmptyValueIsTypeAndZero() throws {
        let encoded = TLV8.encode([(6, [1]), (1, []), (3, [0xAA, 0xBB])])
        XCTAssertEqual(encoded, [6, 1, 1, 1, 0, 3, 2, 0xAA, 0xBB])
        assertItems(try TLV8.decode(encoded), [(6, [1]), (1, []), (3, [0xAA, 0xBB])])
        XCTAssertEqual(TLV8.encode([]), [])
        assertItems(try TLV8.decode([]), [])
    }

    func testAValueOf255BytesIsOneItemAnd256AreTwoFragments() throws {
        let v255 = bytes(255), v256 = bytes(256)
        XCTAssertEqual(TLV8.encode([(5, v255)]), [5, 255] + v255)
        XCTAssertEqual(TLV8.encode([(5, v256)]), [5, 255] + v256[..<255] + [5, 1, v256[255]])
        assertItems(try TLV8.decode(TLV8.encode([(5, v255)])), [(5, v255)])
        assertItems(try TLV8.decode(TLV8.encode([(5, v256)])), [(5, v256)])
    }

    func testAValueOf510BytesIsTwoFullFragmentsWithNoEmptyOneAfter() throws {
        let v510 = bytes(510, from: 7)
        let encoded = TLV8.encode([(5, v510), (6, [3])])
        XCTAssertEqual(encoded, [5, 255] + v510[..<255] + [5, 255] + v510[255...] + [6, 1, 3])
        assertItems(try TLV8.decode(encoded), [(5, v510), (6, [3])])
        let v511 = bytes(511)
        XCTAssertEqual(TLV8.encode([(5, v511)]), [5, 255] + v511[..<255] + [5, 255] + v511[255..<510] + [5, 1, v511[510]])
    }

    func testFragmentsJoinOnlyAfterAFull255ByteFragmentOfTheSameType() throws {
        // Short items of one type in a row stay apart.
        assertItems(try TLV8.decode([1, 2, 0xA, 0xB, 1, 1, 0xC]), [(1, [0xA, 0xB]), (1, [0xC])])
        // A 254-byte item is not a fragment.
        let v254 = bytes(254)
        assertItems(try TLV8.decode([1, 254] + v254 + [1, 1, 9]), [(1, v254), (1, [9])])
        // A full fragment joins the next of its type...
        let v255 = bytes(255)
        assertItems(try TLV8.decode([1, 255] + v255 + [1, 3, 7, 8, 9]), [(1, v255 + [7, 8, 9])])
        // ...but not one of another type, nor the one after that.
        assertItems(try TLV8.decode([1, 255] + v255 + [2, 1, 4, 1, 1, 5]), [(1, v255), (2, [4]), (1, [5])])
        // An empty fragment after a full one ends the value; the next item of the type is new.
        assertItems(try TLV8.decode([1, 255] + v255 + [1, 0, 1, 1, 6]), [(1, v255), (1, [6])])
    }

    func testItemsOfOneTypeInARowReadBackAsWrittenWhateverTheirLengths() throws {
        let lengths = [0, 1, 254, 255, 256, 509, 510, 511, 765, 0, 255, 0]
        let items: Items = lengths.enumerated().map { (index, n) in (type: 9, value: bytes(n, from: UInt8(index))) }
        assertItems(try TLV8.decode(TLV8.encode(items.map { ($0.type, $0.value) })), items)
        // The empty closing fragment is written only where it is needed.
        XCTAssertEqual(TLV8.encode([(9, bytes(255)), (9, [1])]), [9, 255] + bytes(255) + [9, 0, 9, 1, 1])
        XCTAssertEqual(TLV8.encode([(9, bytes(255)), (8, [1])]), [9, 255] + bytes(255) + [8, 1, 1])
    }

    func testAnItemCutShortIsRefusedNamingItsTypeAndLength() {
        XCTAssertEqual(refusal([6, 1, 1, 3, 200] + bytes(12)),
                       TLV8Error(offset: 3, reason: "item of type 3 says 200 bytes but only 12 remain"))
        XCTAssertEqual(refusal([6, 1, 1, 3]), TLV8Error(offset: 3, reason: "item of type 3 has no length byte"))
        XCTAssertEqual(refusal([6, 2, 1]), TLV8Error(offset: 0, reason: "item of type 6 says 2 bytes but only 1 remain"))
        XCTAssertEqual(refusal([1, 255] + bytes(255) + [1, 9, 0]),
                       TLV8Error(offset: 257, reason: "item of type 1 says 9 bytes but only 1 remain"))
        XCTAssertNil(refusal([6, 1, 1, 3, 0]))
        XCTAssertEqual(refusal([7])?.description, "item of type 7 has no length byte (item at byte 0)")
    }

    func testAPairSetupMessageReadsByItsHAPNames() throws {
        // M1 as an iPhone sends it: state 1, method 0 (pair setup), flags for a transient pairing.
        let m1: [UInt8] = [0x06, 0x01, 0x01, 0x00, 0x01, 0x00, 0x13, 0x01, 0x10]
        let items = try TLV8.decode(m1)
        XCTAssertEqual(TLV8.first(.state, in: items), [1])
        XCTAssertEqual(TLV8.first(.method, in: items), [0])
        XCTAssertEqual(TLV8.first(.flags, in: items), [0x10])
        XCTAssertNil(TLV8.first(.publicKey, in: items))
        XCTAssertEqual(TLV8.first(0x06, in: items + [(6, [9])]), [1], "the first of a type wins")
        let reply = TLV8.encode([(HAPTLVType.state.rawValue, [2]), (HAPTLVType.error.rawValue, [HAPTLVError.backoff.rawValue])])
        XCTAssertEqual(reply, [0x06, 0x01, 0x02, 0x07, 0x01, 0x03])
    }

    func testTheHAPCodesAreTheSpecificationsNumbers() {
        let types: [HAPTLVType] = [.method, .identifier, .salt, .publicKey, .proof, .encryptedData, .state, .error,
                                   .retryDelay, .certificate, .signature, .permissions, .fragmentData, .fragmentLast,
                                   .flags, .separator]
        XCTAssertEqual(types.map(\.rawValue), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0x0A, 0x0B, 0x0C, 0x0D, 0x13, 0xFF])
        let errors: [HAPTLVError] = [.unknown, .authentication, .backoff, .maxTries, .maxPeers, .unavailable, .busy]
        XCTAssertEqual(errors.map(\.rawValue), [1, 2, 3, 4, 5, 6, 7])
    }
}

import XCTest
@testable import DoorCore

/// `--ble-security paired`: which writes need a paired phone, and the Error Response each kind
/// of link gets for them, per opcode, byte for byte.
final class ATTLinkSecurityTests: XCTestCase {
    private func pairedServer(_ link: LinkSecurity = .open) -> ATTServer {
        var s = ATTServer(gatt: try! GarageGATT(security: .paired))
        s.link = link
        return s
    }

    private let sc = LinkSecurity(level: .secureConnections, keySize: 16, bonded: true)

    func testOnAnOpenLinkAStrangerIsToldToPairAndNothingIsWritten() {
        var s = pairedServer()
        // Write Request to 6E400002's value: Error Response, Insufficient Authentication (0x05).
        let write = s.answer(wire("12 0C 00 31 32 33 34 35 4F 3D 31"))
        XCTAssertEqual(write.response.map { Hex.string($0) }, spaced("01 12 0C 00 05"))
        XCTAssertNil(write.command, "no command may come out of an unpaired write")
        XCTAssertFalse(write.malformed, "a security refusal is not garbage")
        // Write Command: never a response, and no command.
        let command = s.answer(wire("52 0C 00 31 32 33 34 35 4F 3D 31"))
        XCTAssertEqual(command, ATTServer.Output())
        // The CCCD: refused the same way, and notifications stay off.
        XCTAssertEqual(s.respond("12 0F 00 01 00"), spaced("01 12 0F 00 05"))
        XCTAssertFalse(s.notificationsEnabled)
        // The security check comes before the value's: a malformed CCCD value gets 0x05 too.
        XCTAssertEqual(s.respond("12 0F 00 01"), spaced("01 12 0F 00 05"))
    }

    func testDiscoveryReadsAndOtherWritesStayOpenSoAPhoneCanFindWhatToPairFor() {
        var s = pairedServer()
        XCTAssertEqual(s.respond("02 F7 00"), spaced("03 F7 00"))
        XCTAssertEqual(s.respond("10 01 00 FF FF 00 28"), spaced("11 06 01 00 05 00 00 18 06 00 09 00 01 18"))
        XCTAssertEqual(s.respond("04 0D 00 0D 00"), spaced("05 01 0D 00 03 28"), "Find Information")
        XCTAssertEqual(s.respond("0A 0F 00"), spaced("0B 00 00"), "the CCCD reads")
        XCTAssertEqual(s.respond("0A 03 00"), spaced("0B") + " " + Hex.string(Array("Garage".utf8)))
        XCTAssertEqual(s.respond("12 09 00 02 00"), "13", "Service Changed's CCCD needs no pairing")
        XCTAssertEqual(s.respond("12 03 00 41"), spaced("01 12 03 00 03"), "read-only stays Write Not Permitted")
    }

    func testABondedPhoneOnAnUnencryptedLinkIsToldToEncryptNotToPairAgain() {
        var s = pairedServer(LinkSecurity(level: .open, bonded: true))
        XCTAssertEqual(s.respond("12 0C 00 31 32 33 34 35 4F 3D 31"), spaced("01 12 0C 00 0F"))
        XCTAssertEqual(s.respond("12 0F 00 01 00"), spaced("01 12 0F 00 0F"))
    }

    func testEncryptionWithoutSecureConnectionsPasskeyIsNotEnough() {
        for level in [LinkSecurity.Level.encrypted, .authenticated] {
            for bonded in [false, true] {
                var s = pairedServer(LinkSecurity(level: level, keySize: 16, bonded: bonded))
                XCTAssertEqual(s.respond("12 0C 00 31 32 33 34 35 4F 3D 31"), spaced("01 12 0C 00 05"), "\(level) bonded \(bonded)")
                XCTAssertNil(s.answer(wire("52 0C 00 31 32 33 34 35 4F 3D 31")).command)
            }
        }
    }

    func testASecureLinkFromAPhoneNoLongerBondedIsRefused() {
        // Unpaired while connected: the link stays encrypted until the kernel drops it, but the
        // phone's key is gone from the bonds, so its next write is refused at once.
        var s = pairedServer(LinkSecurity(level: .secureConnections, keySize: 16, bonded: false))
        XCTAssertEqual(s.respond("12 0C 00 31 32 33 34 35 4F 3D 31"), spaced("01 12 0C 00 05"))
    }

    func testAShortKeyIsRefused() {
        var s = pairedServer(LinkSecurity(level: .secureConnections, keySize: 7, bonded: true))
        XCTAssertEqual(s.respond("12 0C 00 31 32 33 34 35 4F 3D 31"), spaced("01 12 0C 00 0C"))
    }

    func testAPairedPhoneOnASecureLinkWritesAsInOpenMode() {
        var s = pairedServer(sc)
        XCTAssertEqual(s.respond("12 0F 00 01 00"), "13")
        XCTAssertTrue(s.notificationsEnabled)
        let write = s.answer(wire("12 0C 00 31 32 33 34 35 4F 3D 31"))
        XCTAssertEqual(write.response, [0x13])
        XCTAssertEqual(write.command, Array("12345O=1".utf8))
        XCTAssertEqual(s.answer(wire("52 0C 00 31 32 33 34 35 4F 3D 31")).command, Array("12345O=1".utf8))
    }

    func testOpenModeIgnoresTheLinkAndKeepsTheBooksDatabaseByteForByte() {
        var s = ATTServer(gatt: try! GarageGATT())
        XCTAssertFalse(s.needsLinkSecurity)
        XCTAssertEqual(s.answer(wire("52 0C 00 31 32 33 34 35 4F 3D 31")).command, Array("12345O=1".utf8))
        XCTAssertEqual(s.respond("12 0F 00 01 00"), "13")
        let open = try! GarageGATT().database.attributes
        let paired = try! GarageGATT(security: .paired).database.attributes
        XCTAssertEqual(open.count, paired.count)
        for (a, b) in zip(open, paired) {
            XCTAssertEqual([a.handle, a.groupEnd], [b.handle, b.groupEnd])
            XCTAssertEqual(a.type, b.type)
            XCTAssertEqual(a.value, b.value, "the same bytes in both modes: the book's app sees no difference")
            XCTAssertEqual(a.permissions.subtracting(.pairedWrite), b.permissions.subtracting(.pairedWrite))
            XCTAssertFalse(a.permissions.contains(.pairedWrite))
        }
        XCTAssertEqual(paired.filter { $0.permissions.contains(.pairedWrite) }.map(\.handle), [0x000C, 0x000F])
        XCTAssertTrue(pairedServer().needsLinkSecurity)
    }
}

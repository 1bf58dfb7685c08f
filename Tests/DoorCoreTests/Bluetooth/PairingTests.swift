import XCTest
@testable import DoorCore

/// The pairing agent's pure parts: the management packets byte for byte (doc/mgmt-api.txt),
/// the bonds file, and the window's rules.
final class PairingTests: XCTestCase {
    let phone = LEAddress("00:AA:01:01:00:01", kind: .public)!
    let t0 = Instant(nanoseconds: 1_000_000_000)

    func key(_ kind: LongTermKey.Kind = .p256Authenticated, size: UInt8 = 16, at address: LEAddress? = nil) -> LongTermKey {
        LongTermKey(address: address ?? phone, kind: kind, central: 0, encryptionSize: size, ediv: 0, rand: 0,
                    value: Array(1...16))
    }

    // MARK: packets

    func testCommandsAreTheKernelsPackets() {
        XCTAssertEqual(Hex.string(ManagementCommand.setBondable(true).packet(index: 0)), "09 00 00 00 01 00 01")
        XCTAssertEqual(Hex.string(ManagementCommand.setIOCapability(.displayOnly).packet(index: 1)), "18 00 01 00 01 00 00")
        XCTAssertEqual(Hex.string(ManagementCommand.setSecureConnections(true).packet(index: 0)), "2D 00 00 00 01 00 01")
        XCTAssertEqual(Hex.string(ManagementCommand.unpairDevice(phone, disconnect: true).packet(index: 0)),
                       "1B 00 00 00 08 00 01 00 01 01 AA 00 01 01")
        let ltk = LongTermKey(address: phone, kind: .p256Authenticated, central: 0, encryptionSize: 16, ediv: 0x1234,
                              rand: 0x0102030405060708, value: Array(repeating: 0xAB, count: 16))
        let load = ManagementCommand.loadLongTermKeys([ltk]).packet(index: 0)
        XCTAssertEqual(load.count, 6 + 2 + 36)
        XCTAssertEqual(Hex.string(load.prefix(28)),
                       "13 00 00 00 26 00 01 00 01 00 01 01 AA 00 01 03 00 10 34 12 08 07 06 05 04 03 02 01")
        XCTAssertEqual(ManagementCommand.loadIdentityResolvingKeys([]).packet(index: 0), [0x30, 0, 0, 0, 2, 0, 0, 0])
    }

    func testEventsDecode() {
        // Passkey Notify: address, passkey 123456 (0x0001E240), entered 0.
        let notify = wire("17 00 00 00 0C 00 01 00 01 01 AA 00 01 40 E2 01 00 00")
        XCTAssertEqual(ManagementEvent.decode(notify)?.event, .passkeyNotify(phone, passkey: 123_456))
        // New Long Term Key, store hint 1.
        let ltk = key()
        let packet = [0x0A, 0x00, 0x00, 0x00, 37, 0x00, 0x01] + ltk.wire
        XCTAssertEqual(ManagementEvent.decode(packet)?.event, .newLongTermKey(ltk, store: true))
        // New IRK: store hint, the RPA it came under, mgmt_irk_info.
        let irk = IdentityResolvingKey(address: phone, value: Array(repeating: 7, count: 16))
        let irkPacket = [0x18, 0x00, 0x00, 0x00, 30, 0x00, 0x01] + [1, 2, 3, 4, 5, 0x45] + irk.wire
        XCTAssertEqual(ManagementEvent.decode(irkPacket)?.event, .newIdentityResolvingKey(irk, store: true))
        XCTAssertEqual(ManagementEvent.decode(wire("11 00 00 00 08 00 01 00 01 01 AA 00 01 05"))?.event,
                       .authenticationFailed(phone, status: 0x05))
        XCTAssertEqual(ManagementEvent.decode(wire("01 00 02 00 04 00 09 00 00 00"))?.index, 2)
        XCTAssertEqual(ManagementEvent.decode(wire("01 00 02 00 04 00 09 00 00 00"))?.event, .commandDone(opcode: 9, status: 0))
        // Truncated: the header promises more than the packet has.
        XCTAssertNil(ManagementEvent.decode(wire("17 00 00 00 0C 00 01 00")))
        XCTAssertNil(ManagementEvent.decode(wire("17 00")))
        // Too short for its own kind: dropped, never read past the end.
        XCTAssertNil(ManagementEvent.decode(wire("0A 00 00 00 03 00 01 02 03")))
        XCTAssertEqual(ManagementEvent.decode(wire("06 00 00 00 00 00"))?.event, .other(code: 6))
    }

    // MARK: the bonds file

    func testBondsFileRoundTripsAndNamesABadLine() throws {
        var list = BondedPhones()
        let irk = IdentityResolvingKey(address: phone, value: Array(repeating: 9, count: 16))
        list.add(BondedPhone(label: "Anna", admin: true, ltk: key(), irk: irk, since: 1_700_000_000_000))
        let other = LEAddress("C0:11:22:33:44:55", kind: .random)!
        list.add(BondedPhone(label: "guest", admin: false, ltk: key(at: other), irk: nil, since: 5, seen: 6))
        XCTAssertTrue(list.touch(phone, at: 42))
        let decoded = try BondedPhones.decode(list.encoded()).get()
        XCTAssertEqual(decoded, list)
        XCTAssertEqual(decoded["Anna"]?.seen, 42)
        XCTAssertEqual(decoded.phone(at: other)?.label, "guest")
        XCTAssertEqual(list.label(for: nil), "phone 3")
        var text = String(decoding: list.encoded(), as: UTF8.self)
        text = text.replacingOccurrences(of: "\"ltk_type\":3", with: "\"ltk_type\":9")
        XCTAssertEqual(BondedPhones.decode(Array(text.utf8)), .failure(.badLine(line: 2, reason: "Anna: the long-term key is incomplete (ltk, ltk_type, central, enc_size, ediv, rand)")))
        let twice = Array((String(decoding: list.encoded(), as: UTF8.self) + list.phones[0].fileRecord.serialized + "\n").utf8)
        XCTAssertEqual(BondedPhones.decode(twice), .failure(.badLine(line: 4, reason: "a second phone labelled \"Anna\"")))
        XCTAssertFalse(list.phones[0].publicRecord.serialized.contains("0102"), "no key in what garage-pins phones shows")
        XCTAssertEqual(list.kernelCommands, [.loadLongTermKeys([key(), key(at: other)]), .loadIdentityResolvingKeys([irk])])
    }

    // MARK: the window

    func testAPasskeyPairingInsideTheWindowBondsTheNamedPhoneAndClosesIt() {
        var w = PairingWindow()
        XCTAssertEqual(w.open(.init(label: "Anna", admin: true, seconds: 60), label: "Anna", at: t0),
                       [.send(.setBondable(true)), .report(.opened(seconds: 60, label: "Anna"))])
        XCTAssertEqual(w.apply(.passkeyNotify(phone, passkey: 4321), wall: 0), [.report(.passkey("004321", phone: phone))])
        let irk = IdentityResolvingKey(address: phone, value: Array(repeating: 3, count: 16))
        XCTAssertEqual(w.apply(.newIdentityResolvingKey(irk, store: true), wall: 0), [])
        let bonded = BondedPhone(label: "Anna", admin: true, ltk: key(), irk: irk, since: 99)
        XCTAssertEqual(w.apply(.newLongTermKey(key(), store: true), wall: 99),
                       [.bond(bonded), .report(.paired(bonded)), .send(.setBondable(false)), .report(.closed("paired Anna"))])
        XCTAssertFalse(w.isOpen)
    }

    func testLegacyJustWorksShortKeysAndNoBondAreUndone() {
        let cases: [(LongTermKey, Bool, String)] = [
            (key(.legacyAuthenticated), true, "legacy pairing"),
            (key(.legacyUnauthenticated), true, "legacy pairing"),
            (key(.p256Unauthenticated), true, "not authenticated"),
            (key(.p256Debug), true, "not authenticated"),
            (key(size: 7), true, "7-octet key"),
            (key(), false, "did not ask for a bond"),
        ]
        for (ltk, store, words) in cases {
            var w = PairingWindow()
            _ = w.open(.init(label: nil, admin: false, seconds: 60), label: "phone 1", at: t0)
            let actions = w.apply(.newLongTermKey(ltk, store: store), wall: 1)
            XCTAssertEqual(Array(actions.prefix(2)), [.send(.unpairDevice(phone, disconnect: true)), .reloadKeys], words)
            guard case .report(.refused(let why)) = actions.last else { return XCTFail("\(words): \(actions)") }
            XCTAssertTrue(why.contains(words), why)
            XCTAssertTrue(w.isOpen, "the owner may try again with the right phone settings")
        }
    }

    func testNothingBondsWhileTheWindowIsClosed() {
        var w = PairingWindow()
        XCTAssertEqual(w.apply(.passkeyNotify(phone, passkey: 1), wall: 0).first, .send(.disconnect(phone)))
        let actions = w.apply(.newLongTermKey(key(), store: true), wall: 0)
        XCTAssertEqual(Array(actions.prefix(2)), [.send(.unpairDevice(phone, disconnect: true)), .reloadKeys])
        XCTAssertFalse(actions.contains { if case .bond = $0 { return true }; return false })
        XCTAssertEqual(w.apply(.userConfirmRequest(phone, value: 5), wall: 0).first, .send(.userConfirmNegativeReply(phone)))
        XCTAssertEqual(w.apply(.authenticationFailed(phone, status: 5), wall: 0),
                       [.refusedOutside("a phone tried to pair while no pairing window was open (open one with garage-pins pair)", phone)])
        XCTAssertEqual(w.close("x"), [], "closing a closed window does nothing")
    }

    func testTheWindowClosesByItselfAndANewRequestReplacesAnOpenOne() {
        var w = PairingWindow()
        _ = w.open(.init(label: "A", admin: false, seconds: 60), label: "A", at: t0)
        XCTAssertEqual(w.tick(at: t0 + .seconds(59)), [])
        XCTAssertEqual(w.open(.init(label: "B", admin: false, seconds: 30), label: "B", at: t0 + .seconds(59)),
                       [.send(.setBondable(true)), .report(.opened(seconds: 30, label: "B"))],
                       "the replaced window's follower is told by the daemon when the new request comes, not by the window")
        XCTAssertEqual(w.tick(at: t0 + .seconds(89)), [.send(.setBondable(false)), .report(.closed("no phone paired within 30 s"))])
        XCTAssertFalse(w.isOpen)
    }
}

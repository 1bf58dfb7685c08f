import DoorSystem
import XCTest
@testable import DoorCore

/// HomeKit's pairing state machines and session frames, with a controller played by the test
/// (libcrypto's primitives through `LibCrypto`): pair-setup from M1 to M6 and its refusals
/// (a wrong code, Busy, Unavailable, MaxTries, Backoff), pair-verify, and the encrypted frames.
final class HAPPairingTests: XCTestCase {
    let crypto = LibCrypto()
    let t0 = Instant(nanoseconds: 1_000_000_000_000)

    func accessory() -> HAPAccessoryState {
        HAPAccessoryState(id: "1A:2B:3C:4D:5E:6F", seed: [UInt8](repeating: 7, count: 32), setupCode: "031-45-154", setupID: "ABCD")
    }

    func tlv(_ items: [(HAPTLVType, [UInt8])]) -> [UInt8] { TLV8.encode(items.map { ($0.0.rawValue, $0.1) }) }

    func decode(_ bytes: [UInt8]) throws -> [(type: UInt8, value: [UInt8])] { try TLV8.decode(bytes) }

    func testPairSetupRefusesAWrongProofAndCountsIt() throws {
        var setup = PairSetup()
        let state = accessory()
        let (m2, none) = setup.step(tlv([(.state, [1]), (.method, [0])]), connection: 1, accessory: state, crypto: crypto, at: t0)
        XCTAssertNil(none)
        let items = try decode(m2)
        XCTAssertEqual(TLV8.first(.state, in: items), [2])
        XCTAssertEqual(TLV8.first(.salt, in: items)?.count, 16)
        XCTAssertEqual(TLV8.first(.publicKey, in: items)?.count, 384)
        let a = crypto.modExp([5], crypto.randomBytes(32), SRPGroup.rfc5054Group3072.modulus)
        let (m4, effect) = setup.step(tlv([(.state, [3]), (.publicKey, a), (.proof, [UInt8](repeating: 9, count: 64))]),
                                        connection: 1, accessory: state, crypto: crypto, at: t0)
        XCTAssertEqual(effect, .failed)
        XCTAssertEqual(TLV8.first(.error, in: try decode(m4)), [HAPTLVError.authentication.rawValue])
    }

    /// The whole exchange with the right code: the controller is kept as an admin, and the
    /// accessory's M6 proves its own long-term key.
    func testPairSetupWithTheRightCodePairsTheControllerAsAdmin() throws {
        var setup = PairSetup()
        let state = accessory()
        let (m2, _) = setup.step(tlv([(.state, [1]), (.method, [0])]), connection: 1, accessory: state, crypto: crypto, at: t0)
        let items = try decode(m2)
        let salt = try XCTUnwrap(TLV8.first(.salt, in: items)), bigB = try XCTUnwrap(TLV8.first(.publicKey, in: items))
        // The controller's side of SRP-6a: S = (B - k·g^x)^(a + u·x) mod N.
        let n = SRPGroup.rfc5054Group3072.modulus
        let a = crypto.randomBytes(32)
        let bigA = crypto.modExp([5], a, n)
        let h = { (d: [UInt8]) in self.crypto.sha512(d) }
        let k = h(n + SRPServer.pad([5], to: 384))
        let x = h(salt + h(Array("Pair-Setup:031-45-154".utf8)))
        let u = h(SRPServer.pad(bigA, to: 384) + bigB)
        let gx = crypto.modExp([5], x, n)
        // B - k·g^x mod N = B + (N - k·g^x mod N)... computed as B + k·g^x·(N-1) mod N.
        var nMinus1 = n
        nMinus1[nMinus1.count - 1] -= 1
        let base = crypto.modAdd(bigB, crypto.modMul(crypto.modMul(k, gx, n), nMinus1, n), n)
        // a + u·x as an exponent: g's order divides N-1, so reduce mod N-1.
        let exponent = crypto.modAdd(a, crypto.modMul(u, x, nMinus1), nMinus1)
        let premaster = crypto.modExp(base, exponent, n)
        let key = h(premaster)
        let groupHash = zip(h(n), h([5])).map { $0 ^ $1 }
        let proof = h(groupHash + h(Array("Pair-Setup".utf8)) + salt + bigA + bigB + key)
        let (m4, effect4) = setup.step(tlv([(.state, [3]), (.publicKey, bigA), (.proof, proof)]), connection: 1, accessory: state,
                                         crypto: crypto, at: t0)
        XCTAssertNil(effect4)
        XCTAssertEqual(TLV8.first(.proof, in: try decode(m4)), h(bigA + proof + key), "the accessory's proof")

        // M5: the controller's long-term key, signed, under the setup's key.
        let seed = crypto.randomBytes(32), ltpk = crypto.ed25519PublicKey(seed: seed), id = Array("controller-1".utf8)
        let sign = crypto.hkdf(key, salt: "Pair-Setup-Controller-Sign-Salt", info: "Pair-Setup-Controller-Sign-Info")
        let sub = tlv([(.identifier, id), (.publicKey, ltpk), (.signature, crypto.ed25519Sign(seed: seed, sign + id + ltpk))])
        let encrypt = crypto.hkdf(key, salt: "Pair-Setup-Encrypt-Salt", info: "Pair-Setup-Encrypt-Info")
        let sealed = crypto.seal(key: encrypt, nonce: HAPNonce.named("PS-Msg05"), sub, aad: [])
        let (m6, effect6) = setup.step(tlv([(.state, [5]), (.encryptedData, sealed)]), connection: 1, accessory: state, crypto: crypto, at: t0)
        XCTAssertEqual(effect6, .paired(HAPPairing(id: "controller-1", publicKey: ltpk, admin: true)))
        let reply = try XCTUnwrap(TLV8.first(.encryptedData, in: try decode(m6)))
        let opened = try decode(try XCTUnwrap(crypto.open(key: encrypt, nonce: HAPNonce.named("PS-Msg06"), reply, aad: [])))
        let accessoryKey = try XCTUnwrap(TLV8.first(.publicKey, in: opened))
        let accessorySign = crypto.hkdf(key, salt: "Pair-Setup-Accessory-Sign-Salt", info: "Pair-Setup-Accessory-Sign-Info")
        XCTAssertTrue(crypto.ed25519Verify(publicKey: accessoryKey, accessorySign + Array(state.id.utf8) + accessoryKey,
                                           signature: try XCTUnwrap(TLV8.first(.signature, in: opened))))
    }

    func testPairSetupIsBusyUnavailableMaxTriesAndBacksOff() throws {
        var setup = PairSetup()
        var state = accessory()
        let m1 = tlv([(.state, [1]), (.method, [0])])
        _ = setup.step(m1, connection: 1, peer: "10.0.0.1", accessory: state, crypto: crypto, at: t0)
        XCTAssertEqual(TLV8.first(.error, in: try decode(setup.step(m1, connection: 2, peer: "10.0.0.2", accessory: state, crypto: crypto,
                                                                      at: t0).reply)),
                       [HAPTLVError.busy.rawValue], "another connection's pair-setup is under way")
        setup.connectionClosed(1, at: t0)
        XCTAssertNil(TLV8.first(.error, in: try decode(setup.step(m1, connection: 2, peer: "10.0.0.2", accessory: state, crypto: crypto,
                                                                    at: t0).reply)),
                     "its connection closed: no longer busy")
        state.failedSetups = HAPAccessoryState.maxFailures
        XCTAssertEqual(TLV8.first(.error, in: try decode(setup.step(m1, connection: 3, accessory: state, crypto: crypto, at: t0).reply)),
                       [HAPTLVError.maxTries.rawValue])
        state.failedSetups = 0
        _ = state.add(HAPPairing(id: "x", publicKey: [UInt8](repeating: 1, count: 32), admin: true))
        XCTAssertEqual(TLV8.first(.error, in: try decode(setup.step(m1, connection: 3, accessory: state, crypto: crypto, at: t0).reply)),
                       [HAPTLVError.unavailable.rawValue])
        var fresh = PairSetup()
        let unpaired = accessory()
        for i in 0..<PairSetup.maxStartsPerMinute {
            _ = fresh.step(m1, connection: i, peer: "10.0.0.\(i)", accessory: unpaired, crypto: crypto, at: t0 + .seconds(i))
            fresh.connectionClosed(i, at: t0 + .seconds(i))
        }
        XCTAssertEqual(TLV8.first(.error, in: try decode(fresh.step(m1, connection: 99, accessory: unpaired, crypto: crypto, at: t0 + .seconds(20)).reply)),
                       [HAPTLVError.backoff.rawValue], "more than \(PairSetup.maxStartsPerMinute) starts a minute")
        XCTAssertNil(TLV8.first(.error, in: try decode(fresh.step(m1, connection: 99, accessory: unpaired, crypto: crypto, at: t0 + .seconds(61)).reply)))
    }

    /// A stranger's M1 every 25 s kept pair-setup Busy for ever (issue 29, W3): each restart
    /// renewed its hold. A hold now ends 30 s after its first M1 however often its connection
    /// starts again, and the peer whose hold ran out, or who closed mid-way, is Busy for 30 s
    /// more on any connection, so someone else gets their turn.
    func testAHoldIsNeverRenewedAndWhoAbandonedItWaitsItsTurn() throws {
        var setup = PairSetup()
        let state = accessory()
        let m1 = tlv([(.state, [1]), (.method, [0])])
        func start(_ connection: Int, _ peer: String, at s: Int) throws -> UInt8? {
            let reply = setup.step(m1, connection: connection, peer: peer, accessory: state, crypto: crypto, at: t0 + .seconds(s)).reply
            return TLV8.first(.error, in: try decode(reply))?.first
        }
        let busy = HAPTLVError.busy.rawValue
        XCTAssertNil(try start(1, "stranger", at: 0))
        XCTAssertEqual(try start(2, "owner", at: 1), busy)
        XCTAssertNil(try start(1, "stranger", at: 25), "its own connection may start again...")
        XCTAssertEqual(try start(2, "owner", at: 29), busy, "...within its first 30 s")
        XCTAssertEqual(try start(1, "stranger", at: 30), busy, "30 s after its first M1 the hold is over, restarts or not")
        XCTAssertEqual(try start(3, "stranger", at: 30), busy, "and a new connection of the same peer waits too")
        XCTAssertNil(try start(2, "owner", at: 31), "the owner's turn")
        setup.connectionClosed(2, at: t0 + .seconds(32))
        XCTAssertEqual(try start(4, "owner", at: 33), busy, "who closes mid-way waits as well")
        XCTAssertEqual(try start(3, "stranger", at: 59), busy, "30 s after its hold ran out...")
        XCTAssertNil(try start(3, "stranger", at: 60), "...the stranger may start again")
    }

    /// Pair-verify with a paired controller, then frames both ways; a stranger's M3 is refused,
    /// and a frame altered, replayed or too long breaks the session.
    func testPairVerifyThenFrames() throws {
        var state = accessory()
        let seed = crypto.randomBytes(32), ltpk = crypto.ed25519PublicKey(seed: seed), id = Array("phone".utf8)
        _ = state.add(HAPPairing(id: "phone", publicKey: ltpk, admin: false))
        var verify = PairVerify()
        let secret = crypto.randomBytes(32), pub = crypto.x25519PublicKey(secret: secret)
        let (m2, none) = verify.step(tlv([(.state, [1]), (.publicKey, pub)]), accessory: state, crypto: crypto)
        XCTAssertNil(none)
        let items = try decode(m2)
        let theirs = try XCTUnwrap(TLV8.first(.publicKey, in: items))
        let shared = try XCTUnwrap(crypto.x25519(secret: secret, peer: theirs))
        let key = crypto.hkdf(shared, salt: "Pair-Verify-Encrypt-Salt", info: "Pair-Verify-Encrypt-Info")
        let inner = try decode(try XCTUnwrap(crypto.open(key: key, nonce: HAPNonce.named("PV-Msg02"), try XCTUnwrap(TLV8.first(.encryptedData, in: items)), aad: [])))
        XCTAssertTrue(crypto.ed25519Verify(publicKey: crypto.ed25519PublicKey(seed: state.seed), theirs + Array(state.id.utf8) + pub,
                                           signature: try XCTUnwrap(TLV8.first(.signature, in: inner))), "the accessory proved itself")
        let proof = tlv([(.identifier, id), (.signature, crypto.ed25519Sign(seed: seed, pub + id + theirs))])
        let m3 = tlv([(.state, [3]), (.encryptedData, crypto.seal(key: key, nonce: HAPNonce.named("PV-Msg03"), proof, aad: []))])
        var stranger = verify
        var otherState = state
        otherState.pairings = []
        XCTAssertEqual(TLV8.first(.error, in: try decode(stranger.step(m3, accessory: otherState, crypto: crypto).reply)),
                       [HAPTLVError.authentication.rawValue], "not paired: refused")
        let (m4, verified) = verify.step(m3, accessory: state, crypto: crypto)
        XCTAssertEqual(TLV8.first(.state, in: try decode(m4)), [4])
        var session = try XCTUnwrap(verified).cipher
        XCTAssertEqual(verified?.controller, "phone")
        XCTAssertEqual(verified?.admin, false)

        // The controller's side of the session: it writes with the write key, reads with the read key.
        var controller = HAPSessionCipher(readKey: crypto.hkdf(shared, salt: "Control-Salt", info: "Control-Read-Encryption-Key"),
                                          writeKey: crypto.hkdf(shared, salt: "Control-Salt", info: "Control-Write-Encryption-Key"), crypto: crypto)
        let request = [UInt8](repeating: 0x41, count: 2500)
        let frames = controller.seal(request)
        XCTAssertEqual(frames.count, 2500 + 3 * (2 + 16), "three frames of at most 1024 bytes")
        // Byte by byte, as TCP may deliver it.
        var got: [UInt8] = []
        for b in frames { if case .plaintext(let p) = session.open([b]) { got += p } }
        XCTAssertEqual(got, request)
        XCTAssertEqual(controller.open(session.seal(Array("HTTP/1.1 204 No Content\r\n\r\n".utf8))),
                       .plaintext(Array("HTTP/1.1 204 No Content\r\n\r\n".utf8)))
        var replayed = session
        if case .broken = replayed.open(Array(frames.prefix(2 + 1024 + 16))) {} else { XCTFail("a replayed frame must not open") }
        var altered = frames
        altered[5] ^= 1
        var fresh = try XCTUnwrap(verified).cipher
        if case .broken = fresh.open(altered) {} else { XCTFail("an altered frame must not open") }
        var long = try XCTUnwrap(verified).cipher
        if case .broken = long.open([0x01, 0x04]) {} else { XCTFail("a frame of 1025 bytes is refused before it arrives") }
    }

    func testSetupCodesAndTheSetupURI() {
        for _ in 0..<200 {
            let code = SetupCode.random(crypto: crypto)
            XCTAssertTrue(SetupCode.isValid(code), code)
        }
        XCTAssertFalse(SetupCode.isValid("111-11-111"))
        XCTAssertFalse(SetupCode.isValid("123-45-678"))
        XCTAssertFalse(SetupCode.isValid("12345678"))
        // HAP-python's documented example payload: category 4 (garage door), the IP flag, code 031-45-154.
        XCTAssertEqual(SetupCode.setupURI(code: "031-45-154", setupID: "ABCD", category: 4).prefix(7), "X-HM://")
        XCTAssertEqual(SetupCode.setupURI(code: "031-45-154", setupID: "ABCD", category: 4).count, 7 + 9 + 4)
    }

    /// A pairing id is 1 to 64 bytes of printable ASCII without spaces, from M5 and from an add
    /// alike (issue 29, H3 and W2); and `<table>.homekit` is never written larger than garaged
    /// reads back: such a save is refused whole, the file left as it was.
    func testPairingIDsAreBoundedAndTheFileNeverOutgrowsWhatIsRead() throws {
        XCTAssertEqual(HAPPairing.id(Array("E2C3F1A8-0B7D-4C55-9A41-6D2B8F0E1C37".utf8)), "E2C3F1A8-0B7D-4C55-9A41-6D2B8F0E1C37")
        XCTAssertNotNil(HAPPairing.id([UInt8](repeating: 0x7E, count: HAPPairing.maxIDLength)))
        for bad in ["", String(repeating: "a", count: 65), "a b", "a\nb", "a\u{1B}[31m", "caf\u{E9}"] {
            XCTAssertNil(HAPPairing.id(Array(bad.utf8)), bad.debugDescription)
        }
        let admin = tlv([(.state, [1]), (.method, [3]), (.identifier, Array("a\nb".utf8)), (.publicKey, [UInt8](repeating: 1, count: 32)),
                         (.permissions, [1])])
        let (reply, change) = PairingsRequest.answer(admin, admin: true, state: accessory())
        XCTAssertNil(change)
        XCTAssertEqual(TLV8.first(.error, in: try decode(reply)), [HAPTLVError.unknown.rawValue])

        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("garaged-hk-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = HomeKitFile(path: dir + "/pins.homekit")
        try file.save(accessory())
        var big = accessory()
        big.pairings = (0..<40).map { HAPPairing(id: "\($0)" + String(repeating: "x", count: 2000), publicKey: [UInt8](repeating: 2, count: 32),
                                                  admin: true) }
        XCTAssertThrowsError(try file.save(big)) { error in
            XCTAssertTrue("\(error)".contains("more than the 65536 garaged reads back"), "\(error)")
        }
        XCTAssertEqual(try file.load(), accessory(), "the file is as it was")
    }

    func testRemovingTheLastAdminForgetsEveryPairing() {
        var state = accessory()
        _ = state.add(HAPPairing(id: "owner", publicKey: [UInt8](repeating: 1, count: 32), admin: true))
        _ = state.add(HAPPairing(id: "guest", publicKey: [UInt8](repeating: 2, count: 32), admin: false))
        XCTAssertFalse(state.add(HAPPairing(id: "owner", publicKey: [UInt8](repeating: 3, count: 32), admin: true)), "an id keeps its key")
        state.remove("guest", crypto: crypto)
        XCTAssertEqual(state.pairings.map(\.id), ["owner"])
        _ = state.add(HAPPairing(id: "guest", publicKey: [UInt8](repeating: 2, count: 32), admin: false))
        XCTAssertEqual(state.setupCode, accessory().setupCode, "still paired: the same code")
        state.remove("owner", crypto: crypto)
        XCTAssertEqual(state.pairings, [], "no admin left: nobody")
        XCTAssertNotEqual(state.setupCode, accessory().setupCode, "unpaired: a new setup code")
        XCTAssertTrue(SetupCode.isValid(state.setupCode))
    }
}

import BigInt
import DoorCore

#if canImport(Glibc)
import Glibc
#endif

/// The controller's side (an iPhone's) of one pair-setup and one pair-verify, computed once up
/// front and never timed. SRP's client arithmetic is written here with BigInt, apart from
/// DoorCore's `SRPServer`, so an accessory that accepts this controller's proof and answers with
/// the expected one has computed the real S and K, whichever library it runs on.
struct Controller {
    /// The primitives the controller signs, seals and derives keys with.
    let crypto: any HAPCrypto
    let id = Array("8C2E4F1A-BENCH-CONTROLLER".utf8)
    let seed: [UInt8]
    let publicKey: [UInt8]
    /// SRP's a, and the X25519 secret of pair-verify.
    let srpSecret: [UInt8]
    let ephemeralSecret: [UInt8]

    init(crypto: any HAPCrypto) {
        self.crypto = crypto
        let pool = crypto.sha512(Array("garaged bench/hap-crypto: the controller's keys".utf8))
        seed = Array(pool[0..<32])
        srpSecret = Array(pool[32..<64])
        ephemeralSecret = crypto.sha512(pool).prefix(32).map { $0 }
        publicKey = crypto.ed25519PublicKey(seed: seed)
    }

    var pairing: HAPPairing { HAPPairing(id: String(decoding: id, as: UTF8.self), publicKey: publicKey, admin: true) }

    // MARK: pair-setup

    /// What SRP gave the controller, to check the accessory's M4 and M6 with.
    struct SRPResult {
        let m3: [UInt8]
        let sessionKey: [UInt8]
        let expectedProof: [UInt8]
    }

    let setupM1 = TLV8.encode([(HAPTLVType.state.rawValue, [1]), (HAPTLVType.method.rawValue, [0])])

    /// M3 from the accessory's M2 (salt and B): SRP-6a's client side (RFC 5054, SHA-512, the
    /// 3072-bit group), numbers padded to the modulus's length as HomeKit's controllers pad them.
    func setupM3(m2: [UInt8], setupCode: String) -> SRPResult {
        let items = decode(m2, "pair-setup M2")
        guard let salt = items.value(.salt), let b = items.value(.publicKey) else { fail("pair-setup M2 has no salt or B") }
        let group = SRPGroup.rfc5054Group3072
        let width = group.modulus.count
        let h = crypto.sha512
        let n = number(group.modulus), g = number(group.generator)
        let a = number(srpSecret)
        let bigA = bytes(g.power(a, modulus: n), count: width)
        let k = number(h(group.modulus + pad(group.generator, to: width)))
        let u = number(h(bigA + pad(b, to: width)))
        let x = number(h(salt + h(Array("Pair-Setup:\(setupCode)".utf8))))
        // S = (B - k·g^x)^(a + u·x) mod N
        let base = (number(b) + n - k * g.power(x, modulus: n) % n) % n
        let s = bytes(base.power(a + u * x, modulus: n), count: width)
        let key = h(s)
        let groupHash = zip(h(group.modulus), h(group.generator)).map { $0 ^ $1 }
        let proof = h(groupHash + h(Array("Pair-Setup".utf8)) + salt + bigA + b + key)
        let m3 = TLV8.encode([(HAPTLVType.state.rawValue, [3]), (HAPTLVType.publicKey.rawValue, bigA),
                              (HAPTLVType.proof.rawValue, proof)])
        return SRPResult(m3: m3, sessionKey: key, expectedProof: h(bigA + proof + key))
    }

    /// M5: the controller's id and long-term key, signed under a key derived from K, sealed.
    func setupM5(_ srp: SRPResult) -> [UInt8] {
        let x = crypto.hkdf(srp.sessionKey, salt: "Pair-Setup-Controller-Sign-Salt", info: "Pair-Setup-Controller-Sign-Info")
        let signature = crypto.ed25519Sign(seed: seed, x + id + publicKey)
        let sub = TLV8.encode([(HAPTLVType.identifier.rawValue, id), (HAPTLVType.publicKey.rawValue, publicKey),
                               (HAPTLVType.signature.rawValue, signature)])
        let sealed = crypto.seal(key: setupKey(srp), nonce: nonce("PS-Msg05"), sub, aad: [])
        return TLV8.encode([(HAPTLVType.state.rawValue, [5]), (HAPTLVType.encryptedData.rawValue, sealed)])
    }

    /// Checks M4 (the accessory's proof, which only the right K gives) and M6 (the accessory's
    /// id and key, signed by it, sealed under K's key), as the controller would.
    func checkSetup(m4: [UInt8], m6: [UInt8], _ srp: SRPResult, accessory: HAPAccessoryState) {
        require(decode(m4, "pair-setup M4").value(.proof) == srp.expectedProof, "pair-setup M4 carries the expected proof")
        guard let sealed = decode(m6, "pair-setup M6").value(.encryptedData),
              let plain = crypto.open(key: setupKey(srp), nonce: nonce("PS-Msg06"), sealed, aad: []) else {
            fail("pair-setup M6 does not open under K's key")
        }
        let sub = decode(plain, "pair-setup M6's sealed items")
        guard let accessoryID = sub.value(.identifier), let key = sub.value(.publicKey), let signature = sub.value(.signature)
        else { fail("pair-setup M6 lacks an item") }
        let x = crypto.hkdf(srp.sessionKey, salt: "Pair-Setup-Accessory-Sign-Salt", info: "Pair-Setup-Accessory-Sign-Info")
        require(accessoryID == Array(accessory.id.utf8) && key == crypto.ed25519PublicKey(seed: accessory.seed)
                && crypto.ed25519Verify(publicKey: key, x + accessoryID + key, signature: signature),
                "pair-setup M6 is signed by the accessory's long-term key")
    }

    private func setupKey(_ srp: SRPResult) -> [UInt8] {
        crypto.hkdf(srp.sessionKey, salt: "Pair-Setup-Encrypt-Salt", info: "Pair-Setup-Encrypt-Info")
    }

    // MARK: pair-verify

    var verifyM1: [UInt8] {
        TLV8.encode([(HAPTLVType.state.rawValue, [1]),
                     (HAPTLVType.publicKey.rawValue, crypto.x25519PublicKey(secret: ephemeralSecret))])
    }

    /// Checks M2 (the accessory's ephemeral key, and its signature over both, sealed) and
    /// answers M3 (the controller's signature, sealed); also returns the shared secret.
    func verifyM3(m2: [UInt8], accessory: HAPAccessoryState) -> (m3: [UInt8], shared: [UInt8]) {
        let items = decode(m2, "pair-verify M2")
        guard let theirs = items.value(.publicKey), let sealed = items.value(.encryptedData),
              let shared = crypto.x25519(secret: ephemeralSecret, peer: theirs) else { fail("pair-verify M2 is malformed") }
        let key = crypto.hkdf(shared, salt: "Pair-Verify-Encrypt-Salt", info: "Pair-Verify-Encrypt-Info")
        let ours = crypto.x25519PublicKey(secret: ephemeralSecret)
        guard let plain = crypto.open(key: key, nonce: nonce("PV-Msg02"), sealed, aad: []),
              let signature = decode(plain, "pair-verify M2's sealed items").value(.signature) else {
            fail("pair-verify M2 does not open")
        }
        let accessoryID = Array(accessory.id.utf8)
        require(crypto.ed25519Verify(publicKey: crypto.ed25519PublicKey(seed: accessory.seed), theirs + accessoryID + ours,
                                     signature: signature), "pair-verify M2 is signed by the accessory's long-term key")
        let sub = TLV8.encode([(HAPTLVType.identifier.rawValue, id),
                               (HAPTLVType.signature.rawValue, crypto.ed25519Sign(seed: seed, ours + id + theirs))])
        let m3 = TLV8.encode([(HAPTLVType.state.rawValue, [3]),
                              (HAPTLVType.encryptedData.rawValue, crypto.seal(key: key, nonce: nonce("PV-Msg03"), sub, aad: []))])
        return (m3, shared)
    }

    /// The controller's end of the session pair-verify keyed.
    func sessionCipher(shared: [UInt8]) -> HAPSessionCipher {
        HAPSessionCipher(readKey: crypto.hkdf(shared, salt: "Control-Salt", info: "Control-Read-Encryption-Key"),
                         writeKey: crypto.hkdf(shared, salt: "Control-Salt", info: "Control-Write-Encryption-Key"),
                         crypto: crypto)
    }
}

// MARK: helpers

/// HAP's pairing nonces: the ASCII name left-padded with zeros to 12 bytes.
func nonce(_ name: String) -> [UInt8] { pad(Array(name.utf8), to: 12) }

func pad(_ bytes: [UInt8], to count: Int) -> [UInt8] {
    [UInt8](repeating: 0, count: max(0, count - bytes.count)) + bytes
}

func number(_ bytes: [UInt8]) -> BigUInt { bytes.withUnsafeBytes { BigUInt($0) } }

func bytes(_ n: BigUInt, count: Int) -> [UInt8] {
    let buffer = n.serializeToBuffer()
    defer { buffer.deallocate() }
    return pad(Array(buffer), to: count)
}

func decode(_ body: [UInt8], _ what: String) -> [(type: UInt8, value: [UInt8])] {
    guard let items = try? TLV8.decode(body) else { fail("\(what) is not TLV8") }
    if let error = items.value(.error) { fail("\(what) is an error reply (code \(error))") }
    return items
}

extension Array where Element == (type: UInt8, value: [UInt8]) {
    func value(_ type: HAPTLVType) -> [UInt8]? { first { $0.type == type.rawValue }?.value }
}

/// Stops the run: a check failed, so the figures would not be of the real computation.
func fail(_ message: String) -> Never {
    print("FAILED: \(message)")
    exit(1)
}

func require(_ condition: Bool, _ what: String) {
    if !condition { fail(what) }
}

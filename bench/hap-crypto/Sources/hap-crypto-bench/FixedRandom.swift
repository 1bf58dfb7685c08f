import DoorCore

/// An option's `HAPCrypto` with the generator replaced by fixed bytes, everything else passed
/// through. The accessory draws its SRP salt and secret b, and its pair-verify key, from
/// `randomBytes`; fixed, they are the same for every run and both options, so the controller's
/// messages can be made once up front and the two options' replies compared byte for byte. (The
/// 80 random bytes a real pair-setup and pair-verify draw cost microseconds, and are left out.)
struct FixedRandom<Base: HAPCrypto>: HAPCrypto {
    let base: Base
    /// SHA-512 of a fixed phrase: a full-width secret b, as a random one would be.
    let pool: [UInt8]

    init(_ base: Base) {
        self.base = base
        pool = base.sha512(Array("garaged bench/hap-crypto: the accessory's random bytes".utf8))
    }

    func randomBytes(_ count: Int) -> [UInt8] {
        precondition(count <= pool.count, "more fixed bytes than the pool holds")
        return Array(pool.prefix(count))
    }

    func sha512(_ data: [UInt8]) -> [UInt8] { base.sha512(data) }
    func hkdfSHA512(_ key: [UInt8], salt: [UInt8], info: [UInt8], count: Int) -> [UInt8] {
        base.hkdfSHA512(key, salt: salt, info: info, count: count)
    }
    func seal(key: [UInt8], nonce: [UInt8], _ plaintext: [UInt8], aad: [UInt8]) -> [UInt8] {
        base.seal(key: key, nonce: nonce, plaintext, aad: aad)
    }
    func open(key: [UInt8], nonce: [UInt8], _ sealed: [UInt8], aad: [UInt8]) -> [UInt8]? {
        base.open(key: key, nonce: nonce, sealed, aad: aad)
    }
    func ed25519PublicKey(seed: [UInt8]) -> [UInt8] { base.ed25519PublicKey(seed: seed) }
    func ed25519Sign(seed: [UInt8], _ message: [UInt8]) -> [UInt8] { base.ed25519Sign(seed: seed, message) }
    func ed25519Verify(publicKey: [UInt8], _ message: [UInt8], signature: [UInt8]) -> Bool {
        base.ed25519Verify(publicKey: publicKey, message, signature: signature)
    }
    func x25519PublicKey(secret: [UInt8]) -> [UInt8] { base.x25519PublicKey(secret: secret) }
    func x25519(secret: [UInt8], peer: [UInt8]) -> [UInt8]? { base.x25519(secret: secret, peer: peer) }
    func modExp(_ base: [UInt8], _ exponent: [UInt8], _ modulus: [UInt8]) -> [UInt8] {
        self.base.modExp(base, exponent, modulus)
    }
    func modMul(_ a: [UInt8], _ b: [UInt8], _ modulus: [UInt8]) -> [UInt8] { base.modMul(a, b, modulus) }
    func modAdd(_ a: [UInt8], _ b: [UInt8], _ modulus: [UInt8]) -> [UInt8] { base.modAdd(a, b, modulus) }
}

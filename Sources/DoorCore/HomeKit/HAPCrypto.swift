/// The primitives HomeKit's pairing and sessions are built from. DoorCore composes them (SRP-6a,
/// the pairing exchanges, the session frames) but implements none: they come from a maintained
/// library (`DoorSystem.LibCrypto`, over OpenSSL's libcrypto), so the protocol logic stays pure
/// and testable.
public protocol HAPCrypto: Sendable {
    /// `count` bytes from a cryptographically secure generator.
    func randomBytes(_ count: Int) -> [UInt8]
    func sha512(_ data: [UInt8]) -> [UInt8]
    /// HKDF-SHA512 (RFC 5869) of `key`, with HAP's ASCII salt and info strings.
    func hkdfSHA512(_ key: [UInt8], salt: [UInt8], info: [UInt8], count: Int) -> [UInt8]
    /// ChaCha20-Poly1305: the ciphertext followed by its 16-byte tag.
    func seal(key: [UInt8], nonce: [UInt8], _ plaintext: [UInt8], aad: [UInt8]) -> [UInt8]
    /// The plaintext, or nil when the tag does not match (a forged or damaged message).
    func open(key: [UInt8], nonce: [UInt8], _ sealed: [UInt8], aad: [UInt8]) -> [UInt8]?
    func ed25519PublicKey(seed: [UInt8]) -> [UInt8]
    func ed25519Sign(seed: [UInt8], _ message: [UInt8]) -> [UInt8]
    func ed25519Verify(publicKey: [UInt8], _ message: [UInt8], signature: [UInt8]) -> Bool
    func x25519PublicKey(secret: [UInt8]) -> [UInt8]
    /// The shared secret, or nil for a peer key that is not a valid point.
    func x25519(secret: [UInt8], peer: [UInt8]) -> [UInt8]?
    /// Big-endian modular arithmetic for SRP, each result padded to the modulus's length.
    func modExp(_ base: [UInt8], _ exponent: [UInt8], _ modulus: [UInt8]) -> [UInt8]
    func modMul(_ a: [UInt8], _ b: [UInt8], _ modulus: [UInt8]) -> [UInt8]
    func modAdd(_ a: [UInt8], _ b: [UInt8], _ modulus: [UInt8]) -> [UInt8]
}

extension HAPCrypto {
    /// HKDF-SHA512 with HAP's salt and info names, 32 bytes (a ChaCha20 key or an Ed25519 seed).
    public func hkdf(_ key: [UInt8], salt: String, info: String) -> [UInt8] {
        hkdfSHA512(key, salt: Array(salt.utf8), info: Array(info.utf8), count: 32)
    }
}

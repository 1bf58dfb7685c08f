import BigInt
import Crypto
import DoorCore

/// Option B of docs/decisions.md: DoorCore's `HAPCrypto` over apple/swift-crypto (BoringSSL's
/// code on Linux) for the primitives and attaswift/BigInt for SRP's 3072-bit arithmetic, which
/// swift-crypto has no public API for. Written only to be measured against `LibCrypto`; it fails
/// the way `LibCrypto` does (a trap where only the library itself could fail, nil or false where
/// a peer could cause it), so DoorCore behaves alike over both.
///
/// Note that BigInt's `power(_:modulus:)` is a plain square-and-multiply: its time depends on the
/// bits of the exponent, which in SRP is the accessory's secret b. libcrypto's BN_mod_exp with
/// BN_FLG_CONSTTIME (what CCrypto asks for) does not leak it that way.
public struct SwiftCryptoBigInt: HAPCrypto {
    public init() {}

    public func randomBytes(_ count: Int) -> [UInt8] {
        // swift-crypto's generator is reached through a random key; it draws whole bytes.
        SymmetricKey(size: SymmetricKeySize(bitCount: count * 8)).withUnsafeBytes { Array($0) }
    }

    public func sha512(_ data: [UInt8]) -> [UInt8] {
        Array(SHA512.hash(data: data))
    }

    public func hkdfSHA512(_ key: [UInt8], salt: [UInt8], info: [UInt8], count: Int) -> [UInt8] {
        HKDF<SHA512>.deriveKey(inputKeyMaterial: SymmetricKey(data: key), salt: salt, info: info, outputByteCount: count)
            .withUnsafeBytes { Array($0) }
    }

    public func seal(key: [UInt8], nonce: [UInt8], _ plaintext: [UInt8], aad: [UInt8]) -> [UInt8] {
        precondition(key.count == 32 && nonce.count == 12)
        do {
            let box = try ChaChaPoly.seal(plaintext, using: SymmetricKey(data: key), nonce: ChaChaPoly.Nonce(data: nonce),
                                          authenticating: aad)
            return Array(box.ciphertext) + Array(box.tag)
        } catch {
            preconditionFailure("swift-crypto failed in ChaCha20-Poly1305: \(error)")
        }
    }

    public func open(key: [UInt8], nonce: [UInt8], _ sealed: [UInt8], aad: [UInt8]) -> [UInt8]? {
        guard key.count == 32, nonce.count == 12, sealed.count >= 16,
              let box = try? ChaChaPoly.SealedBox(nonce: ChaChaPoly.Nonce(data: nonce), ciphertext: sealed.dropLast(16),
                                                  tag: sealed.suffix(16)),
              let plain = try? ChaChaPoly.open(box, using: SymmetricKey(data: key), authenticating: aad) else { return nil }
        return Array(plain)
    }

    public func ed25519PublicKey(seed: [UInt8]) -> [UInt8] {
        Array(signingKey(seed).publicKey.rawRepresentation)
    }

    public func ed25519Sign(seed: [UInt8], _ message: [UInt8]) -> [UInt8] {
        do {
            return Array(try signingKey(seed).signature(for: message))
        } catch {
            preconditionFailure("swift-crypto failed in Ed25519 sign: \(error)")
        }
    }

    public func ed25519Verify(publicKey: [UInt8], _ message: [UInt8], signature: [UInt8]) -> Bool {
        guard signature.count == 64, let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else { return false }
        return key.isValidSignature(signature, for: message)
    }

    public func x25519PublicKey(secret: [UInt8]) -> [UInt8] {
        Array(agreementKey(secret).publicKey.rawRepresentation)
    }

    public func x25519(secret: [UInt8], peer: [UInt8]) -> [UInt8]? {
        // swift-crypto throws for a peer key that gives the all-zero secret, as libcrypto fails.
        guard secret.count == 32, let peerKey = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: peer),
              let shared = try? agreementKey(secret).sharedSecretFromKeyAgreement(with: peerKey) else { return nil }
        return shared.withUnsafeBytes { Array($0) }
    }

    public func modExp(_ base: [UInt8], _ exponent: [UInt8], _ modulus: [UInt8]) -> [UInt8] {
        let m = number(modulus)
        precondition(!m.isZero, "a zero modulus")
        return bytes(number(base).power(number(exponent), modulus: m), count: modulus.count)
    }

    public func modMul(_ a: [UInt8], _ b: [UInt8], _ modulus: [UInt8]) -> [UInt8] {
        bytes(number(a) * number(b) % number(modulus), count: modulus.count)
    }

    public func modAdd(_ a: [UInt8], _ b: [UInt8], _ modulus: [UInt8]) -> [UInt8] {
        bytes((number(a) + number(b)) % number(modulus), count: modulus.count)
    }

    private func signingKey(_ seed: [UInt8]) -> Curve25519.Signing.PrivateKey {
        precondition(seed.count == 32)
        guard let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: seed) else {
            preconditionFailure("swift-crypto refused a 32-byte Ed25519 seed")
        }
        return key
    }

    private func agreementKey(_ secret: [UInt8]) -> Curve25519.KeyAgreement.PrivateKey {
        precondition(secret.count == 32)
        guard let key = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: secret) else {
            preconditionFailure("swift-crypto refused a 32-byte X25519 secret")
        }
        return key
    }
}

/// A big-endian unsigned number.
func number(_ bytes: [UInt8]) -> BigUInt {
    bytes.withUnsafeBytes { BigUInt($0) }
}

/// `n` big-endian, left-padded with zeros to `count` bytes (as CCrypto pads to the modulus).
func bytes(_ n: BigUInt, count: Int) -> [UInt8] {
    let buffer = n.serializeToBuffer()
    defer { buffer.deallocate() }
    precondition(buffer.count <= count, "a result longer than the modulus")
    return [UInt8](repeating: 0, count: count - buffer.count) + buffer
}

import CCrypto
import DoorCore

/// DoorCore's `HAPCrypto` over OpenSSL's libcrypto (the thin `CCrypto` module). A primitive
/// failing means libcrypto itself failed (out of memory, a provider missing), which no caller
/// could recover from, so those trap; what a peer can cause (a forged tag, a bad point) is an
/// answer instead.
public struct LibCrypto: HAPCrypto {
    public init() {}

    public func randomBytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        must(ccrypto_random(&out, count), "RAND_bytes")
        return out
    }

    public func sha512(_ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 64)
        must(ccrypto_sha512(data, data.count, &out), "SHA-512")
        return out
    }

    /// RFC 4648 base64 with padding, from OpenSSL (HomeKit's `sh` record).
    public static func base64(_ data: [UInt8]) -> String {
        var out = [CChar](repeating: 0, count: 4 * ((data.count + 2) / 3) + 1)
        let n = Int(ccrypto_base64(data, data.count, &out))
        return String(decoding: out.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// SHA-1, for RFC 5054's SRP test vector only: HomeKit never uses it.
    public func sha1(_ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 20)
        must(ccrypto_sha1(data, data.count, &out), "SHA-1")
        return out
    }

    public func hkdfSHA512(_ key: [UInt8], salt: [UInt8], info: [UInt8], count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        must(ccrypto_hkdf_sha512(key, key.count, salt, salt.count, info, info.count, &out, count), "HKDF-SHA512")
        return out
    }

    public func seal(key: [UInt8], nonce: [UInt8], _ plaintext: [UInt8], aad: [UInt8]) -> [UInt8] {
        precondition(key.count == 32 && nonce.count == 12)
        var out = [UInt8](repeating: 0, count: plaintext.count + 16)
        must(ccrypto_chacha_seal(key, nonce, aad, aad.count, plaintext, plaintext.count, &out), "ChaCha20-Poly1305")
        return out
    }

    public func open(key: [UInt8], nonce: [UInt8], _ sealed: [UInt8], aad: [UInt8]) -> [UInt8]? {
        guard key.count == 32, nonce.count == 12, sealed.count >= 16 else { return nil }
        var out = [UInt8](repeating: 0, count: sealed.count - 16)
        return ccrypto_chacha_open(key, nonce, aad, aad.count, sealed, sealed.count, &out) == 1 ? out : nil
    }

    public func ed25519PublicKey(seed: [UInt8]) -> [UInt8] {
        precondition(seed.count == 32)
        var out = [UInt8](repeating: 0, count: 32)
        must(ccrypto_ed25519_public(seed, &out), "Ed25519 key")
        return out
    }

    public func ed25519Sign(seed: [UInt8], _ message: [UInt8]) -> [UInt8] {
        precondition(seed.count == 32)
        var out = [UInt8](repeating: 0, count: 64)
        must(ccrypto_ed25519_sign(seed, message, message.count, &out), "Ed25519 sign")
        return out
    }

    public func ed25519Verify(publicKey: [UInt8], _ message: [UInt8], signature: [UInt8]) -> Bool {
        guard publicKey.count == 32, signature.count == 64 else { return false }
        return ccrypto_ed25519_verify(publicKey, message, message.count, signature) == 1
    }

    public func x25519PublicKey(secret: [UInt8]) -> [UInt8] {
        precondition(secret.count == 32)
        var out = [UInt8](repeating: 0, count: 32)
        must(ccrypto_x25519_public(secret, &out), "X25519 key")
        return out
    }

    public func x25519(secret: [UInt8], peer: [UInt8]) -> [UInt8]? {
        guard secret.count == 32, peer.count == 32 else { return nil }
        var out = [UInt8](repeating: 0, count: 32)
        return ccrypto_x25519_shared(secret, peer, &out) == 1 ? out : nil
    }

    public func modExp(_ base: [UInt8], _ exponent: [UInt8], _ modulus: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: modulus.count)
        must(ccrypto_mod_exp(base, base.count, exponent, exponent.count, modulus, modulus.count, &out, out.count), "BN_mod_exp")
        return out
    }

    public func modMul(_ a: [UInt8], _ b: [UInt8], _ modulus: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: modulus.count)
        must(ccrypto_mod_mul(a, a.count, b, b.count, modulus, modulus.count, &out, out.count), "BN_mod_mul")
        return out
    }

    public func modAdd(_ a: [UInt8], _ b: [UInt8], _ modulus: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: modulus.count)
        must(ccrypto_mod_add(a, a.count, b, b.count, modulus, modulus.count, &out, out.count), "BN_mod_add")
        return out
    }

    private func must(_ result: Int32, _ what: String) {
        precondition(result == 1, "libcrypto failed in \(what)")
    }
}

/// A group for SRP-6a: the safe prime N and the generator g, big-endian.
public struct SRPGroup: Sendable {
    public let modulus: [UInt8]
    public let generator: [UInt8]

    public init(modulus: [UInt8], generator: [UInt8]) {
        self.modulus = modulus
        self.generator = generator
    }

    /// RFC 5054's 3072-bit group (g = 5), the one HomeKit's pair-setup uses.
    public static let rfc5054Group3072 = SRPGroup(modulus: Hex.constant("""
        FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD\
        EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED\
        EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F\
        83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B\
        E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA0510\
        15728E5A8AAAC42DAD33170D04507A33A85521ABDF1CBA64ECFB850458DBEF0A8AEA71575D060C7DB3970F85A6E1E4C7\
        ABF5AE8CDB0933D71E8C94E04A25619DCEE3D2261AD2EE6BF12FFA06D98A0864D87602733EC86A64521F2B18177B200C\
        BBE117577A615D6C770988C0BAD946E208E24FA074E5AB3143DB5BFCE0FD108E4B82D120A93AD2CAFFFFFFFFFFFFFFFF
        """), generator: [5])
}

/// The accessory's side of SRP-6a (RFC 5054) as HomeKit's pair-setup runs it: the setup code is
/// the password, `Pair-Setup` the user name, SHA-512 the hash. It proves the controller knows
/// the code without the code crossing the network. The arithmetic is libcrypto's (through
/// `HAPCrypto`); this composes the protocol's equations, nothing more. Numbers sent and hashed
/// are padded to the modulus's length, as HomeKit's controllers pad them.
public struct SRPServer: Sendable {
    public let group: SRPGroup
    public let salt: [UInt8]
    /// B, padded: what M2 sends.
    public let publicKey: [UInt8]
    let identity: [UInt8]
    let verifier: [UInt8]
    let secret: [UInt8]
    let multiplier: [UInt8]
    let hash: @Sendable ([UInt8]) -> [UInt8]
    let crypto: any HAPCrypto

    /// `secret` is b: random, 32 bytes, in use; fixed only for a test vector.
    public init(group: SRPGroup = .rfc5054Group3072, username: String, password: String, salt: [UInt8], secret: [UInt8],
                crypto: any HAPCrypto, hash: (@Sendable ([UInt8]) -> [UInt8])? = nil) {
        self.group = group
        self.salt = salt
        self.secret = secret
        self.crypto = crypto
        let h = hash ?? { [crypto] in crypto.sha512($0) }
        self.hash = h
        identity = Array(username.utf8)
        let n = group.modulus
        multiplier = h(n + SRPServer.pad(group.generator, to: n.count))
        let x = h(salt + h(identity + Array(":".utf8) + Array(password.utf8)))
        verifier = crypto.modExp(group.generator, x, n)
        let kv = crypto.modMul(multiplier, verifier, n)
        publicKey = crypto.modAdd(kv, crypto.modExp(group.generator, secret, n), n)
    }

    /// What a correct proof from the controller earns: the accessory's proof (M4's) and the
    /// session key K that the rest of pair-setup derives its keys from.
    public struct Verified: Sendable {
        public let proof: [UInt8]
        public let sessionKey: [UInt8]
    }

    /// Checks the controller's public key A and proof M1; nil when either is wrong (a wrong
    /// setup code, or an A of zero mod N, which would let anyone in).
    public func verify(clientPublicKey a: [UInt8], proof: [UInt8]) -> Verified? {
        guard let premaster = premasterSecret(clientPublicKey: a) else { return nil }
        let key = hash(premaster)
        let hn = hash(group.modulus), hg = hash(group.generator)
        let groupHash = zip(hn, hg).map { $0 ^ $1 }
        let expected = hash(groupHash + hash(identity) + salt + a + publicKey + key)
        guard expected.count == proof.count, constantTimeEqual(expected, proof) else { return nil }
        return Verified(proof: hash(a + proof + key), sessionKey: key)
    }

    /// u = H(PAD(A) | PAD(B)).
    func scrambler(clientPublicKey a: [UInt8]) -> [UInt8] {
        hash(SRPServer.pad(a, to: group.modulus.count) + publicKey)
    }

    /// S = (A · v^u)^b mod N, padded; nil for an A (or u) the protocol forbids.
    func premasterSecret(clientPublicKey a: [UInt8]) -> [UInt8]? {
        let n = group.modulus
        guard !a.isEmpty, a.count <= n.count else { return nil }
        guard crypto.modAdd(a, [0], n).contains(where: { $0 != 0 }) else { return nil }
        let u = scrambler(clientPublicKey: a)
        guard u.contains(where: { $0 != 0 }) else { return nil }
        return crypto.modExp(crypto.modMul(a, crypto.modExp(verifier, u, n), n), secret, n)
    }

    static func pad(_ bytes: [UInt8], to count: Int) -> [UInt8] {
        bytes.count >= count ? bytes : [UInt8](repeating: 0, count: count - bytes.count) + bytes
    }
}

/// True when both are equal, taking as long whatever differs (a proof compared byte by byte
/// and stopping early would tell an attacker how much of it was right).
public func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var diff: UInt8 = 0
    for i in a.indices { diff |= a[i] ^ b[i] }
    return diff == 0
}


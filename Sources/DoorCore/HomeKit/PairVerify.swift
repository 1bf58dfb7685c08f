/// HomeKit's pair-verify (`POST /pair-verify`, M1 to M4), once per connection: an X25519
/// exchange, each side signing both ephemeral keys with its long-term Ed25519 key, so a paired
/// controller and the accessory prove themselves to each other; the shared secret then keys the
/// session's frames (`HAPSessionCipher`).
public struct PairVerify: Sendable {
    /// What a successful M3 established.
    public struct Verified: Sendable {
        /// The controller's pairing id: who this connection is, from now on.
        public let controller: String
        public let admin: Bool
        public let cipher: HAPSessionCipher
    }

    private var secret: [UInt8]?
    private var ownKey: [UInt8] = []
    private var peerKey: [UInt8] = []
    private var shared: [UInt8] = []

    public init() {}

    /// Handles one request body; on the M3 that proves a paired controller, also the session.
    public mutating func step(_ body: [UInt8], accessory: HAPAccessoryState, crypto: any HAPCrypto)
        -> (reply: [UInt8], verified: Verified?) {
        guard let items = try? TLV8.decode(body), let state = items.firstValue(.state)?.first else {
            return (error(2, .unknown), nil)
        }
        switch state {
        case 1:
            guard let peer = items.firstValue(.publicKey), peer.count == 32 else { return (error(2, .unknown), nil) }
            let secret = crypto.randomBytes(32)
            guard let shared = crypto.x25519(secret: secret, peer: peer) else { return (error(2, .authentication), nil) }
            self.secret = secret
            self.shared = shared
            ownKey = crypto.x25519PublicKey(secret: secret)
            peerKey = peer
            let accessoryID = Array(accessory.id.utf8)
            let signature = crypto.ed25519Sign(seed: accessory.seed, ownKey + accessoryID + peer)
            let sub = TLV8.encode([(HAPTLVType.identifier.rawValue, accessoryID), (HAPTLVType.signature.rawValue, signature)])
            let sealed = crypto.seal(key: sessionKey(crypto), nonce: HAPNonce.named("PV-Msg02"), sub, aad: [])
            return (TLV8.encode([(HAPTLVType.state.rawValue, [2]), (HAPTLVType.publicKey.rawValue, ownKey),
                                 (HAPTLVType.encryptedData.rawValue, sealed)]), nil)
        case 3:
            guard secret != nil else { return (error(4, .unknown), nil) }
            secret = nil
            guard let sealed = items.firstValue(.encryptedData),
                  let plain = crypto.open(key: sessionKey(crypto), nonce: HAPNonce.named("PV-Msg03"), sealed, aad: []),
                  let sub = try? TLV8.decode(plain), let idBytes = sub.firstValue(.identifier),
                  let id = String(validating: idBytes, as: UTF8.self), let pairing = accessory.pairing(id),
                  let signature = sub.firstValue(.signature),
                  crypto.ed25519Verify(publicKey: pairing.publicKey, peerKey + idBytes + ownKey, signature: signature) else {
                return (error(4, .authentication), nil)
            }
            let cipher = HAPSessionCipher(
                readKey: crypto.hkdf(shared, salt: "Control-Salt", info: "Control-Write-Encryption-Key"),
                writeKey: crypto.hkdf(shared, salt: "Control-Salt", info: "Control-Read-Encryption-Key"), crypto: crypto)
            return (TLV8.encode([(HAPTLVType.state.rawValue, [4])]), Verified(controller: id, admin: pairing.admin, cipher: cipher))
        default:
            return (error(state &+ 1, .unknown), nil)
        }
    }

    private func sessionKey(_ crypto: any HAPCrypto) -> [UInt8] {
        crypto.hkdf(shared, salt: "Pair-Verify-Encrypt-Salt", info: "Pair-Verify-Encrypt-Info")
    }

    private func error(_ state: UInt8, _ code: HAPTLVError) -> [UInt8] {
        TLV8.encode([(HAPTLVType.state.rawValue, [state]), (HAPTLVType.error.rawValue, [code.rawValue])])
    }
}

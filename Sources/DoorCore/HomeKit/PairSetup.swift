/// HomeKit's pair-setup (`POST /pair-setup`, M1 to M6), for the whole accessory: one at a time,
/// the rest Busy. SRP-6a proves the controller has the setup code; then each side signs its
/// long-term key under keys derived from SRP's, and the controller becomes the first admin.
/// Pure: the crypto is injected, the clock passed in, and what must be kept (a failure, a new
/// pairing) comes back as an `Effect` for the caller to save before it answers.
public struct PairSetup: Sendable {
    /// What the caller must do besides sending the reply.
    public enum Effect: Equatable, Sendable {
        /// A wrong code: count it (and keep the count).
        case failed
        /// The controller is paired: keep it as an admin.
        case paired(HAPPairing)
    }

    /// Pair-setups started (M1) within a minute, at most: each costs two 3072-bit modexps, so an
    /// unpaired accessory cannot be made to burn its CPU.
    public static let maxStartsPerMinute = 10

    private enum Step: Sendable {
        case idle
        case sentSalt(connection: Int, srp: SRPServer, since: Instant)
        case proved(connection: Int, key: [UInt8], since: Instant)
    }

    private var step: Step = .idle
    private var starts: [Instant] = []
    /// A pair-setup left half-done this long no longer holds the accessory Busy.
    public static let abandonAfter: Duration = .seconds(30)

    public init() {}

    /// Handles one request's TLV8 body from connection `connection`; returns the reply body
    /// and what must be kept.
    public mutating func handle(_ body: [UInt8], connection: Int, accessory: HAPAccessoryState, crypto: any HAPCrypto,
                                at now: Instant) -> (reply: [UInt8], effect: Effect?) {
        guard let items = try? TLV8.decode(body), let state = items.firstValue(.state)?.first else {
            return (error(2, .unknown), nil)
        }
        switch state {
        case 1: return (start(connection: connection, accessory: accessory, crypto: crypto, at: now), nil)
        case 3: return prove(items, connection: connection, crypto: crypto, at: now)
        case 5: return exchange(items, connection: connection, accessory: accessory, crypto: crypto)
        default:
            return (error(state &+ 1, .unknown), nil)
        }
    }

    /// The connection closed: a pair-setup it had begun no longer holds the accessory.
    public mutating func connectionClosed(_ connection: Int) {
        if owner == connection { step = .idle }
    }

    private var owner: Int? {
        switch step {
        case .idle: return nil
        case .sentSalt(let c, _, _), .proved(let c, _, _): return c
        }
    }

    private var since: Instant? {
        switch step {
        case .idle: return nil
        case .sentSalt(_, _, let t), .proved(_, _, let t): return t
        }
    }

    private mutating func start(connection: Int, accessory: HAPAccessoryState, crypto: any HAPCrypto, at now: Instant) -> [UInt8] {
        if accessory.isPaired { return error(2, .unavailable) }
        if accessory.failedSetups >= HAPAccessoryState.maxFailures { return error(2, .maxTries) }
        if let owner, owner != connection, let since, now - since < PairSetup.abandonAfter { return error(2, .busy) }
        starts = starts.filter { now - $0 < .seconds(60) }
        guard starts.count < PairSetup.maxStartsPerMinute else {
            return TLV8.encode([(HAPTLVType.state.rawValue, [2]), (HAPTLVType.error.rawValue, [HAPTLVError.backoff.rawValue]),
                                (HAPTLVType.retryDelay.rawValue, [60])])
        }
        starts.append(now)
        let srp = SRPServer(username: "Pair-Setup", password: accessory.setupCode, salt: crypto.randomBytes(16),
                            secret: crypto.randomBytes(32), crypto: crypto)
        step = .sentSalt(connection: connection, srp: srp, since: now)
        return TLV8.encode([(HAPTLVType.state.rawValue, [2]), (HAPTLVType.salt.rawValue, srp.salt),
                            (HAPTLVType.publicKey.rawValue, srp.publicKey)])
    }

    private mutating func prove(_ items: [(type: UInt8, value: [UInt8])], connection: Int, crypto: any HAPCrypto,
                                at now: Instant) -> (reply: [UInt8], effect: Effect?) {
        guard case .sentSalt(let c, let srp, _) = step, c == connection else { return (error(4, .unknown), nil) }
        guard let a = items.firstValue(.publicKey), let proof = items.firstValue(.proof),
              let verified = srp.verify(clientPublicKey: a, proof: proof) else {
            step = .idle
            return (error(4, .authentication), .failed)
        }
        step = .proved(connection: connection, key: verified.sessionKey, since: now)
        return (TLV8.encode([(HAPTLVType.state.rawValue, [4]), (HAPTLVType.proof.rawValue, verified.proof)]), nil)
    }

    private mutating func exchange(_ items: [(type: UInt8, value: [UInt8])], connection: Int, accessory: HAPAccessoryState,
                                   crypto: any HAPCrypto) -> (reply: [UInt8], effect: Effect?) {
        guard case .proved(let c, let key, _) = step, c == connection else { return (error(6, .unknown), nil) }
        step = .idle
        let encryptKey = crypto.hkdf(key, salt: "Pair-Setup-Encrypt-Salt", info: "Pair-Setup-Encrypt-Info")
        guard let sealed = items.firstValue(.encryptedData),
              let plain = crypto.open(key: encryptKey, nonce: HAPNonce.named("PS-Msg05"), sealed, aad: []),
              let sub = try? TLV8.decode(plain),
              let idBytes = sub.firstValue(.identifier), let id = String(validating: idBytes, as: UTF8.self), !id.isEmpty,
              let ltpk = sub.firstValue(.publicKey), ltpk.count == 32,
              let signature = sub.firstValue(.signature) else {
            return (error(6, .authentication), nil)
        }
        let controllerX = crypto.hkdf(key, salt: "Pair-Setup-Controller-Sign-Salt", info: "Pair-Setup-Controller-Sign-Info")
        guard crypto.ed25519Verify(publicKey: ltpk, controllerX + idBytes + ltpk, signature: signature) else {
            return (error(6, .authentication), nil)
        }
        let accessoryX = crypto.hkdf(key, salt: "Pair-Setup-Accessory-Sign-Salt", info: "Pair-Setup-Accessory-Sign-Info")
        let accessoryID = Array(accessory.id.utf8)
        let accessoryKey = crypto.ed25519PublicKey(seed: accessory.seed)
        let accessorySignature = crypto.ed25519Sign(seed: accessory.seed, accessoryX + accessoryID + accessoryKey)
        let reply = TLV8.encode([(HAPTLVType.identifier.rawValue, accessoryID), (HAPTLVType.publicKey.rawValue, accessoryKey),
                                 (HAPTLVType.signature.rawValue, accessorySignature)])
        let sealedReply = crypto.seal(key: encryptKey, nonce: HAPNonce.named("PS-Msg06"), reply, aad: [])
        return (TLV8.encode([(HAPTLVType.state.rawValue, [6]), (HAPTLVType.encryptedData.rawValue, sealedReply)]),
                .paired(HAPPairing(id: id, publicKey: ltpk, admin: true)))
    }

    private func error(_ state: UInt8, _ code: HAPTLVError) -> [UInt8] {
        TLV8.encode([(HAPTLVType.state.rawValue, [state]), (HAPTLVType.error.rawValue, [code.rawValue])])
    }
}

/// HAP's pairing nonces: the ASCII name left-padded with zeros to 12 bytes.
enum HAPNonce {
    static func named(_ name: String) -> [UInt8] {
        let bytes = Array(name.utf8)
        return [UInt8](repeating: 0, count: 12 - bytes.count) + bytes
    }
}

extension Array where Element == (type: UInt8, value: [UInt8]) {
    /// The first item of `type` (fragments already merged by the decoder).
    func firstValue(_ type: HAPTLVType) -> [UInt8]? { first { $0.type == type.rawValue }?.value }
}

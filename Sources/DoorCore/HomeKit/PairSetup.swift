/// HomeKit's pair-setup (`POST /pair-setup`, M1 to M6), for the whole accessory: one at a time,
/// the rest Busy. SRP-6a proves the controller has the setup code; then each side signs its
/// long-term key under keys derived from SRP's, and the controller becomes the first admin.
/// Pure: the crypto is injected, the clock passed in, and what must be kept (a failure, a new
/// pairing) comes back as an `Effect` for the caller to save before it answers.
///
/// A pair-setup holds the accessory from its M1 for at most `abandonAfter`, however often its
/// connection starts again; a peer whose hold ran out or whose connection left mid-way is Busy
/// for `cooldown` after, so a stranger restarting now and then cannot keep the owner out.
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
    /// The address of the peer holding the accessory (meaningful while `step` is not idle).
    private var holder = ""
    /// Peers that abandoned a hold, and until when they are Busy.
    private var cooling: [String: Instant] = [:]
    private var starts: [Instant] = []
    /// The longest a pair-setup holds the accessory, counted from its first M1: restarting on
    /// the same connection does not renew it.
    public static let abandonAfter: Duration = .seconds(30)
    /// How long a peer whose hold ran out, or whose connection closed mid-way, is Busy after:
    /// long enough for someone else to start.
    public static let cooldown: Duration = .seconds(30)

    public init() {}

    /// Handles one request's TLV8 body from connection `connection` of the peer at `peer` (its
    /// address without the port: the peer a cooldown holds back); returns the reply body and
    /// what must be kept. While `canCountFailures` is false (a wrong code could not be kept), a
    /// new pair-setup is refused with Backoff: no code is tried that could not be counted.
    public mutating func step(_ body: [UInt8], connection: Int, peer: String = "", accessory: HAPAccessoryState,
                                crypto: any HAPCrypto, at now: Instant,
                                canCountFailures: Bool = true) -> (reply: [UInt8], effect: Effect?) {
        guard let items = try? TLV8.decode(body), let state = items.firstValue(.state)?.first else {
            return (error(2, .unknown), nil)
        }
        expire(at: now)
        switch state {
        case 1:
            guard canCountFailures else { return (backoff, nil) }
            return (start(connection: connection, peer: peer, accessory: accessory, crypto: crypto, at: now), nil)
        case 3: return prove(items, connection: connection, crypto: crypto, at: now)
        case 5: return exchange(items, connection: connection, accessory: accessory, crypto: crypto)
        default:
            return (error(state &+ 1, .unknown), nil)
        }
    }

    /// The connection closed: a pair-setup it had begun no longer holds the accessory, and its
    /// peer cools down (a stranger cannot close and start again to keep it).
    public mutating func connectionClosed(_ connection: Int, at now: Instant) {
        expire(at: now)
        guard owner == connection else { return }
        cooling[holder] = now + PairSetup.cooldown
        step = .idle
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

    /// Ends a hold that has lasted `abandonAfter`: its peer cools down from the moment it ran out.
    private mutating func expire(at now: Instant) {
        guard let since, now - since >= PairSetup.abandonAfter else { return }
        cooling[holder] = since + PairSetup.abandonAfter + PairSetup.cooldown
        step = .idle
    }

    private mutating func start(connection: Int, peer: String, accessory: HAPAccessoryState, crypto: any HAPCrypto,
                                at now: Instant) -> [UInt8] {
        if accessory.isPaired { return error(2, .unavailable) }
        if accessory.failedSetups >= HAPAccessoryState.maxFailures { return error(2, .maxTries) }
        if let owner, owner != connection { return error(2, .busy) }
        cooling = cooling.filter { $0.value > now }
        if owner == nil, cooling[peer] != nil { return error(2, .busy) }
        starts = starts.filter { now - $0 < .seconds(60) }
        guard starts.count < PairSetup.maxStartsPerMinute else { return backoff }
        starts.append(now)
        let srp = SRPServer(username: "Pair-Setup", password: accessory.setupCode, salt: crypto.randomBytes(16),
                            secret: crypto.randomBytes(32), crypto: crypto)
        // Starting again keeps the hold's first moment: a hold is never renewed.
        step = .sentSalt(connection: connection, srp: srp, since: since ?? now)
        holder = peer
        return TLV8.encode([(HAPTLVType.state.rawValue, [2]), (HAPTLVType.salt.rawValue, srp.salt),
                            (HAPTLVType.publicKey.rawValue, srp.publicKey)])
    }

    /// Backoff, try again in a minute: too many starts, or a wrong code that could not be kept.
    private var backoff: [UInt8] {
        TLV8.encode([(HAPTLVType.state.rawValue, [2]), (HAPTLVType.error.rawValue, [HAPTLVError.backoff.rawValue]),
                     (HAPTLVType.retryDelay.rawValue, [60])])
    }

    private mutating func prove(_ items: [(type: UInt8, value: [UInt8])], connection: Int, crypto: any HAPCrypto,
                                at now: Instant) -> (reply: [UInt8], effect: Effect?) {
        guard case .sentSalt(let c, let srp, let since) = step, c == connection else { return (error(4, .unknown), nil) }
        guard let a = items.firstValue(.publicKey), let proof = items.firstValue(.proof),
              let verified = srp.verify(clientPublicKey: a, proof: proof) else {
            step = .idle
            return (error(4, .authentication), .failed)
        }
        step = .proved(connection: connection, key: verified.sessionKey, since: since)
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
              let idBytes = sub.firstValue(.identifier), let id = HAPPairing.id(idBytes),
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

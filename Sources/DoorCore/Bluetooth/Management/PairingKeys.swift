/// A long-term key the kernel made while pairing (`mgmt_ltk_info`), kept so it can be handed
/// back after a restart and the phone can encrypt without pairing again. Never logged.
public struct LongTermKey: Equatable, Sendable {
    /// MGMT_LTK_* key types: only an authenticated P-256 key comes from LE Secure Connections
    /// with a passkey; the others are Just Works or legacy pairing, which a listener can break.
    public enum Kind: UInt8, Sendable {
        case legacyUnauthenticated = 0x00
        case legacyAuthenticated = 0x01
        case p256Unauthenticated = 0x02
        case p256Authenticated = 0x03
        case p256Debug = 0x04
    }

    public var address: LEAddress
    public var kind: Kind
    /// 1 when the key is used with this side as central (legacy keys are one per role).
    public var central: UInt8
    public var encryptionSize: UInt8
    public var ediv: UInt16
    public var rand: UInt64
    public var value: [UInt8]

    public init(address: LEAddress, kind: Kind, central: UInt8, encryptionSize: UInt8, ediv: UInt16,
                rand: UInt64, value: [UInt8]) {
        self.address = address
        self.kind = kind
        self.central = central
        self.encryptionSize = encryptionSize
        self.ediv = ediv
        self.rand = rand
        self.value = value
    }

    /// What this garage accepts: LE Secure Connections, authenticated, a full 16-octet key.
    public var isSecureConnectionsPasskey: Bool { kind == .p256Authenticated && encryptionSize >= 16 }

    static let wireSize = 36

    /// `mgmt_ltk_info`: address (7), type, central, enc_size, ediv (LE 16), rand (LE 64), val (16).
    var wire: [UInt8] {
        address.wire + [kind.rawValue, central, encryptionSize] + ATTBytes.uint16(ediv)
            + ATTBytes.uint64(rand) + value
    }

    static func decode(_ b: ArraySlice<UInt8>) -> LongTermKey? {
        guard b.count >= wireSize, let address = LEAddress.decode(b), let kind = Kind(rawValue: b[b.startIndex + 7]) else { return nil }
        let s = b.startIndex
        let ediv = UInt16(b[s + 10]) | UInt16(b[s + 11]) << 8
        let rand = ATTBytes.uint64(b[(s + 12)...])
        return LongTermKey(address: address, kind: kind, central: b[s + 8], encryptionSize: b[s + 9], ediv: ediv,
                           rand: rand, value: Array(b[(s + 20)..<(s + 36)]))
    }
}

/// The identity resolving key a phone with privacy hands over while pairing (`mgmt_irk_info`):
/// with it loaded, the kernel recognises the phone under each new private address.
public struct IdentityResolvingKey: Equatable, Sendable {
    /// The phone's identity address.
    public var address: LEAddress
    public var value: [UInt8]

    public init(address: LEAddress, value: [UInt8]) {
        self.address = address
        self.value = value
    }

    static let wireSize = 23
    var wire: [UInt8] { address.wire + value }

    static func decode(_ b: ArraySlice<UInt8>) -> IdentityResolvingKey? {
        guard b.count >= wireSize, let address = LEAddress.decode(b) else { return nil }
        return IdentityResolvingKey(address: address, value: Array(b.dropFirst(7).prefix(16)))
    }
}

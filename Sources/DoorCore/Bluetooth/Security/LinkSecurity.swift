/// How well the radio link under one ATT bearer is protected, as the kernel reports it, and
/// whether the phone on it holds a bond with this garage: what an attribute that needs a
/// paired phone is checked against before every write.
public struct LinkSecurity: Equatable, Sendable {
    /// The kernel's security levels for an LE link (BT_SECURITY_LOW ... BT_SECURITY_FIPS).
    public enum Level: UInt8, Comparable, Sendable {
        /// Not encrypted: anyone in range reads every byte.
        case open = 1
        /// Encrypted with a key made without protection from a man in the middle (Just Works).
        case encrypted = 2
        /// Encrypted with an authenticated key made by legacy pairing, whose passkey exchange a
        /// listener can break.
        case authenticated = 3
        /// Encrypted with an authenticated LE Secure Connections key (ECDH P-256), 128 bits.
        case secureConnections = 4

        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
    }

    public var level: Level
    /// The encryption key's size in octets (16 is the most; 0 when not encrypted).
    public var keySize: UInt8
    /// True when the peer's identity address is among the bonded phones.
    public var bonded: Bool

    public init(level: Level, keySize: UInt8 = 0, bonded: Bool = false) {
        self.level = level
        self.keySize = keySize
        self.bonded = bonded
    }

    /// A link nobody has secured: what every bearer starts as.
    public static let open = LinkSecurity(level: .open)

    /// Why a write that needs a paired phone is refused on this link, as the Error Response
    /// the phone acts on (Core Vol 3 Part C 10.3, Part F 4.8), or nil when it may write:
    /// - not encrypted, and the peer holds no bond: Insufficient Authentication, which makes
    ///   a phone pair (iOS asks its user, then retries over the encrypted link);
    /// - not encrypted, but the peer is bonded: Insufficient Encryption, so it encrypts with
    ///   the key it already has instead of pairing again;
    /// - encrypted, but not by LE Secure Connections with a passkey (Just Works, legacy
    ///   pairing), or by a peer that is no longer bonded (unpaired): Insufficient
    ///   Authentication;
    /// - a key shorter than 16 octets: Encryption Key Size Too Short.
    public var refusalForPairedWrite: ATTErrorCode? {
        if level == .open { return bonded ? .insufficientEncryption : .insufficientAuthentication }
        guard level == .secureConnections, bonded else { return .insufficientAuthentication }
        guard keySize >= 16 else { return .encryptionKeySizeTooShort }
        return nil
    }
}

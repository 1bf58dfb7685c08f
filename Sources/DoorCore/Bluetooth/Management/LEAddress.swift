/// An LE device address as the kernel's management interface carries it: six octets, least
/// significant first, and its type. Phones with privacy appear under a random address; once
/// their identity key is known they are named by their identity address.
public struct LEAddress: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: UInt8, Sendable {
        /// BDADDR_LE_PUBLIC
        case `public` = 1
        /// BDADDR_LE_RANDOM
        case random = 2
    }

    /// Wire order: least significant octet first.
    public let octets: [UInt8]
    public let kind: Kind

    public init?(octets: [UInt8], kind: Kind) {
        guard octets.count == 6 else { return nil }
        self.octets = octets
        self.kind = kind
    }

    /// From the text form "00:AA:01:01:00:01" (most significant first, as people write it).
    public init?(_ text: String, kind: Kind) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6 else { return nil }
        var bytes: [UInt8] = []
        for p in parts.reversed() {
            guard p.count == 2, let b = UInt8(p, radix: 16) else { return nil }
            bytes.append(b)
        }
        self.init(octets: bytes, kind: kind)
    }

    public var text: String {
        octets.reversed().map { Hex.byte($0) }.joined(separator: ":")
    }

    public var description: String { text + (kind == .public ? " (public)" : " (random)") }

    /// The seven octets of the kernel's `mgmt_addr_info`.
    var wire: [UInt8] { octets + [kind.rawValue] }

    static func decode(_ bytes: ArraySlice<UInt8>) -> LEAddress? {
        guard bytes.count >= 7, let kind = Kind(rawValue: bytes[bytes.startIndex + 6]) else { return nil }
        return LEAddress(octets: Array(bytes.prefix(6)), kind: kind)
    }
}

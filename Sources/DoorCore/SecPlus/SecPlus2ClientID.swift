/// Who sent a packet: the low 32 bits of its fixed code. garaged picks one at random once and
/// keeps it; the wire is shared, so every packet we send comes back to our own receiver too.
public struct SecPlus2ClientID: Hashable, Sendable, CustomStringConvertible {
    public let value: UInt32

    public init(_ value: UInt32) { self.value = value }

    /// The client id a packet carries (fixed's bits 32-39 are the command's high nibble and the
    /// sender's own, and are not part of it).
    public init(of packet: SecPlus2Packet) { value = UInt32(truncatingIfNeeded: packet.fixed) }

    /// Whether the packet is one we sent, heard back on the shared wire: its client id is ours.
    /// An echo says nothing about the opener and must not be read as news from it.
    public func isEcho(_ packet: SecPlus2Packet) -> Bool { Self(of: packet) == self }

    public var description: String { "0x" + SecPlus2Hex.digits(UInt64(value), count: 8) }
}

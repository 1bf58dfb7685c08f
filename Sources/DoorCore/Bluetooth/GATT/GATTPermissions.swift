/// What a client may do with an attribute over ATT. Write Request and Write Command are separate
/// because GATT offers them as separate procedures: the command characteristic takes both, a CCCD
/// only the acknowledged one (Core Vol 3 Part G 4.12.3 writes descriptors with Write Request).
public struct GATTPermissions: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let read = GATTPermissions(rawValue: 1 << 0)
    /// ATT Write Request (0x12).
    public static let write = GATTPermissions(rawValue: 1 << 1)
    /// ATT Write Command (0x52).
    public static let writeCommand = GATTPermissions(rawValue: 1 << 2)
    /// Writes need a bonded phone on an LE Secure Connections link (`LinkSecurity`); reads and
    /// discovery stay open, so a phone can find the service before it pairs.
    public static let pairedWrite = GATTPermissions(rawValue: 1 << 3)
}

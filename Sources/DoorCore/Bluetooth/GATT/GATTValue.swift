/// Where an attribute's value comes from. Only CCCDs hold per-connection state; everything else
/// is fixed when the database is built, so one database serves every connection.
public enum GATTValue: Equatable, Sendable {
    /// A constant of fixed length (declarations, Appearance): Read Blob may answer Attribute Not Long.
    case fixed([UInt8])
    /// A constant of variable length (Device Name).
    case variable([UInt8])
    /// A Client Characteristic Configuration: two octets per connection, 0x0000 at connect. `allowed`
    /// holds the bits the characteristic supports (0x0001 notify, 0x0002 indicate).
    case clientConfiguration(allowed: UInt16)
    /// Write-only: each write is handed to the caller whole, never stored (the command inbox).
    case sink
    /// No value a client can read (notify- or indicate-only characteristic values).
    case none

    /// True for values whose length never changes (Core Vol 3 Part F 3.4.4.5's Attribute Not Long).
    public var isFixedLength: Bool {
        switch self {
        case .fixed, .clientConfiguration: return true
        case .variable, .sink, .none: return false
        }
    }
}

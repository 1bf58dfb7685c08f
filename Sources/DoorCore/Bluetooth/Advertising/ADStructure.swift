/// One AD structure of advertising or scan response data: a length octet, an AD type, then data
/// (Core Vol 3 Part C 11; types from the Core Specification Supplement Part A).
public struct ADStructure: Equatable, Sendable {
    public static let flags: UInt8 = 0x01
    public static let incompleteList128BitServiceUUIDs: UInt8 = 0x06
    public static let completeList128BitServiceUUIDs: UInt8 = 0x07
    public static let shortenedLocalName: UInt8 = 0x08
    public static let completeLocalName: UInt8 = 0x09
    public static let manufacturerSpecificData: UInt8 = 0xFF

    /// Flags: LE General Discoverable Mode (bit 1) | BR/EDR Not Supported (bit 2).
    public static let generalDiscoverableLEOnly: UInt8 = 0x06

    public let type: UInt8
    public let data: [UInt8]

    public init(type: UInt8, data: [UInt8]) {
        self.type = type
        self.data = data
    }

    /// Length (type + data), type, data.
    public var bytes: [UInt8] { [UInt8(truncatingIfNeeded: data.count + 1), type] + data }

    /// The octets this structure takes in a payload.
    public var encodedLength: Int { data.count + 2 }
}

/// Why a command could not become a packet to send.
public enum SecPlus2BuildError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The rolling code is 2^28 or more.
    case rollingRange(UInt32)
    /// The nibble does not fit in 4 bits.
    case nibbleRange(UInt8)
    /// DOOR_ACTION is built only by `SecPlus2DoorMove`, which cannot say toggle.
    case doorAction

    public var description: String {
        switch self {
        case .rollingRange(let value): return "rolling code \(value) is 2^28 or more"
        case .nibbleRange(let value): return "nibble \(value) does not fit in 4 bits"
        case .doorAction: return "DOOR_ACTION is sent only as an open, close or stop (SecPlus2DoorMove), never built by hand"
        }
    }
}

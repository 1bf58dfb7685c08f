/// Why a name cannot be the GAP Device Name: the characteristic holds 0 to 248 octets of UTF-8
/// (Core Vol 3 Part C 12.1), and an empty name would leave the phone's list with a blank row.
public enum DeviceNameError: Error, Equatable, Sendable {
    case empty
    case tooLong(octets: Int)

    public static let maxOctets = 248
}

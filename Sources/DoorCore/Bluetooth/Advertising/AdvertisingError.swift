/// Why a payload cannot be advertised: legacy advertising data and scan response data each hold at
/// most 31 octets (Core Vol 6 Part B 2.3.1 and Vol 4 Part E 7.8.7), and a controller refuses more.
public enum AdvertisingError: Error, Equatable, Sendable {
    case tooLong(length: Int, limit: Int)
}

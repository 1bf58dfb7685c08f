/// Joins AD structures into one legacy advertising or scan response payload, refusing to build one
/// that a controller would reject rather than dropping structures silently.
public enum AdvertisingPayload {
    public static let maxLength = 31

    public static func encode(_ structures: [ADStructure]) throws(AdvertisingError) -> [UInt8] {
        let bytes = structures.flatMap(\.bytes)
        guard bytes.count <= maxLength else { throw .tooLong(length: bytes.count, limit: maxLength) }
        return bytes
    }

    /// The parameters of HCI LE Set Advertising Data / LE Set Scan Response Data (Core Vol 4 Part E
    /// 7.8.7, 7.8.8): the significant length, then the payload zero-padded to 31 octets.
    public static func hciParameters(_ payload: [UInt8]) throws(AdvertisingError) -> [UInt8] {
        guard payload.count <= maxLength else { throw .tooLong(length: payload.count, limit: maxLength) }
        return [UInt8(payload.count)] + payload + [UInt8](repeating: 0, count: maxLength - payload.count)
    }
}

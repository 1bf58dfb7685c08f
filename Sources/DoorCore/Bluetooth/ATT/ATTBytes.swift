/// ATT's multi-octet fields go least significant octet first (Core Vol 3 Part F 3.3.1); only
/// attribute values keep the byte order their own specification gives them.
enum ATTBytes {
    static func uint16(_ value: UInt16) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
    }

    /// The little-endian UInt16 in the first two bytes of `bytes` (the caller checked the count).
    static func uint16(_ bytes: ArraySlice<UInt8>) -> UInt16 {
        let i = bytes.startIndex
        return UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8
    }

    static func uint64(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    /// The little-endian UInt64 in the first eight bytes of `bytes` (the caller checked the count).
    static func uint64(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[bytes.startIndex + $1]) << (8 * UInt64($1)) }
    }
}

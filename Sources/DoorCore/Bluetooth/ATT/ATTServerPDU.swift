/// Every PDU this server sends, encoded byte for byte as Core Vol 3 Part F 3.4 lays it out: the
/// response to each supported request, the Error Response, and notifications. Choosing what fits
/// in ATT_MTU is the server's job; this only lays out what it was given.
public enum ATTServerPDU: Equatable, Sendable {
    case error(ATTErrorResponse)
    case exchangeMTU(serverRxMTU: UInt16)
    /// Handle-type pairs; 16-bit format when every type has a 16-bit alias, else all 128-bit.
    case findInformation([HandleType])
    case findByTypeValue([HandleGroup])
    /// Handle-value pairs whose values all have the same length.
    case readByType([HandleValue])
    case read([UInt8])
    case readBlob([UInt8])
    case readMultiple([UInt8])
    /// Group entries whose values all have the same length.
    case readByGroupType([GroupValue])
    case write
    case notification(handle: UInt16, value: [UInt8])

    public struct HandleType: Equatable, Sendable {
        public let handle: UInt16
        public let type: BluetoothUUID
        public init(handle: UInt16, type: BluetoothUUID) { self.handle = handle; self.type = type }
    }

    public struct HandleGroup: Equatable, Sendable {
        public let handle: UInt16
        public let groupEnd: UInt16
        public init(handle: UInt16, groupEnd: UInt16) { self.handle = handle; self.groupEnd = groupEnd }
    }

    public struct HandleValue: Equatable, Sendable {
        public let handle: UInt16
        public let value: [UInt8]
        public init(handle: UInt16, value: [UInt8]) { self.handle = handle; self.value = value }
    }

    public struct GroupValue: Equatable, Sendable {
        public let handle: UInt16
        public let groupEnd: UInt16
        public let value: [UInt8]
        public init(handle: UInt16, groupEnd: UInt16, value: [UInt8]) {
            self.handle = handle
            self.groupEnd = groupEnd
            self.value = value
        }
    }

    public var bytes: [UInt8] {
        switch self {
        case .error(let e):
            return e.bytes
        case .exchangeMTU(let mtu):
            return [ATTOpcode.exchangeMTUResponse.rawValue] + ATTBytes.uint16(mtu)
        case .findInformation(let entries):
            // Format 0x01: handle + 16-bit UUID; 0x02: handle + 128-bit UUID (Table 3.9).
            let short = entries.allSatisfy { $0.type.shortValue != nil }
            var out: [UInt8] = [ATTOpcode.findInformationResponse.rawValue, short ? 0x01 : 0x02]
            for e in entries {
                out += ATTBytes.uint16(e.handle) + (short ? e.type.wireBytes : e.type.wireBytes128)
            }
            return out
        case .findByTypeValue(let entries):
            var out: [UInt8] = [ATTOpcode.findByTypeValueResponse.rawValue]
            for e in entries { out += ATTBytes.uint16(e.handle) + ATTBytes.uint16(e.groupEnd) }
            return out
        case .readByType(let entries):
            let length = UInt8(2 + (entries.first?.value.count ?? 0))
            var out: [UInt8] = [ATTOpcode.readByTypeResponse.rawValue, length]
            for e in entries { out += ATTBytes.uint16(e.handle) + e.value }
            return out
        case .read(let value):
            return [ATTOpcode.readResponse.rawValue] + value
        case .readBlob(let part):
            return [ATTOpcode.readBlobResponse.rawValue] + part
        case .readMultiple(let values):
            return [ATTOpcode.readMultipleResponse.rawValue] + values
        case .readByGroupType(let entries):
            let length = UInt8(4 + (entries.first?.value.count ?? 0))
            var out: [UInt8] = [ATTOpcode.readByGroupTypeResponse.rawValue, length]
            for e in entries { out += ATTBytes.uint16(e.handle) + ATTBytes.uint16(e.groupEnd) + e.value }
            return out
        case .write:
            return [ATTOpcode.writeResponse.rawValue]
        case .notification(let handle, let value):
            return [ATTOpcode.handleValueNotification.rawValue] + ATTBytes.uint16(handle) + value
        }
    }
}

/// The ATT server for one connection, bearer-agnostic: PDU bytes in, response bytes and written
/// commands out. Each phone gets its own instance because MTU and CCCD values are per connection.
///
/// Supported: Exchange MTU, Find Information, Find By Type Value, Read By Type, Read, Read Blob,
/// Read Multiple, Read By Group Type, Write Request, Write Command, and Handle Value Confirmation
/// (tolerated). Other requests get Request Not Supported; other commands are ignored.
public struct ATTServer: Sendable {
    /// What one incoming PDU produced.
    public struct Output: Equatable, Sendable {
        /// The PDU to send back, if any (commands and confirmations never get one).
        public var response: [UInt8]?
        /// The bytes of one write to 6E400002: exactly one command, for CommandCodec.
        public var command: [UInt8]?
        /// True when the PDU was not well-formed ATT (no opcode, a server-to-client PDU, wrong
        /// parameter lengths, an invalid handle range, longer than ATT_MTU). Error Responses to
        /// well-formed requests (Attribute Not Found ends every discovery) are not garbage.
        public var malformed: Bool

        public init(response: [UInt8]? = nil, command: [UInt8]? = nil, malformed: Bool = false) {
            self.response = response
            self.command = command
            self.malformed = malformed
        }
    }

    /// ATT_MTU on LE before any exchange, and the floor it never goes below (Core Vol 3 Part F 3.2.8).
    public static let defaultMTU: UInt16 = 23
    /// The largest useful MTU: a 512-octet attribute value plus 5 octets of header.
    public static let maximumMTU: UInt16 = 517
    /// 247 = 251-octet LE Data Length Extension payload minus the 4-octet L2CAP header: the largest
    /// PDU that still travels in one link-layer packet. Replies are 23 octets at most anyway.
    public static let defaultServerRxMTU: UInt16 = 247

    public let gatt: GarageGATT
    /// What this server announces in its Exchange MTU Response.
    public let serverRxMTU: UInt16
    /// The ATT_MTU in force on this connection.
    public private(set) var mtu: UInt16 = ATTServer.defaultMTU
    /// CCCD values by descriptor handle; absent means 0x0000.
    var configurations: [UInt16: UInt16] = [:]

    public init(gatt: GarageGATT, serverRxMTU: UInt16 = ATTServer.defaultServerRxMTU) {
        precondition((ATTServer.defaultMTU...ATTServer.maximumMTU).contains(serverRxMTU),
                     "Server Rx MTU must be 23...517")
        self.gatt = gatt
        self.serverRxMTU = serverRxMTU
    }

    var database: GATTDatabase { gatt.database }

    /// True once this client has written 0x0001 to 6E400003's CCCD (and not cleared it since).
    public var notificationsEnabled: Bool {
        configurations[gatt.replyConfigurationHandle, default: 0] & 0x0001 != 0
    }

    /// Handles one PDU from the client.
    public mutating func handle(_ pdu: [UInt8]) -> Output {
        let request: ATTRequest
        do {
            request = try ATTRequest.decode(pdu)
        } catch {
            return Output(response: error.errorResponse?.bytes, malformed: error.isMalformed)
        }
        switch request {
        case .write, .writeCommand:
            // Checked per attribute: a value longer than ATT_MTU-3 is Invalid Attribute Value Length.
            break
        default:
            // Any other PDU longer than ATT_MTU breaks its format table (e.g. "Attribute Value
            // 0 to ATT_MTU-7" for Find By Type Value).
            if pdu.count > Int(mtu) {
                return Output(response: fail(request, 0, .invalidPDU).bytes, malformed: true)
            }
        }

        switch request {
        case .exchangeMTU(let clientRxMTU):
            // The response announces our Rx MTU; the new ATT_MTU applies after it is sent. A client
            // MTU below 23 leaves ATT_MTU unchanged (3.4.2.2). A repeated exchange (the spec says
            // once per connection) is recomputed the same way, so both sides keep agreeing.
            if clientRxMTU >= ATTServer.defaultMTU { mtu = min(clientRxMTU, serverRxMTU) }
            return Output(response: ATTServerPDU.exchangeMTU(serverRxMTU: serverRxMTU).bytes)
        case .findInformation(let range):
            return Output(response: findInformation(range).bytes)
        case .findByTypeValue(let range, let type, let value):
            return Output(response: findByTypeValue(range, type: type, value: value).bytes)
        case .readByType(let range, let type):
            return Output(response: readByType(range, type: type).bytes)
        case .read(let handle):
            return Output(response: read(handle).bytes)
        case .readBlob(let handle, let offset):
            return Output(response: readBlob(handle, offset: offset).bytes)
        case .readMultiple(let handles):
            return Output(response: readMultiple(handles).bytes)
        case .readByGroupType(let range, let groupType):
            return Output(response: readByGroupType(range, groupType: groupType).bytes)
        case .write(let handle, let value):
            switch write(handle, value, permission: .write) {
            case .success(let command): return Output(response: ATTServerPDU.write.bytes, command: command)
            case .failure(let code): return Output(response: fail(request, handle, code).bytes)
            }
        case .writeCommand(let handle, let value):
            // Never a response; a write that fails for any reason is ignored (3.4.5.3).
            return Output(command: try? write(handle, value, permission: .writeCommand).get())
        case .handleValueConfirmation:
            // This server sends no indications; a stray confirmation is harmless.
            return Output()
        }
    }

    /// A Handle Value Notification carrying `record` on 6E400003, or nil when this client has not
    /// enabled notifications. Never truncates: a record over ATT_MTU-3 octets is refused.
    public func notification(_ record: [UInt8]) throws(ATTNotificationError) -> [UInt8]? {
        let limit = Int(mtu) - 3
        guard record.count <= limit else { throw .tooLong(length: record.count, limit: limit) }
        guard notificationsEnabled else { return nil }
        return ATTServerPDU.notification(handle: gatt.replyHandle, value: record).bytes
    }

    func fail(_ request: ATTRequest, _ handle: UInt16, _ code: ATTErrorCode) -> ATTServerPDU {
        .error(ATTErrorResponse(requestOpcode: request.opcode.rawValue, handle: handle, code: code))
    }

    /// The value a client may read from `attribute` on this connection, or why it may not.
    func readValue(_ attribute: GATTAttribute) -> Result<[UInt8], ATTErrorCode> {
        guard attribute.permissions.contains(.read) else { return .failure(.readNotPermitted) }
        switch attribute.value {
        case .fixed(let v), .variable(let v):
            return .success(v)
        case .clientConfiguration:
            return .success(ATTBytes.uint16(configurations[attribute.handle, default: 0]))
        case .sink, .none:
            return .failure(.readNotPermitted)
        }
    }
}

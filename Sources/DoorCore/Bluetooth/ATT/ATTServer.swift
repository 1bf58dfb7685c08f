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
    public internal(set) var mtu: UInt16 = ATTServer.defaultMTU
    /// The link's protection, kept current by the bearer before each PDU when the database
    /// has attributes that need a paired phone (`needsLinkSecurity`).
    public var link = LinkSecurity.open
    /// CCCD values by descriptor handle; absent means 0x0000.
    var configurations: [UInt16: UInt16] = [:]

    public init(gatt: GarageGATT, serverRxMTU: UInt16 = ATTServer.defaultServerRxMTU) {
        precondition((ATTServer.defaultMTU...ATTServer.maximumMTU).contains(serverRxMTU),
                     "Server Rx MTU must be 23...517")
        self.gatt = gatt
        self.serverRxMTU = serverRxMTU
    }

    var database: GATTDatabase { gatt.database }

    /// True when some write checks the link, so the bearer must tell this server what it is.
    public var needsLinkSecurity: Bool { gatt.security == .paired }

    /// True once this client has written 0x0001 to 6E400003's CCCD (and not cleared it since).
    public var notificationsEnabled: Bool {
        configurations[gatt.replyConfigurationHandle, default: 0] & 0x0001 != 0
    }

    /// Handles one PDU from the client: its opcode picks the declaration that decodes it and
    /// the handler that answers it (a write here, anything else through `routes`).
    public mutating func answer(_ pdu: [UInt8]) -> Output { answer(pdu[...]) }

    /// The same for part of a read buffer: a write, how every press comes, is read where it
    /// lies; any other request is copied out for its route.
    public mutating func answer(_ pdu: ArraySlice<UInt8>) -> Output {
        guard let raw = pdu.first else { return ATTServer.refused(.empty) }
        guard let opcode = ATTOpcode(rawValue: raw) else {
            return ATTServer.refused(ATTOpcode.isCommand(raw) ? .unsupportedCommand(opcode: raw) : .unsupportedRequest(opcode: raw))
        }
        switch opcode.kind {
        case .response, .notification, .indication: return ATTServer.refused(.notARequest(opcode: raw))
        case .request, .command, .confirmation: break
        }
        // A phone's command arrives as a write: answered here, not through the table, since
        // every press a phone asks for takes this path.
        if opcode == .writeRequest { return writeRequest(pdu) }
        if opcode == .writeCommand { return writeCommand(pdu) }
        guard let route = ATTServer.routeByOpcode[Int(raw)] else {
            return ATTServer.refused(opcode.kind == .command ? .unsupportedCommand(opcode: raw) : .unsupportedRequest(opcode: raw))
        }
        return route(&self, Array(pdu))
    }

    /// A Handle Value Notification carrying `record` on 6E400003, or nil when this client has not
    /// enabled notifications. Never truncates: a record over ATT_MTU-3 octets is refused.
    public func notification(_ record: [UInt8]) throws(ATTNotificationError) -> [UInt8]? {
        let limit = Int(mtu) - 3
        guard record.count <= limit else { throw .tooLong(length: record.count, limit: limit) }
        guard notificationsEnabled else { return nil }
        return ATTHandleValueNotification(handle: gatt.replyHandle, value: record).bytes
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

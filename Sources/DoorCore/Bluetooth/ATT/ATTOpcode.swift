/// Every ATT opcode of Core Vol 3 Part F 3.4.8, with the kind of PDU it names: the kind decides
/// whether a server answers at all (requests always, commands never, the rest are not for servers).
public enum ATTOpcode: UInt8, Sendable, CaseIterable {
    case errorResponse = 0x01
    case exchangeMTURequest = 0x02
    case exchangeMTUResponse = 0x03
    case findInformationRequest = 0x04
    case findInformationResponse = 0x05
    case findByTypeValueRequest = 0x06
    case findByTypeValueResponse = 0x07
    case readByTypeRequest = 0x08
    case readByTypeResponse = 0x09
    case readRequest = 0x0A
    case readResponse = 0x0B
    case readBlobRequest = 0x0C
    case readBlobResponse = 0x0D
    case readMultipleRequest = 0x0E
    case readMultipleResponse = 0x0F
    case readByGroupTypeRequest = 0x10
    case readByGroupTypeResponse = 0x11
    case writeRequest = 0x12
    case writeResponse = 0x13
    case prepareWriteRequest = 0x16
    case prepareWriteResponse = 0x17
    case executeWriteRequest = 0x18
    case executeWriteResponse = 0x19
    case handleValueNotification = 0x1B
    case handleValueIndication = 0x1D
    case handleValueConfirmation = 0x1E
    case readMultipleVariableRequest = 0x20
    case readMultipleVariableResponse = 0x21
    case multipleHandleValueNotification = 0x23
    case writeCommand = 0x52
    case signedWriteCommand = 0xD2

    /// The six PDU types of Core Vol 3 Part F 3.3, Table 3.1.
    public enum Kind: Sendable {
        case request, response, command, notification, indication, confirmation
    }

    public var kind: Kind {
        switch self {
        case .exchangeMTURequest, .findInformationRequest, .findByTypeValueRequest,
             .readByTypeRequest, .readRequest, .readBlobRequest, .readMultipleRequest,
             .readByGroupTypeRequest, .writeRequest, .prepareWriteRequest, .executeWriteRequest,
             .readMultipleVariableRequest:
            return .request
        case .writeCommand, .signedWriteCommand:
            return .command
        case .handleValueNotification, .multipleHandleValueNotification:
            return .notification
        case .handleValueIndication:
            return .indication
        case .handleValueConfirmation:
            return .confirmation
        case .errorResponse, .exchangeMTUResponse, .findInformationResponse,
             .findByTypeValueResponse, .readByTypeResponse, .readResponse, .readBlobResponse,
             .readMultipleResponse, .readByGroupTypeResponse, .writeResponse,
             .prepareWriteResponse, .executeWriteResponse, .readMultipleVariableResponse:
            return .response
        }
    }

    /// Bit 6 of any opcode, known or not: a command, which a server never answers, not even with an
    /// error, if it does not support it (Core Vol 3 Part F 3.3 and 3.3.1).
    public static func isCommand(_ raw: UInt8) -> Bool { raw & 0x40 != 0 }
}

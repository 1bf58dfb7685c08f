/// Why a PDU did not become a request, carrying what the spec says the client is owed: an Error
/// Response with a given code and handle, or silence (commands, and PDUs that are not requests).
public enum ATTDecodeError: Error, Equatable, Sendable {
    /// Zero bytes: there is not even an opcode to answer.
    case empty
    /// A response, notification or indication: server-to-client PDUs this server never asked for.
    case notARequest(opcode: UInt8)
    /// A command (bit 6 set) this server does not support, signed writes included: ignored (3.3).
    case unsupportedCommand(opcode: UInt8)
    /// A request this server does not support, or an opcode it does not know with bit 6 clear.
    case unsupportedRequest(opcode: UInt8)
    /// The parameters do not have the length the opcode's format table gives.
    case invalidPDU(opcode: UInt8)
    /// Starting Handle 0x0000, or Starting Handle above Ending Handle.
    case invalidHandleRange(opcode: UInt8, start: UInt16)

    /// The Error Response to send, or nil when the spec says to send nothing.
    public var errorResponse: ATTErrorResponse? {
        switch self {
        case .empty, .notARequest, .unsupportedCommand:
            return nil
        case .unsupportedRequest(let opcode):
            // Handle 0x0000 "if the request is not supported" (3.4.1.1).
            return ATTErrorResponse(requestOpcode: opcode, handle: 0, code: .requestNotSupported)
        case .invalidPDU(let opcode):
            // Only requests are answered; a malformed command or confirmation is dropped.
            guard ATTOpcode(rawValue: opcode)?.kind == .request else { return nil }
            return ATTErrorResponse(requestOpcode: opcode, handle: 0, code: .invalidPDU)
        case .invalidHandleRange(let opcode, let start):
            return ATTErrorResponse(requestOpcode: opcode, handle: start, code: .invalidHandle)
        }
    }

    /// True for PDUs no conforming client sends; an unsupported request or command is a
    /// client trying something this server lacks, not garbage.
    public var isMalformed: Bool {
        switch self {
        case .empty, .notARequest, .invalidPDU, .invalidHandleRange: return true
        case .unsupportedCommand, .unsupportedRequest: return false
        }
    }
}

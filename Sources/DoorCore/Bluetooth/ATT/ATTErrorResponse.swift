/// The Error Response PDU (opcode 0x01): which request failed, at which handle, and why. The handle
/// is 0x0000 when the request named none or was not supported (Core Vol 3 Part F 3.4.1.1).
public struct ATTErrorResponse: Equatable, Sendable {
    public let requestOpcode: UInt8
    public let handle: UInt16
    public let code: ATTErrorCode

    public init(requestOpcode: UInt8, handle: UInt16, code: ATTErrorCode) {
        self.requestOpcode = requestOpcode
        self.handle = handle
        self.code = code
    }

    public var bytes: [UInt8] {
        [ATTOpcode.errorResponse.rawValue, requestOpcode] + ATTBytes.uint16(handle) + [code.rawValue]
    }
}

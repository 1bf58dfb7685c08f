/// What a client asked for, once its PDU has the shape the Core spec gives. Every handle range in
/// here is already valid; everything that needs the database (unknown handles, permissions,
/// Attribute Not Found) is the server's to judge.
public enum ATTRequest: Equatable, Sendable {
    case exchangeMTU(clientRxMTU: UInt16)
    case findInformation(ATTHandleRange)
    case findByTypeValue(ATTHandleRange, type: BluetoothUUID, value: [UInt8])
    case readByType(ATTHandleRange, type: BluetoothUUID)
    case read(handle: UInt16)
    case readBlob(handle: UInt16, offset: UInt16)
    case readMultiple(handles: [UInt16])
    case readByGroupType(ATTHandleRange, groupType: BluetoothUUID)
    case write(handle: UInt16, value: [UInt8])
    case writeCommand(handle: UInt16, value: [UInt8])
    case handleValueConfirmation

    public var opcode: ATTOpcode {
        switch self {
        case .exchangeMTU: return .exchangeMTURequest
        case .findInformation: return .findInformationRequest
        case .findByTypeValue: return .findByTypeValueRequest
        case .readByType: return .readByTypeRequest
        case .read: return .readRequest
        case .readBlob: return .readBlobRequest
        case .readMultiple: return .readMultipleRequest
        case .readByGroupType: return .readByGroupTypeRequest
        case .write: return .writeRequest
        case .writeCommand: return .writeCommand
        case .handleValueConfirmation: return .handleValueConfirmation
        }
    }

    /// Bytes in, request or the specific reason out (see `ATTDecodeError.errorResponse`).
    public static func decode(_ pdu: [UInt8]) throws(ATTDecodeError) -> ATTRequest {
        guard let raw = pdu.first else { throw .empty }
        guard let opcode = ATTOpcode(rawValue: raw) else {
            throw ATTOpcode.isCommand(raw) ? .unsupportedCommand(opcode: raw) : .unsupportedRequest(opcode: raw)
        }
        switch opcode.kind {
        case .response, .notification, .indication: throw .notARequest(opcode: raw)
        case .request, .command, .confirmation: break
        }
        guard let layout = ATTLayout.parameters[opcode] else {
            throw opcode.kind == .command ? .unsupportedCommand(opcode: raw) : .unsupportedRequest(opcode: raw)
        }
        guard let v = ATTLayout.decode(layout, from: pdu.dropFirst()) else { throw .invalidPDU(opcode: raw) }

        switch opcode {
        case .exchangeMTURequest:
            return .exchangeMTU(clientRxMTU: v[0].uint16)
        case .findInformationRequest:
            return .findInformation(try range(raw, v[0], v[1]))
        case .findByTypeValueRequest:
            return .findByTypeValue(try range(raw, v[0], v[1]), type: BluetoothUUID(v[2].uint16),
                                    value: v[3].bytes)
        case .readByTypeRequest:
            return .readByType(try range(raw, v[0], v[1]), type: v[2].uuid)
        case .readRequest:
            return .read(handle: v[0].uint16)
        case .readBlobRequest:
            return .readBlob(handle: v[0].uint16, offset: v[1].uint16)
        case .readMultipleRequest:
            return .readMultiple(handles: v[0].handles)
        case .readByGroupTypeRequest:
            return .readByGroupType(try range(raw, v[0], v[1]), groupType: v[2].uuid)
        case .writeRequest:
            return .write(handle: v[0].uint16, value: v[1].bytes)
        case .writeCommand:
            return .writeCommand(handle: v[0].uint16, value: v[1].bytes)
        case .handleValueConfirmation:
            return .handleValueConfirmation
        default:
            // A layout without a case here: answer as unsupported rather than trap.
            throw opcode.kind == .command ? .unsupportedCommand(opcode: raw) : .unsupportedRequest(opcode: raw)
        }
    }

    private static func range(_ opcode: UInt8, _ start: ATTParameterValue,
                              _ end: ATTParameterValue) throws(ATTDecodeError) -> ATTHandleRange {
        guard let r = ATTHandleRange(start: start.uint16, end: end.uint16) else {
            throw .invalidHandleRange(opcode: opcode, start: start.uint16)
        }
        return r
    }
}

/// The parameters of every PDU this server accepts, in the order of the Core spec's tables
/// (Vol 3 Part F 3.4). Requests missing here are answered Request Not Supported.
enum ATTLayout {
    static let parameters: [ATTOpcode: [ATTParameter]] = [
        .exchangeMTURequest: [.uint16("Client Rx MTU")],                                    // 3.4.2.1
        .findInformationRequest: [.uint16("Starting Handle"), .uint16("Ending Handle")],   // 3.4.3.1
        .findByTypeValueRequest: [.uint16("Starting Handle"), .uint16("Ending Handle"),    // 3.4.3.3
                                  .uint16("Attribute Type"), .bytes("Attribute Value", minimum: 0)],
        .readByTypeRequest: [.uint16("Starting Handle"), .uint16("Ending Handle"),         // 3.4.4.1
                             .uuid("Attribute Type")],
        .readRequest: [.uint16("Attribute Handle")],                                        // 3.4.4.3
        .readBlobRequest: [.uint16("Attribute Handle"), .uint16("Value Offset")],          // 3.4.4.5
        .readMultipleRequest: [.handles("Set Of Handles")],                                 // 3.4.4.7
        .readByGroupTypeRequest: [.uint16("Starting Handle"), .uint16("Ending Handle"),    // 3.4.4.9
                                  .uuid("Attribute Group Type")],
        .writeRequest: [.uint16("Attribute Handle"), .bytes("Attribute Value", minimum: 0)], // 3.4.5.1
        .writeCommand: [.uint16("Attribute Handle"), .bytes("Attribute Value", minimum: 0)], // 3.4.5.3
        .handleValueConfirmation: [],                                                        // 3.4.7.3
    ]

    /// The values of `parameters` read from `bytes` (the PDU after its opcode), or nil when the
    /// length does not fit the declaration exactly.
    static func decode(_ parameters: [ATTParameter], from bytes: ArraySlice<UInt8>) -> [ATTParameterValue]? {
        var rest = bytes
        var values: [ATTParameterValue] = []
        for parameter in parameters {
            switch parameter {
            case .uint16:
                guard rest.count >= 2 else { return nil }
                values.append(.uint16(ATTBytes.uint16(rest)))
                rest = rest.dropFirst(2)
            case .uuid:
                guard let uuid = BluetoothUUID(wire: rest) else { return nil }
                values.append(.uuid(uuid))
                rest = rest.suffix(0)
            case .bytes(_, let minimum):
                guard rest.count >= minimum else { return nil }
                values.append(.bytes(Array(rest)))
                rest = rest.suffix(0)
            case .handles:
                guard rest.count >= 4, rest.count % 2 == 0 else { return nil }
                var handles: [UInt16] = []
                while !rest.isEmpty {
                    handles.append(ATTBytes.uint16(rest))
                    rest = rest.dropFirst(2)
                }
                values.append(.handles(handles))
            }
        }
        return rest.isEmpty ? values : nil
    }
}

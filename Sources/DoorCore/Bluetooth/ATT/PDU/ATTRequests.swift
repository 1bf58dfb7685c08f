// The client-to-server PDUs this server accepts, one declaration each, in the order of the Core
// spec (Vol 3 Part F 3.4, section numbers beside them). Requests missing here are answered
// Request Not Supported; commands missing here are ignored.

extension ATTHandleRange {
    /// 0x0001...0xFFFF: a placeholder a decoder overwrites.
    public static let all = ATTHandleRange(start: 0x0001, end: 0xFFFF)!
}

public struct ATTExchangeMTURequest: ATTPDU {  // 3.4.2.1
    public static let opcode = ATTOpcode.exchangeMTURequest
    public static let fields: [ATTField<Self>] = [.uint16("Client Rx MTU", \.clientRxMTU)]
    public var clientRxMTU: UInt16 = 0
    public init() {}
}

public struct ATTFindInformationRequest: ATTPDU {  // 3.4.3.1
    public static let opcode = ATTOpcode.findInformationRequest
    public static let fields: [ATTField<Self>] = [.handleRange(\.range)]
    public var range = ATTHandleRange.all
    public init() {}
}

public struct ATTFindByTypeValueRequest: ATTPDU {  // 3.4.3.3
    public static let opcode = ATTOpcode.findByTypeValueRequest
    public static let fields: [ATTField<Self>] =
        [.handleRange(\.range), .uuid16("Attribute Type", \.type), .bytes("Attribute Value", \.value)]
    public var range = ATTHandleRange.all
    public var type = BluetoothUUID.primaryService
    public var value: [UInt8] = []
    public init() {}
}

public struct ATTReadByTypeRequest: ATTPDU {  // 3.4.4.1
    public static let opcode = ATTOpcode.readByTypeRequest
    public static let fields: [ATTField<Self>] = [.handleRange(\.range), .uuid("Attribute Type", \.type)]
    public var range = ATTHandleRange.all
    public var type = BluetoothUUID.characteristic
    public init() {}
}

public struct ATTReadRequest: ATTPDU {  // 3.4.4.3
    public static let opcode = ATTOpcode.readRequest
    public static let fields: [ATTField<Self>] = [.uint16("Attribute Handle", \.handle)]
    public var handle: UInt16 = 0
    public init() {}
}

public struct ATTReadBlobRequest: ATTPDU {  // 3.4.4.5
    public static let opcode = ATTOpcode.readBlobRequest
    public static let fields: [ATTField<Self>] = [.uint16("Attribute Handle", \.handle), .uint16("Value Offset", \.offset)]
    public var handle: UInt16 = 0
    public var offset: UInt16 = 0
    public init() {}
}

public struct ATTReadMultipleRequest: ATTPDU {  // 3.4.4.7
    public static let opcode = ATTOpcode.readMultipleRequest
    public static let fields: [ATTField<Self>] = [.handles("Set Of Handles", \.handles)]
    public var handles: [UInt16] = []
    public init() {}
}

public struct ATTReadByGroupTypeRequest: ATTPDU {  // 3.4.4.9
    public static let opcode = ATTOpcode.readByGroupTypeRequest
    public static let fields: [ATTField<Self>] = [.handleRange(\.range), .uuid("Attribute Group Type", \.groupType)]
    public var range = ATTHandleRange.all
    public var groupType = BluetoothUUID.primaryService
    public init() {}
}

public struct ATTWriteRequest: ATTWritePDU {  // 3.4.5.1
    public static let opcode = ATTOpcode.writeRequest
    public static let fields: [ATTField<Self>] = [.uint16("Attribute Handle", \.handle), .bytes("Attribute Value", \.value)]
    public var handle: UInt16 = 0
    public var value: [UInt8] = []
    public init() {}
}

public struct ATTWriteCommand: ATTWritePDU {  // 3.4.5.3
    public static let opcode = ATTOpcode.writeCommand
    public static let fields: [ATTField<Self>] = [.uint16("Attribute Handle", \.handle), .bytes("Attribute Value", \.value)]
    public var handle: UInt16 = 0
    public var value: [UInt8] = []
    public init() {}
}

public struct ATTHandleValueConfirmation: ATTPDU {  // 3.4.7.3
    public static let opcode = ATTOpcode.handleValueConfirmation
    public static let fields: [ATTField<Self>] = []
    public init() {}
}

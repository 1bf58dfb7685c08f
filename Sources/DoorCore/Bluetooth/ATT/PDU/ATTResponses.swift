// The server-to-client PDUs this server sends, one declaration each (Core Vol 3 Part F 3.4).
// Lists of entries travel as one octet field: the server lays them out (`ATTAttributeDataList`)
// because which entries fit is its decision, as the spec makes it.

public struct ATTErrorResponse: ATTPDU {  // 3.4.1.1
    public static let opcode = ATTOpcode.errorResponse
    public static let fields: [ATTField<Self>] =
        [.uint8("Request Opcode In Error", \.requestOpcode), .uint16("Attribute Handle In Error", \.handle),
         .uint8("Error Code", \.errorCode)]
    public var requestOpcode: UInt8 = 0
    /// 0x0000 when the request named no handle or was not supported.
    public var handle: UInt16 = 0
    public var errorCode: UInt8 = 0
    public init() {}

    public init(requestOpcode: UInt8, handle: UInt16, code: ATTErrorCode) {
        self.requestOpcode = requestOpcode
        self.handle = handle
        errorCode = code.rawValue
    }

    public var code: ATTErrorCode? { ATTErrorCode(rawValue: errorCode) }
}

public struct ATTExchangeMTUResponse: ATTPDU {  // 3.4.2.2
    public static let opcode = ATTOpcode.exchangeMTUResponse
    public static let fields: [ATTField<Self>] = [.uint16("Server Rx MTU", \.serverRxMTU)]
    public var serverRxMTU: UInt16 = 0
    public init() {}
}

public struct ATTFindInformationResponse: ATTPDU {  // 3.4.3.2
    public static let opcode = ATTOpcode.findInformationResponse
    public static let fields: [ATTField<Self>] = [.uint8("Format", \.format), .bytes("Information Data", \.informationData)]
    /// 0x01: handles with 16-bit UUIDs; 0x02: with 128-bit UUIDs (Table 3.9).
    public var format: UInt8 = 0x01
    public var informationData: [UInt8] = []
    public init() {}
}

public struct ATTFindByTypeValueResponse: ATTPDU {  // 3.4.3.4
    public static let opcode = ATTOpcode.findByTypeValueResponse
    public static let fields: [ATTField<Self>] = [.bytes("Handles Information List", \.handlesInformation)]
    public var handlesInformation: [UInt8] = []
    public init() {}
}

public struct ATTReadByTypeResponse: ATTPDU {  // 3.4.4.2
    public static let opcode = ATTOpcode.readByTypeResponse
    public static let fields: [ATTField<Self>] = [.uint8("Length", \.length), .bytes("Attribute Data List", \.attributeDataList)]
    public var length: UInt8 = 0
    public var attributeDataList: [UInt8] = []
    public init() {}
}

public struct ATTReadResponse: ATTPDU {  // 3.4.4.4
    public static let opcode = ATTOpcode.readResponse
    public static let fields: [ATTField<Self>] = [.bytes("Attribute Value", \.value)]
    public var value: [UInt8] = []
    public init() {}
}

public struct ATTReadBlobResponse: ATTPDU {  // 3.4.4.6
    public static let opcode = ATTOpcode.readBlobResponse
    public static let fields: [ATTField<Self>] = [.bytes("Part Attribute Value", \.part)]
    public var part: [UInt8] = []
    public init() {}
}

public struct ATTReadMultipleResponse: ATTPDU {  // 3.4.4.8
    public static let opcode = ATTOpcode.readMultipleResponse
    public static let fields: [ATTField<Self>] = [.bytes("Set Of Values", \.values)]
    public var values: [UInt8] = []
    public init() {}
}

public struct ATTReadByGroupTypeResponse: ATTPDU {  // 3.4.4.10
    public static let opcode = ATTOpcode.readByGroupTypeResponse
    public static let fields: [ATTField<Self>] = [.uint8("Length", \.length), .bytes("Attribute Data List", \.attributeDataList)]
    public var length: UInt8 = 0
    public var attributeDataList: [UInt8] = []
    public init() {}
}

public struct ATTWriteResponse: ATTPDU {  // 3.4.5.2
    public static let opcode = ATTOpcode.writeResponse
    public static let fields: [ATTField<Self>] = []
    public init() {}
}

public struct ATTHandleValueNotification: ATTPDU {  // 3.4.7.1
    public static let opcode = ATTOpcode.handleValueNotification
    public static let fields: [ATTField<Self>] = [.uint16("Attribute Handle", \.handle), .bytes("Attribute Value", \.value)]
    public var handle: UInt16 = 0
    public var value: [UInt8] = []
    public init() {}

    public init(handle: UInt16, value: [UInt8]) {
        self.handle = handle
        self.value = value
    }
}

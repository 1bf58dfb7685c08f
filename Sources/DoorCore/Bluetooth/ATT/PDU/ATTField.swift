/// One field of an ATT PDU, named as the Core spec's format table names it, with where its
/// value lives in the PDU's Swift type. Multi-octet fields go least significant octet first
/// (Vol 3 Part F 3.3.1). The last field of a PDU may fill the rest of it (`uuid`, `bytes`,
/// `handles`).
public enum ATTField<PDU>: @unchecked Sendable {
    case uint8(String, WritableKeyPath<PDU, UInt8>)
    case uint16(String, WritableKeyPath<PDU, UInt16>)
    /// Starting Handle and Ending Handle: a start of 0x0000 or past the end is refused with
    /// Invalid Handle at the starting handle before the range exists.
    case handleRange(WritableKeyPath<PDU, ATTHandleRange>)
    /// A 16-bit UUID in two octets (Find By Type Value's Attribute Type).
    case uuid16(String, WritableKeyPath<PDU, BluetoothUUID>)
    /// A UUID filling the rest of the PDU: exactly 2 or 16 octets; written in its shortest form.
    case uuid(String, WritableKeyPath<PDU, BluetoothUUID>)
    /// Octets filling the rest of the PDU.
    case bytes(String, WritableKeyPath<PDU, [UInt8]>)
    /// Two or more handles filling the rest of the PDU.
    case handles(String, WritableKeyPath<PDU, [UInt16]>)

    func encode(_ pdu: PDU, into out: inout [UInt8]) {
        switch self {
        case .uint8(_, let k): out.append(pdu[keyPath: k])
        case .uint16(_, let k): out += ATTBytes.uint16(pdu[keyPath: k])
        case .handleRange(let k): out += ATTBytes.uint16(pdu[keyPath: k].start) + ATTBytes.uint16(pdu[keyPath: k].end)
        case .uuid16(_, let k): out += ATTBytes.uint16(pdu[keyPath: k].shortValue ?? 0)
        case .uuid(_, let k): out += pdu[keyPath: k].wireBytes
        case .bytes(_, let k): out += pdu[keyPath: k]
        case .handles(_, let k): for h in pdu[keyPath: k] { out += ATTBytes.uint16(h) }
        }
    }

    func decode(into pdu: inout PDU, from rest: inout ArraySlice<UInt8>, opcode: UInt8) throws(ATTDecodeError) {
        switch self {
        case .uint8(_, let k):
            guard let b = rest.first else { throw .invalidPDU(opcode: opcode) }
            pdu[keyPath: k] = b
            rest = rest.dropFirst()
        case .uint16(_, let k):
            pdu[keyPath: k] = try ATTField.uint16(&rest, opcode)
        case .handleRange(let k):
            let start = try ATTField.uint16(&rest, opcode), end = try ATTField.uint16(&rest, opcode)
            guard let range = ATTHandleRange(start: start, end: end) else {
                throw .invalidHandleRange(opcode: opcode, start: start)
            }
            pdu[keyPath: k] = range
        case .uuid16(_, let k):
            pdu[keyPath: k] = BluetoothUUID(try ATTField.uint16(&rest, opcode))
        case .uuid(_, let k):
            guard let uuid = BluetoothUUID(wire: rest) else { throw .invalidPDU(opcode: opcode) }
            pdu[keyPath: k] = uuid
            rest = rest.suffix(0)
        case .bytes(_, let k):
            pdu[keyPath: k] = Array(rest)
            rest = rest.suffix(0)
        case .handles(_, let k):
            guard rest.count >= 4, rest.count % 2 == 0 else { throw .invalidPDU(opcode: opcode) }
            var handles: [UInt16] = []
            while !rest.isEmpty { handles.append(try ATTField.uint16(&rest, opcode)) }
            pdu[keyPath: k] = handles
        }
    }

    private static func uint16(_ rest: inout ArraySlice<UInt8>, _ opcode: UInt8) throws(ATTDecodeError) -> UInt16 {
        guard rest.count >= 2 else { throw .invalidPDU(opcode: opcode) }
        defer { rest = rest.dropFirst(2) }
        return ATTBytes.uint16(rest)
    }
}

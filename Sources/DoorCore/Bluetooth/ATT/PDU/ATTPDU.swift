/// One ATT PDU declared as data, as Bumble's att.py declares them: its opcode and its fields in
/// the order of the Core spec's format table (Vol 3 Part F 3.4). That one declaration both
/// decodes the PDU and encodes it, so a length rule or a field order lives in exactly one place.
public protocol ATTPDU: Equatable, Sendable {
    static var opcode: ATTOpcode { get }
    /// The fields after the opcode, in wire order.
    static var fields: [ATTField<Self>] { get }
    /// Every field at a placeholder value, for the decoder to fill in.
    init()
    /// The PDU in `pdu`, by its declaration unless the type reads it faster (`ATTWritePDU`).
    static func decode(_ pdu: [UInt8]) throws(ATTDecodeError) -> Self
}

extension ATTPDU {
    /// The PDU on the wire: the opcode, then each field.
    public var bytes: [UInt8] {
        var out = [Self.opcode.rawValue]
        for field in Self.fields { field.encode(self, into: &out) }
        return out
    }

    /// The PDU in `pdu` (its first byte is this type's opcode): every field read as declared,
    /// and nothing left over. Throws Invalid PDU for a wrong length, Invalid Handle for a bad
    /// handle range.
    public static func decode(_ pdu: [UInt8]) throws(ATTDecodeError) -> Self { try decodeByFields(pdu) }

    /// `decode` by the field table, whatever the type.
    public static func decodeByFields(_ pdu: [UInt8]) throws(ATTDecodeError) -> Self {
        var value = Self()
        var rest = pdu.dropFirst()
        for field in fields { try field.decode(into: &value, from: &rest, opcode: opcode.rawValue) }
        guard rest.isEmpty else { throw .invalidPDU(opcode: opcode.rawValue) }
        return value
    }
}

/// A write, Request or Command: a handle, then the value. Every phone command rides on one, so
/// it is read straight from the bytes, not through the field table's key paths (slow while the
/// cache is cold); the table still encodes it, and `ATTDecoderTests` holds the two readings equal.
public protocol ATTWritePDU: ATTPDU {
    var handle: UInt16 { get set }
    var value: [UInt8] { get set }
}

extension ATTWritePDU {
    public static func decode(_ pdu: [UInt8]) throws(ATTDecodeError) -> Self { try decode(pdu[...]) }

    /// The same from part of a read buffer, where a phone's write arrives: only the value is
    /// copied out.
    public static func decode(_ pdu: ArraySlice<UInt8>) throws(ATTDecodeError) -> Self {
        guard pdu.count >= 3 else { throw .invalidPDU(opcode: opcode.rawValue) }
        let start = pdu.startIndex
        var write = Self()
        write.handle = UInt16(pdu[start + 1]) | UInt16(pdu[start + 2]) << 8
        write.value = Array(pdu[(start + 3)...])
        return write
    }
}

/// A packet read in ratgdo's command layout: fixed = (command & 0xF00) << 24 | client id, and
/// data = byte2 << 24 | byte1 << 16 | nibble << 8 | (command & 0xFF), the parity nibble in
/// bits 12-15. Fixed's bits 36-39, which some senders set, are not part of the layout and are
/// not kept, so reading a foreign packet and building it again need not give the same bytes.
public struct SecPlus2Fields: Hashable, Sendable {
    public var command: SecPlus2Command
    /// 4 bits: the door state in a STATUS, the action in a LIGHT, LOCK or DOOR_ACTION.
    public var nibble: UInt8
    public var byte1: UInt8
    public var byte2: UInt8
    public var client: SecPlus2ClientID

    public init(command: SecPlus2Command, nibble: UInt8 = 0, byte1: UInt8 = 0, byte2: UInt8 = 0, client: SecPlus2ClientID) {
        self.command = command
        self.nibble = nibble
        self.byte1 = byte1
        self.byte2 = byte2
        self.client = client
    }

    /// The fields of a decoded packet; any packet has them.
    public init(_ packet: SecPlus2Packet) {
        // 4 bits and 8 bits always make a 12-bit code.
        command = SecPlus2Command(code: UInt16(truncatingIfNeeded: packet.fixed >> 24) & 0xF00 | UInt16(packet.data & 0xFF))!
        nibble = UInt8(packet.data >> 8 & 0xF)
        byte1 = UInt8(packet.data >> 16 & 0xFF)
        byte2 = UInt8(packet.data >> 24)
        client = SecPlus2ClientID(of: packet)
    }

    /// The packet to send with this rolling code. A DOOR_ACTION is refused here: the door moves
    /// only through `SecPlus2DoorMove`, so no caller can send a toggle, whose direction nobody chose.
    public func packet(rolling: UInt32) throws(SecPlus2BuildError) -> SecPlus2Packet {
        guard command != .doorAction else { throw .doorAction }
        return try anyPacket(rolling: rolling)
    }

    /// The packet for any command, DOOR_ACTION included: for `SecPlus2DoorMove` only.
    func anyPacket(rolling: UInt32) throws(SecPlus2BuildError) -> SecPlus2Packet {
        guard nibble < 16 else { throw .nibbleRange(nibble) }
        let fixed = UInt64(command.code & 0xF00) << 24 | UInt64(client.value)
        let data = UInt32(byte2) << 24 | UInt32(byte1) << 16 | UInt32(nibble) << 8 | UInt32(command.code & 0xFF)
        do {
            return try SecPlus2Packet(rolling: rolling, fixed: fixed, data: data)
        } catch {
            // The fixed code is at most 36 bits, so only the rolling code can be out of range.
            throw .rollingRange(rolling)
        }
    }
}

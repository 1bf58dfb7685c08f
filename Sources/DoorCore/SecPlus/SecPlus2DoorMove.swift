/// The only way garaged moves a Security+ 2.0 door: open, close or stop. There is no toggle, on
/// purpose: a toggle goes wherever the opener happens to think is the other way, and every press
/// garaged makes must name where the door is going, so the gate can refuse a press toward it.
public enum SecPlus2DoorMove: Hashable, Sendable, CaseIterable {
    case open
    case close
    case stop

    /// DOOR_ACTION's nibble for the move.
    var nibble: UInt8 {
        switch self {
        case .close: return 0
        case .open: return 1
        case .stop: return 3
        }
    }

    /// The wall button's press (byte1 1, byte2 1) and release (byte1 0, byte2 1), both with the same
    /// rolling code, as a wall panel sends them: the caller sends the press, the release about
    /// 150 ms later, and only then advances its rolling code.
    public func packets(client: SecPlus2ClientID, rolling: UInt32) throws(SecPlus2BuildError)
        -> (press: SecPlus2Packet, release: SecPlus2Packet) {
        let press = SecPlus2Fields(command: .doorAction, nibble: nibble, byte1: 1, byte2: 1, client: client)
        var release = press
        release.byte1 = 0
        return (try press.anyPacket(rolling: rolling), try release.anyPacket(rolling: rolling))
    }
}

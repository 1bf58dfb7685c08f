/// The kernel's management events that matter to a pairing agent, decoded from the control
/// channel's packets; anything else is `.other` and ignored.
public enum ManagementEvent: Equatable, Sendable {
    /// A command finished (Command Complete, or Command Status for a failure): MGMT_STATUS_*.
    case commandDone(opcode: UInt16, status: UInt8)
    /// An adapter appeared or went away: keys must be loaded again when it returns.
    case indexAdded, indexRemoved
    /// Passkey Entry: the kernel chose this passkey for the phone's user to type.
    case passkeyNotify(LEAddress, passkey: UInt32)
    /// The kernel asks whether to accept a pairing (Just Works or Numeric Comparison).
    case userConfirmRequest(LEAddress, value: UInt32)
    /// The kernel asks this side to type a passkey.
    case userPasskeyRequest(LEAddress)
    /// A pairing produced a long-term key; `store` when both sides asked for a bond.
    case newLongTermKey(LongTermKey, store: Bool)
    /// A pairing produced the phone's identity resolving key.
    case newIdentityResolvingKey(IdentityResolvingKey, store: Bool)
    /// A pairing failed (MGMT_STATUS_* reason).
    case authenticationFailed(LEAddress, status: UInt8)
    case other(code: UInt16)

    /// The event in one packet for adapter `index`, or nil when the packet is too short for
    /// what its header says (a kernel bug, never seen; dropped).
    public static func decode(_ packet: [UInt8]) -> (index: UInt16, event: ManagementEvent)? {
        guard packet.count >= 6 else { return nil }
        let code = ATTBytes.uint16(packet[0...1])
        let index = ATTBytes.uint16(packet[2...3])
        let length = Int(ATTBytes.uint16(packet[4...5]))
        guard packet.count >= 6 + length else { return nil }
        let p = packet[6..<(6 + length)]
        func u32(_ at: Int) -> UInt32 { (0..<4).reduce(UInt32(0)) { $0 | UInt32(p[p.startIndex + at + $1]) << (8 * UInt32($1)) } }
        let event: ManagementEvent?
        switch code {
        case 0x0001, 0x0002:
            event = p.count >= 3 ? .commandDone(opcode: ATTBytes.uint16(p), status: p[p.startIndex + 2]) : nil
        case 0x0004: event = .indexAdded
        case 0x0005: event = .indexRemoved
        case 0x000A:
            event = p.count >= 1 + LongTermKey.wireSize
                ? LongTermKey.decode(p.dropFirst()).map { .newLongTermKey($0, store: p.first != 0) } : nil
        case 0x000F:
            event = p.count >= 12 ? LEAddress.decode(p).map { .userConfirmRequest($0, value: u32(8)) } : nil
        case 0x0010: event = LEAddress.decode(p).map { .userPasskeyRequest($0) }
        case 0x0011:
            event = p.count >= 8 ? LEAddress.decode(p).map { .authenticationFailed($0, status: p[p.startIndex + 7]) } : nil
        case 0x0017:
            event = p.count >= 12 ? LEAddress.decode(p).map { .passkeyNotify($0, passkey: u32(7)) } : nil
        case 0x0018:
            // store_hint, the random address it was used under (6), then mgmt_irk_info.
            event = p.count >= 7 + IdentityResolvingKey.wireSize
                ? IdentityResolvingKey.decode(p.dropFirst(7)).map { .newIdentityResolvingKey($0, store: p.first != 0) } : nil
        default: event = .other(code: code)
        }
        return event.map { (index, $0) }
    }
}

/// The commands garaged sends the kernel's Bluetooth management interface (BlueZ
/// doc/mgmt-api.txt) to be the pairing agent and key store that bluetoothd otherwise is:
/// declared as data, encoded to the packet the control channel takes.
public enum ManagementCommand: Equatable, Sendable {
    /// Pairing requests that ask for a bond are answered only while this is on (the window).
    case setBondable(Bool)
    /// What this side can show or type: garaged is DisplayOnly, so Passkey Entry has the Pi
    /// show the passkey (in `garage-pins pair`) and the phone type it.
    case setIOCapability(IOCapability)
    /// LE Secure Connections on (not "only": Linux 6.1 drops every LE link in that mode).
    case setSecureConnections(Bool)
    /// Replaces every long-term key the kernel holds with these (the bonded phones').
    case loadLongTermKeys([LongTermKey])
    /// Replaces every identity resolving key the kernel holds with these.
    case loadIdentityResolvingKeys([IdentityResolvingKey])
    /// Forgets a device's keys and drops its link: unpairing, and refusing a pairing made
    /// outside the rules (legacy, Just Works, outside the window).
    case unpairDevice(LEAddress, disconnect: Bool)
    /// Drops a link.
    case disconnect(LEAddress)
    /// Declines a Numeric Comparison or Just Works confirmation.
    case userConfirmNegativeReply(LEAddress)
    /// Declines a request to type a passkey (garaged has no keyboard).
    case userPasskeyNegativeReply(LEAddress)

    public enum IOCapability: UInt8, Sendable {
        case displayOnly = 0x00, displayYesNo = 0x01, keyboardOnly = 0x02, noInputNoOutput = 0x03, keyboardDisplay = 0x04
    }

    /// The MGMT_OP_* code.
    public var opcode: UInt16 {
        switch self {
        case .setBondable: return 0x0009
        case .loadLongTermKeys: return 0x0013
        case .disconnect: return 0x0014
        case .setIOCapability: return 0x0018
        case .unpairDevice: return 0x001B
        case .userConfirmNegativeReply: return 0x001D
        case .userPasskeyNegativeReply: return 0x0021
        case .setSecureConnections: return 0x002D
        case .loadIdentityResolvingKeys: return 0x0030
        }
    }

    var parameters: [UInt8] {
        switch self {
        case .setBondable(let on), .setSecureConnections(let on): return [on ? 1 : 0]
        case .setIOCapability(let c): return [c.rawValue]
        case .loadLongTermKeys(let keys): return ATTBytes.uint16(UInt16(keys.count)) + keys.flatMap(\.wire)
        case .loadIdentityResolvingKeys(let keys): return ATTBytes.uint16(UInt16(keys.count)) + keys.flatMap(\.wire)
        case .unpairDevice(let a, let disconnect): return a.wire + [disconnect ? 1 : 0]
        case .disconnect(let a), .userConfirmNegativeReply(let a), .userPasskeyNegativeReply(let a): return a.wire
        }
    }

    /// The packet for adapter `index` (hciN's N): opcode, index, length (each LE 16), parameters.
    public func packet(index: UInt16) -> [UInt8] {
        let p = parameters
        return ATTBytes.uint16(opcode) + ATTBytes.uint16(index) + ATTBytes.uint16(UInt16(p.count)) + p
    }
}

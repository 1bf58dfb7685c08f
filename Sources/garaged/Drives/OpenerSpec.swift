/// The `--opener` value: how garaged speaks to an opener on its own wire instead of pressing a
/// relay. `secplus2:DEVICE` (Security+ 2.0, a yellow learn button) or `secplus1:DEVICE`
/// (Security+ 1.0, a purple, red or orange one), each on a serial device (or a pty).
enum OpenerSpec: Hashable, Sendable, CustomStringConvertible {
    case secPlus2(device: String)
    case secPlus1(device: String)

    /// What the setting accepts, for its help and its errors.
    static let accepted = "secplus2:DEVICE (Security+ 2.0, a yellow learn button: 9600 8N1) or secplus1:DEVICE (Security+ 1.0, a purple, red or orange learn button: 1200 8E1, a PL011 UART such as /dev/ttyAMA0, never the mini UART ttyS0), e.g. secplus2:/dev/ttyAMA0"

    /// Parses the spec; the error says what is accepted.
    static func parse(_ text: String) throws(SettingError) -> OpenerSpec? {
        for (prefix, make) in [("secplus2:", OpenerSpec.secPlus2), ("secplus1:", OpenerSpec.secPlus1)] where text.hasPrefix(prefix) {
            let device = String(text.dropFirst(prefix.count))
            guard !device.isEmpty else { throw SettingError("\(prefix) needs the serial device, e.g. \(prefix)/dev/ttyAMA0") }
            return make(device)
        }
        throw SettingError("'\(text)' is not an opener garaged speaks to; it accepts \(accepted)")
    }

    /// The serial device the opener's wire is on.
    var device: String {
        switch self {
        case .secPlus2(let device), .secPlus1(let device): return device
        }
    }

    /// The status record's `opener.protocol`.
    var protocolName: String {
        switch self {
        case .secPlus2: return "secplus2"
        case .secPlus1: return "secplus1"
        }
    }

    /// The opener for people, in refusals and the status: "the Security+ 2.0 opener on /dev/ttyAMA0".
    var name: String {
        switch self {
        case .secPlus2(let device): return "the Security+ 2.0 opener on \(device)"
        case .secPlus1(let device): return "the Security+ 1.0 opener on \(device)"
        }
    }

    var description: String { "\(protocolName):\(device)" }
}

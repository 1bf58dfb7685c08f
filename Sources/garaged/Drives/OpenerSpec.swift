import DoorCore

/// The `--opener` value: how garaged speaks to an opener on its own wire instead of pressing a
/// relay. `secplus2:DEVICE` (Security+ 2.0, a yellow learn button) or `secplus1:DEVICE`
/// (Security+ 1.0, a purple, red or orange one), each on a serial device (or a pty); or
/// `auto:DEVICE`, which finds which of the two the wire speaks (`OpenerSearch`).
enum OpenerSpec: Hashable, Sendable, CustomStringConvertible {
    case secPlus2(device: String)
    case secPlus1(device: String)
    case auto(device: String)

    /// What the setting accepts, for its help and its errors.
    static let accepted = "secplus2:DEVICE (Security+ 2.0, a yellow learn button: 9600 8N1), secplus1:DEVICE (Security+ 1.0, a purple, red or orange learn button: 1200 8E1, a PL011 UART, never the mini UART ttyS0) or auto:DEVICE (garaged finds which of the two, and keeps what it found; a PL011 UART as for secplus1); on a Raspberry Pi the UART on pins 8 and 10: /dev/serial0 on a Pi 3, 4, 400 or Zero 2 W with enable_uart=1 in config.txt, where /dev/ttyAMA0 is Bluetooth's unless dtoverlay=miniuart-bt moves it (Security+ 1.0 needs that overlay); /dev/ttyAMA0 on a Pi 5 with dtparam=uart0=on; see docs/openers.md"

    /// Parses the spec; the error says what is accepted.
    static func parse(_ text: String) throws(SettingError) -> OpenerSpec? {
        for (prefix, make) in [("secplus2:", OpenerSpec.secPlus2), ("secplus1:", OpenerSpec.secPlus1), ("auto:", OpenerSpec.auto)] where text.hasPrefix(prefix) {
            let device = String(text.dropFirst(prefix.count))
            guard !device.isEmpty else {
                throw SettingError("\(prefix) needs the serial device, e.g. \(prefix)/dev/serial0 on a Pi 3, 4, 400 or Zero 2 W, \(prefix)/dev/ttyAMA0 on a Pi 5")
            }
            return make(device)
        }
        throw SettingError("'\(text)' is not an opener garaged speaks to; it accepts \(accepted)")
    }

    /// The serial device the opener's wire is on.
    var device: String {
        switch self {
        case .secPlus2(let device), .secPlus1(let device), .auto(let device): return device
        }
    }

    /// The status record's `opener.protocol`.
    var protocolName: String { kind.id }

    /// Its protocol, and so what it has (`DoorCapabilities`); `auto`: what both have in common.
    var kind: OpenerKind {
        switch self {
        case .secPlus2: return .secPlus2
        case .secPlus1: return .secPlus1
        case .auto: return .auto
        }
    }

    /// The opener for people, in refusals and the status: "the Security+ 2.0 opener on /dev/ttyAMA0".
    var name: String {
        if case .auto = self { return "the Security+ opener on \(device) (found by auto)" }
        return "the \(kind.title) opener on \(device)"
    }

    var description: String { "\(protocolName):\(device)" }
}

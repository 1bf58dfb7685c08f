import DoorCore

/// The `--opener` value: how garaged speaks to an opener on its own wire instead of pressing a
/// relay. Today one kind: `secplus2:DEVICE`, Security+ 2.0 on a serial device (or a pty).
enum OpenerSpec: Hashable, Sendable, CustomStringConvertible {
    case secPlus2(device: String)

    /// What the setting accepts, for its help and its errors.
    static let accepted = "secplus2:DEVICE (Security+ 2.0 on a serial device; on a Raspberry Pi the UART on pins 8 and 10: /dev/serial0 on a Pi 3, 4, 400 or Zero 2 W with enable_uart=1 in config.txt, where /dev/ttyAMA0 is Bluetooth's unless dtoverlay=miniuart-bt moves it; /dev/ttyAMA0 on a Pi 5 with dtparam=uart0=on; see docs/openers.md)"

    /// Parses the spec; the error says what is accepted.
    static func parse(_ text: String) throws(SettingError) -> OpenerSpec? {
        guard text.hasPrefix("secplus2:") else {
            throw SettingError("'\(text)' is not an opener garaged speaks to; it accepts \(accepted)")
        }
        let device = String(text.dropFirst("secplus2:".count))
        guard !device.isEmpty else { throw SettingError("secplus2: needs the serial device, e.g. secplus2:/dev/serial0 on a Pi 3, 4, 400 or Zero 2 W, secplus2:/dev/ttyAMA0 on a Pi 5") }
        return .secPlus2(device: device)
    }

    /// The opener for people, in refusals and the status: "the Security+ 2.0 opener on /dev/ttyAMA0".
    var name: String {
        switch self {
        case .secPlus2(let device): return "the Security+ 2.0 opener on \(device)"
        }
    }

    /// Its protocol, and so what it has (`DoorCapabilities`).
    var kind: OpenerKind {
        switch self {
        case .secPlus2: return .secPlus2
        }
    }

    /// Its serial device.
    var device: String {
        switch self {
        case .secPlus2(let device): return device
        }
    }

    var description: String {
        switch self {
        case .secPlus2(let device): return "secplus2:\(device)"
        }
    }
}

import DoorCore

/// The `--relay` value: `sim:FILE` for the simulated line, or `CHIP:LINE` for libgpiod.
enum RelaySpec: Hashable, CustomStringConvertible {
    case simulated(path: String)
    case gpio(chip: String, line: String)

    static let defaultValue = "sim:/run/garaged/relay.trace"

    /// Parses the spec; the error says what a valid one looks like.
    static func parse(_ text: String) throws(SettingError) -> RelaySpec {
        if text.hasPrefix("sim:") {
            let path = String(text.dropFirst(4))
            guard !path.isEmpty else {
                throw SettingError("sim: needs a trace file, e.g. sim:/tmp/relay.trace")
            }
            return .simulated(path: path)
        }
        guard let colon = text.lastIndex(of: ":"), colon != text.startIndex,
              text.index(after: colon) != text.endIndex else {
            throw SettingError("'\(text)' is not CHIP:LINE (e.g. gpiochip0:17 or gpiochip0:GPIO17) or sim:FILE")
        }
        return .gpio(chip: String(text[..<colon]), line: String(text[text.index(after: colon)...]))
    }

    var description: String {
        switch self {
        case .simulated(let path): return "sim:\(path)"
        case .gpio(let chip, let line): return "\(chip):\(line)"
        }
    }

    /// Claims the line, inactive, for the daemon's life.
    func open(activeLow: Bool, clock: any MonotonicClock) throws(RelayError) -> any RelayLine {
        switch self {
        case .simulated(let path): return try SimulatedRelay(path: path, clock: clock)
        case .gpio(let chip, let line): return try GpiodRelay(chip: chip, line: line, activeLow: activeLow)
        }
    }
}

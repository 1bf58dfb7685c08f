/// The level a Raspberry Pi's GPIO sits at from power-up until garaged claims it: a relay on a
/// line that is high through boot clicks (and may move the door) before any software runs.
public enum PowerUpLevel: String, Sendable, Equatable {
    /// Pulled down at reset (BCM GPIO 9–27): an active-high relay stays off through boot.
    case low
    /// Pulled up at reset (BCM GPIO 0–8): only right for an active-low board.
    case high

    /// The BCM2835/6/7 and BCM2711 reset pulls (Pi 1 B+ to Pi 4, the Zeros), for a line on
    /// the Pi's main GPIO chip; nil for any other chip (a Pi 5's RP1 among them: its pulls are
    /// not documented the same way, so garaged does not guess).
    public static func raspberryPi(chipLabel: String, offset: Int) -> PowerUpLevel? {
        guard ["pinctrl-bcm2835", "pinctrl-bcm2711"].contains(chipLabel) else { return nil }
        switch offset {
        case 0...8: return .high
        case 9...27: return .low
        default: return nil
        }
    }

    /// What it means for an output driven through `activeLow` or not: nil when the line rests
    /// where the output is off, or the advice when it rests where the output is on.
    public static func advice(_ level: PowerUpLevel, gpio: Int, activeLow: Bool, role: String) -> String? {
        switch (level, activeLow) {
        case (.low, false), (.high, true):
            return nil
        case (.high, false):
            return "GPIO\(gpio) is pulled high from power-up until garaged starts, so an active-high \(role) is ON while the Pi boots; use one of GPIO9 to GPIO27 (the guide uses GPIO17 for the relay), or a pull-down stronger than the Pi's (10 kΩ, see wiring/)"
        case (.low, true):
            return "GPIO\(gpio) is pulled low from power-up until garaged starts, so an active-low \(role) is ON while the Pi boots unless a pull-up to 3.3 V holds it off (10 kΩ, see wiring/relay-board-active-low.svg)"
        }
    }
}

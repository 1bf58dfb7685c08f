/// An opener's backup battery, as the opener says it: charging, or full.
public enum OpenerBattery: String, Equatable, Sendable, CaseIterable {
    case charging
    case full

    /// Security+ 2.0's BATTERY (byte1): 6 charging, 8 full; nil for 0 (ratgdo's "unknown", what
    /// an opener says before it knows, or without a battery) and for any value nobody has named.
    public init?(secPlus2 byte1: UInt8) {
        switch byte1 {
        case 6: self = .charging
        case 8: self = .full
        default: return nil
        }
    }
}

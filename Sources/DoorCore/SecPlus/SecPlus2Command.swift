/// A Security+ 2.0 wall-wire command code: 12 bits, whose high nibble rides in fixed's bits 32-35
/// and low byte in data's low byte. A struct, not an enum, because openers send codes nobody has
/// named yet, and those must still read back (as `SecPlus2Message.other`).
public struct SecPlus2Command: Hashable, Sendable, CustomStringConvertible {
    /// The 12-bit code, as ratgdo and argilo/secplus write it (0x081 is STATUS).
    public let code: UInt16

    /// A code of 12 bits, or nil.
    public init?(code: UInt16) {
        guard code < 0x1000 else { return nil }
        self.code = code
    }

    private init(_ code: UInt16) { self.code = code }

    /// Asks the opener for a STATUS.
    public static let getStatus = SecPlus2Command(0x080)
    /// The opener's door, light, lock, obstruction and learn state: the answer to GET_STATUS, and
    /// sent unasked on every change.
    public static let status = SecPlus2Command(0x081)
    /// Seen around an obstruction; what it means is not settled.
    public static let obstruction1 = SecPlus2Command(0x084)
    /// Seen around an obstruction; what it means is not settled.
    public static let obstruction2 = SecPlus2Command(0x085)
    /// Asks the opener for its backup battery's state (BATTERY); a wall panel asks about once a
    /// day, with nibble 5 (homekit-ratgdo32's GetBattery).
    public static let getBattery = SecPlus2Command(0x09C)
    /// The backup battery's state in byte1: 6 charging, 8 full (0 not known).
    public static let battery = SecPlus2Command(0x09D)
    /// The learn mode of a wall control's learn button.
    public static let learn = SecPlus2Command(0x181)
    /// The lock that disables remotes and keypads: nibble 0 off, 1 on, 2 toggle.
    public static let lock = SecPlus2Command(0x18C)
    /// The wall button: nibble 0 close, 1 open, 2 toggle, 3 stop; byte1 1 pressed, 0 released.
    public static let doorAction = SecPlus2Command(0x280)
    /// The opener's light: nibble 0 off, 1 on, 2 toggle.
    public static let light = SecPlus2Command(0x281)
    /// The motor started.
    public static let motorOn = SecPlus2Command(0x284)
    /// The opener's motion sensor saw something.
    public static let motion = SecPlus2Command(0x285)
    /// A liveness check; the opener answers PING_RESP.
    public static let ping = SecPlus2Command(0x392)
    /// The answer to PING.
    public static let pingResponse = SecPlus2Command(0x393)
    /// Asks the opener how many times the door has opened.
    public static let getOpenings = SecPlus2Command(0x48B)
    /// The opening count, byte1 << 8 | byte2.
    public static let openings = SecPlus2Command(0x48C)
    /// Sets the opener's own time-to-close, seconds = byte1 << 8 | byte2.
    public static let setTTC = SecPlus2Command(0x402)
    /// The opener's own time-to-close, seconds = byte1 << 8 | byte2.
    public static let ttc = SecPlus2Command(0x40A)

    /// Every named command with ratgdo's name for it, for logs.
    public static let named: [(command: SecPlus2Command, name: String)] = [
        (getStatus, "GET_STATUS"), (status, "STATUS"), (obstruction1, "OBST_1"), (obstruction2, "OBST_2"),
        (getBattery, "GET_BATTERY"), (battery, "BATTERY"),
        (learn, "LEARN"), (lock, "LOCK"), (doorAction, "DOOR_ACTION"), (light, "LIGHT"), (motorOn, "MOTOR_ON"),
        (motion, "MOTION"), (ping, "PING"), (pingResponse, "PING_RESP"), (getOpenings, "GET_OPENINGS"),
        (openings, "OPENINGS"), (setTTC, "SET_TTC"), (ttc, "TTC"),
    ]

    /// ratgdo's name for the command, or nil for a code nobody has named.
    public var name: String? { Self.named.first { $0.command == self }?.name }

    /// "STATUS (0x081)", or "0x123" for an unnamed code.
    public var description: String {
        let hex = "0x" + SecPlus2Hex.digits(UInt64(code), count: 3)
        return name.map { "\($0) (\(hex))" } ?? hex
    }
}

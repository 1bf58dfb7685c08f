/// One opener's conversation on its own wire, pure, as `ATTServer` and `HAPSession` are: bytes
/// and instants in; the bytes due, when to wake and what the door is told out. The loop's thread
/// runs it through a serial drive that only opens the device, reads, writes (after a break where
/// the wire wants one) and says what it wrote, so an output counts as done only once written.
/// Each Chamberlain wire (Security+ 2.0: `SecPlus2Session`) is one of these.
public protocol OpenerSession {
    /// The device's path, for what the log and the refusals say.
    var device: String { get }
    /// How the device's line is set up.
    var line: OpenerLine { get }
    /// When `due` must be called next, even if no byte comes.
    var nextWake: Instant? { get }
    /// Whether a press was written and its release (or its confirmation) is still to come.
    var releasePending: Bool { get }
    /// Takes a permit to write before `deadline` or never; nil when taken, otherwise why not.
    mutating func carryOut(_ permit: PressPermit, deadline: Instant, at now: Instant) -> String?
    /// The light, the remotes' lock, the warning's flashing; false when it cannot be asked now.
    mutating func ask(_ setting: OpenerSetting, at now: Instant) -> Bool
    /// Bytes read from the wire at `now`.
    mutating func received(_ bytes: [UInt8], at now: Instant) -> [OpenerEvent]
    /// What time brought at `now`, and the bytes to write now, if any (then `wrote` next).
    mutating func due(at now: Instant) -> (events: [OpenerEvent], write: [UInt8]?)
    /// The bytes `due` gave were written at `now` (`unsent` of them still to leave), or not.
    mutating func wrote(ok: Bool, unsent: Int, error: String?, at now: Instant) -> [OpenerEvent]
    /// The device failed; nothing is written until `deviceBack`.
    mutating func deviceGone(_ why: String, at now: Instant) -> [OpenerEvent]
    /// The device is open again.
    mutating func deviceBack(at now: Instant) -> [OpenerEvent]
}

/// How an opener's serial line is set up: its speed, parity (even, or none), one stop bit, 8 data
/// bits, and the break before each write where the wire wants one.
public struct OpenerLine: Equatable, Sendable {
    public var baud: Int
    public var evenParity: Bool
    public var breakBefore: Duration?

    public init(baud: Int, evenParity: Bool, breakBefore: Duration?) {
        self.baud = baud
        self.evenParity = evenParity
        self.breakBefore = breakBefore
    }
}

/// What an opener's session tells the loop about its door, in order.
public enum OpenerEvent: Equatable, Sendable {
    /// The opener's STATUS: where the door is, its photo-eyes, its light (while the light
    /// flashes as the warning, the light it will be left at) and the lock of its remotes.
    case status(OpenerDoorState, obstructed: Bool, light: Bool, locked: Bool)
    /// The opener answers again, or went silent (or cannot be spoken to: `why` says).
    case answering(Bool)
    case openings(Int)
    case motion
    /// Another wall panel's button press went over the wire (not garaged's): a move that
    /// follows is "the wall button"'s; a move with nothing on the wire, a remote's or keypad's.
    case wallButton
    /// The opener's backup battery, as it said it; nil: it said it does not know.
    case battery(OpenerBattery?)
    /// The permit's press is over: its release was written (or could not be); the door may
    /// decide its next press.
    case pressOver(PressPermit)
    /// The permit's press never reached the wire (the line stayed busy past its deadline, the
    /// device failed): nothing moved because of it.
    case pressNotSent(PressPermit, why: String)
    /// The warning's first flash was written at this instant: the warning counts from here.
    case warningShown(at: Instant)
    /// The warning's first flash could not be written in time: nobody was warned.
    case warningFailed(why: String)
    /// garaged cannot speak to the opener, and why (its kept codes are damaged, its device is
    /// gone, no rolling code can be reserved): every press is refused saying so. Nil: it can again.
    case off(why: String?)
    /// An `auto` door's opener was found (or is searched for again): what it is and how known.
    case identified(OpenerIdentity)
    /// A line for the log.
    case note(OpenerNote)
}

/// A log line the session asks for: its level, its event and its fields, in order.
public struct OpenerNote: Equatable, Sendable {
    public enum Level: Sendable { case info, warning, error }
    public let level: Level
    public let event: String
    public let fields: [Field]

    /// One `key=value` of the line.
    public struct Field: Equatable, Sendable {
        public let key: String
        public let value: String
    }

    public init(_ level: Level, _ event: String, _ fields: [(String, String)]) {
        self.level = level
        self.event = event
        self.fields = fields.map { Field(key: $0.0, value: $0.1) }
    }

    /// The fields as the logger takes them.
    public var pairs: [(String, String)] { fields.map { ($0.key, $0.value) } }
}

/// A setting of the opener's own that garaged can change on its wire.
public enum OpenerSetting: Equatable, Sendable {
    case light(Bool)
    case remotesLocked(Bool)
    /// The warning on the opener's own light: flashing (at least once a second) until it is
    /// turned off, when the light is left as last asked.
    case flashing(Bool)
}

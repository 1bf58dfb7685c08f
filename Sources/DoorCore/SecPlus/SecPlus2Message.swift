/// What a packet on the wall wire means, read from its fields. Reading only: what garaged sends
/// is built from `SecPlus2Fields` and, for the door, `SecPlus2DoorMove`.
public enum SecPlus2Message: Hashable, Sendable {
    case getStatus
    /// The opener's state. `obstructed` is byte1 bit 6 clear (set means the beam is clear, as both
    /// ratgdo and argilo/secplus read it); light is byte2 bit 1, locked bit 0, learning bit 5.
    case status(door: OpenerDoorState, light: Bool, locked: Bool, obstructed: Bool, learning: Bool)
    case obstruction1
    case obstruction2
    case getBattery
    /// The backup battery's state, BATTERY's byte1 as sent (`OpenerBattery` reads it).
    case battery(UInt8)
    /// The learn button; ratgdo sends nibble 0 then 1 to start learning.
    case learn(nibble: UInt8)
    case lock(SecPlus2SwitchAction)
    /// A wall button's press (or release) seen on the wire, another panel's or our own echo.
    case doorAction(SecPlus2ObservedDoorAction, pressed: Bool)
    case light(SecPlus2SwitchAction)
    case motorOn
    case motion
    case ping
    case pingResponse
    case getOpenings
    case openings(Int)
    case setTTC(seconds: Int)
    case ttc(seconds: Int)
    /// A command with no meaning here (yet).
    case other(SecPlus2Command)

    /// The meaning of a packet's fields.
    public init(_ f: SecPlus2Fields) {
        let word = Int(f.byte1) << 8 | Int(f.byte2)
        switch f.command {
        case .getStatus: self = .getStatus
        case .status:
            self = .status(door: OpenerDoorState(nibble: f.nibble), light: f.byte2 & 0x02 != 0, locked: f.byte2 & 0x01 != 0,
                           obstructed: f.byte1 & 0x40 == 0, learning: f.byte2 & 0x20 != 0)
        case .obstruction1: self = .obstruction1
        case .obstruction2: self = .obstruction2
        case .getBattery: self = .getBattery
        case .battery: self = .battery(f.byte1)
        case .learn: self = .learn(nibble: f.nibble)
        case .lock: self = .lock(SecPlus2SwitchAction(nibble: f.nibble))
        case .doorAction: self = .doorAction(SecPlus2ObservedDoorAction(nibble: f.nibble), pressed: f.byte1 & 1 != 0)
        case .light: self = .light(SecPlus2SwitchAction(nibble: f.nibble))
        case .motorOn: self = .motorOn
        case .motion: self = .motion
        case .ping: self = .ping
        case .pingResponse: self = .pingResponse
        case .getOpenings: self = .getOpenings
        case .openings: self = .openings(word)
        case .setTTC: self = .setTTC(seconds: word)
        case .ttc: self = .ttc(seconds: word)
        default: self = .other(f.command)
        }
    }

    /// The meaning of a decoded packet.
    public init(_ packet: SecPlus2Packet) { self.init(SecPlus2Fields(packet)) }
}

/// What a LIGHT or LOCK packet asks of its switch (nibble 0 off, 1 on, 2 toggle).
public enum SecPlus2SwitchAction: Hashable, Sendable {
    case off
    case on
    case toggle
    /// A nibble with no known meaning.
    case other(UInt8)

    public init(nibble: UInt8) {
        switch nibble {
        case 0: self = .off
        case 1: self = .on
        case 2: self = .toggle
        default: self = .other(nibble)
        }
    }
}

/// What a DOOR_ACTION seen on the wire asks (nibble 0 close, 1 open, 2 toggle, 3 stop). For
/// reading what wall panels do; garaged sends only `SecPlus2DoorMove`, which has no toggle.
public enum SecPlus2ObservedDoorAction: Hashable, Sendable {
    case close
    case open
    case toggle
    case stop
    /// A nibble with no known meaning.
    case other(UInt8)

    public init(nibble: UInt8) {
        switch nibble {
        case 0: self = .close
        case 1: self = .open
        case 2: self = .toggle
        case 3: self = .stop
        default: self = .other(nibble)
        }
    }
}

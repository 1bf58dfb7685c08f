/// One door as every audience is told it (phones, `status --follow`, systemd's status line,
/// Home Assistant's retained values, HomeKit): its part of the `StatusSnapshot` the core
/// produces once per turn of the daemon's loop. It holds instants, not countdowns, so it changes
/// when something happens, not every second; the renderers (`record`, `closesIn`) turn them
/// into seconds when they are read. What every door shares (the lockouts, the channels) is in
/// the snapshot once, not here.
public struct DoorStatus: Equatable, Sendable {
    public var position: DoorPosition
    /// Where the door was last going or last was (`.open` or `.closed`): a STOPPED door's target.
    public var heading: DoorPosition = .open
    /// What the door has (`Door.capabilities`): how its position is known, its light, its
    /// opener's parts, its photo-eye; every view shows only what this says it has.
    public var capabilities: DoorCapabilities
    /// What each switch reads (debounced), nil for a switch the door does not have.
    public var closedSwitch: Bool?
    public var openSwitch: Bool?
    /// The photo-eye's beam is broken now (from its first break until it stayed clear for the
    /// debounce); nil when no photo-eye is wired.
    public var obstructed: Bool? = nil
    public var fault: DoorFault?
    /// A close that did not reach CLOSED, kept until the door is next seen CLOSED.
    public var closeFailed = false
    public var warningOn: Bool
    /// The light, nil when none is wired.
    public var light: Bool?
    public var holdUntil: Instant?
    /// The closing interval in force; nil: auto-close off.
    public var autoCloseInterval: Duration?
    /// When the door closes by itself (auto-close and its warning, or a warned close), if it will.
    public var closesAt: Instant?
    /// Since when the door has not been CLOSED; nil when it is.
    public var openSince: Instant?
    /// Who last opened the door with a press of garaged's: a label, `slot N`, `master PIN`, or
    /// the channel (`mqtt`); never a PIN. Nil until someone did since the daemon started.
    public var lastOpener: String?
    /// What the door's opener says besides the door's state, for a door an opener reports.
    public var opener: OpenerStatus? = nil
    /// Which door (`Door.index`), its name in the config (`[door NAME]`, nil for the one door
    /// of a config without sections) and its name for people.
    public var index = 0
    public var id: String?
    public var name: String?

    /// Whole seconds until the door closes by itself, nil when it will not.
    public func closesIn(at now: Instant) -> Int? { closesAt.map { max(0, ($0 - now).secondsRoundedUp) } }

    /// The door's own members of its status record (what it is, how it is known, what is
    /// pending); `StatusSnapshot.record` adds the lockouts and the channels.
    func members(at now: Instant) -> (head: [(String, JSONValue)], tail: [(String, JSONValue)]) {
        func number(_ n: Int?) -> JSONValue { n.map { .number(Int64($0)) } ?? .null }
        func flag(_ b: Bool?) -> JSONValue { b.map { .bool($0) } ?? .null }
        let hold: Int? = holdUntil.map { max(0, ($0 - now).secondsRoundedUp) }
        let openFor: Int? = openSince.map { Int(max(0, (now - $0).nanoseconds / 1_000_000_000)) }
        var head: [(String, JSONValue)] = []
        if let id {
            head.append(("id", .string(id)))
            head.append(("name", .string(name ?? id)))
            head.append(("number", .number(Int64(index + 1))))
        }
        head.append(("door", .string(position.rawValue)))
        head.append(("auto_close_s", number(closesIn(at: now))))
        var tail: [(String, JSONValue)] = []
        tail.append(("mode", .string(capabilities.position.mode)))
        tail.append(("parts", .object(capabilities.parts.map { ($0.0.rawValue, .string($0.1)) })))
        var sensors: [(String, JSONValue)] = [("closed", flag(closedSwitch)), ("open", flag(openSwitch))]
        if let obstructed { sensors.append(("obstruction", .bool(obstructed))) }
        tail.append(("sensors", .object(sensors)))
        tail.append(("fault", fault.map { .string($0.rawValue) } ?? .null))
        tail.append(("auto_close_interval_s", number(autoCloseInterval.map { $0.secondsRoundedUp })))
        tail.append(("hold_s", number(hold)))
        tail.append(("warning", .bool(warningOn)))
        tail.append(("light", flag(light)))
        tail.append(("open_s", number(openFor)))
        tail.append(("last_opened_by", lastOpener.map { .string($0) } ?? .null))
        if let opener { tail.append(("opener", opener.record(capabilities))) }
        return (head, tail)
    }

    /// What phones are pushed when the door's state changes (`S <STATE> [<s>]`, as the `S` reply).
    public func push(at now: Instant) -> Reply { .status(position, autoCloseIn: closesIn(at: now)) }
}

/// What a door's opener on its own wire says besides where the door is (its `opener` object in
/// the status record): how it is spoken to, whether it answers, and, where the opener has them,
/// the lock of its remotes and keypads, its motion sensor, its count of openings and its backup
/// battery.
public struct OpenerStatus: Equatable, Sendable {
    /// `secplus2` or `secplus1`, and the serial device.
    public var protocolName: String
    public var device: String
    /// `connected` (it answers and has said where the door is: the gate's opener rule lets
    /// presses through), `connecting` (not yet, at start or back from silent: presses are
    /// refused as for a silent opener) or `silent` (asked and not answered). `Door.openerReady`.
    public var state: String
    /// Nil until the opener said (or when it has no such lock).
    public var remotesLocked: Bool?
    /// Nil for an opener without a motion sensor.
    public var motion: Bool?
    /// Nil until the opener said (or when it counts none).
    public var openings: Int?
    /// Its backup battery; nil until it said charging or full (or when it has none).
    public var battery: OpenerBattery?
    /// An `auto` door's: how its protocol was found, or what the search tries now
    /// (`OpenerIdentity.found`); nil for a door whose protocol is set.
    public var found: String?

    public init(protocolName: String, device: String, state: String, remotesLocked: Bool?, motion: Bool?, openings: Int?,
                battery: OpenerBattery? = nil, found: String? = nil) {
        self.found = found
        self.protocolName = protocolName
        self.device = device
        self.state = state
        self.remotesLocked = remotesLocked
        self.motion = motion
        self.openings = openings
        self.battery = battery
    }

    /// Its object in the status record: a part the door lacks (`has`) is not in it at all; one it
    /// has and the opener has not said yet is `null`.
    func record(_ has: DoorCapabilities) -> JSONValue {
        var members: [(String, JSONValue)] = [("protocol", .string(protocolName)), ("device", .string(device)), ("state", .string(state))]
        if let found { members.append(("found", .string(found))) }
        if has.remotesLock { members.append(("remotes_locked", remotesLocked.map { .bool($0) } ?? .null)) }
        if has.motion { members.append(("motion", .bool(motion ?? false))) }
        if has.openings { members.append(("openings", openings.map { .number(Int64($0)) } ?? .null)) }
        // Absent until the opener says charging or full: HomeKit and Home Assistant say nothing either.
        if has.battery, let battery { members.append(("battery", .string(battery.rawValue))) }
        return .object(members)
    }
}

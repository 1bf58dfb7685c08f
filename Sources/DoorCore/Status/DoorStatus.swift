/// The door as every audience is told it (phones, `status --follow`, systemd's status line,
/// Home Assistant's retained values, and whatever front end comes next): one value the core
/// produces once per turn of the daemon's loop. The loop compares it with the last one and hands
/// a change to each subscriber, and a subscriber that (re)connects gets the whole value. It holds
/// instants, not countdowns, so it changes when something happens, not every second; the
/// renderers (`record`, `closesIn`) turn them into seconds when they are read.
public struct DoorStatus: Equatable, Sendable {
    /// One throttle channel's state.
    public struct Lockout: Equatable, Sendable {
        public var channel: Throttle.Channel
        /// Until when it is locked; nil when it is not (now).
        public var lockedUntil: Instant?
        /// Wrong PINs not yet forgiven.
        public var failures: Int
    }

    public var position: DoorPosition
    /// How the position is known: which switches there are.
    public var sensing: DoorSensing
    /// What each switch reads (debounced), nil for a switch the door does not have.
    public var closedSwitch: Bool?
    public var openSwitch: Bool?
    /// The photo-eye's beam is broken now (from its first break until it stayed clear for the
    /// debounce); nil when no photo-eye is wired.
    public var obstructed: Bool? = nil
    public var fault: DoorFault?
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
    public var lockouts: [Lockout]
    /// Who last opened the door with a press of garaged's: a label, `slot N`, `master PIN`, or
    /// the channel (`mqtt`); never a PIN. Nil until someone did since the daemon started.
    public var lastOpener: String?
    /// How the other channels stand (MQTT, Bluetooth), as the daemon last heard from them.
    public var channels: [ChannelStatus]
    /// Which door (`Door.index`), its name in the config (`[door NAME]`, nil for the one door
    /// of a config without sections) and its name for people.
    public var index = 0
    public var id: String?
    public var name: String?

    /// Whole seconds until the door closes by itself, nil when it will not.
    public func closesIn(at now: Instant) -> Int? { closesAt.map { max(0, ($0 - now).secondsRoundedUp) } }

    /// The locked channels and the seconds each is still locked, at `now`.
    public func locked(at now: Instant) -> [(channel: Throttle.Channel, seconds: Int)] {
        lockouts.compactMap { l in l.lockedUntil.flatMap { $0 > now ? (l.channel, ($0 - now).secondsRoundedUp) : nil } }
    }

    /// The record `Lstatus` answers and status followers get: `locked_s` and `failures` are
    /// the worst channel's, `lockout` has each channel's; the door's part says how it is known
    /// (`mode`), what its switches read, and what is pending; then each channel's own object.
    public func record(at now: Instant) -> JSONValue {
        func number(_ n: Int?) -> JSONValue { n.map { .number(Int64($0)) } ?? .null }
        func flag(_ b: Bool?) -> JSONValue { b.map { .bool($0) } ?? .null }
        let lockedNow = locked(at: now)
        let channelLocks: [(String, JSONValue)] = lockouts.map { l in
            let s = lockedNow.first { $0.channel == l.channel }?.seconds ?? 0
            return (l.channel.rawValue, .object([("locked_s", .number(Int64(s))), ("failures", .number(Int64(l.failures)))]))
        }
        let worstLock = lockedNow.map(\.seconds).max() ?? 0
        let worstFailures = lockouts.map(\.failures).max() ?? 0
        let hold: Int? = holdUntil.map { max(0, ($0 - now).secondsRoundedUp) }
        let openFor: Int? = openSince.map { Int(max(0, (now - $0).nanoseconds / 1_000_000_000)) }
        var members: [(String, JSONValue)] = []
        if let id {
            members.append(("id", .string(id)))
            members.append(("name", .string(name ?? id)))
            members.append(("number", .number(Int64(index + 1))))
        }
        members.append(("door", .string(position.rawValue)))
        members.append(("auto_close_s", number(closesIn(at: now))))
        members.append(("locked_s", .number(Int64(worstLock))))
        members.append(("failures", .number(Int64(worstFailures))))
        members.append(("lockout", .object(channelLocks)))
        members.append(("mode", .string(sensing.believed ? "believed" : "sensed")))
        var sensors: [(String, JSONValue)] = [("closed", flag(closedSwitch)), ("open", flag(openSwitch))]
        if let obstructed { sensors.append(("obstruction", .bool(obstructed))) }
        members.append(("sensors", .object(sensors)))
        members.append(("fault", fault.map { .string($0.rawValue) } ?? .null))
        members.append(("auto_close_interval_s", number(autoCloseInterval.map { $0.secondsRoundedUp })))
        members.append(("hold_s", number(hold)))
        members.append(("warning", .bool(warningOn)))
        members.append(("light", flag(light)))
        members.append(("open_s", number(openFor)))
        members.append(("last_opened_by", lastOpener.map { .string($0) } ?? .null))
        for c in channels { members.append((c.name, c.record)) }
        return .object(members)
    }

    /// What phones are pushed when the door's state changes (`S <STATE> [<s>]`, as the `S` reply).
    public func push(at now: Instant) -> Reply { .status(position, autoCloseIn: closesIn(at: now)) }
}

/// How one of the daemon's channels stands, as it reported it: its object in the status record
/// (`mqtt`: state, broker, since, last error, commands) and its part of systemd's status line.
public struct ChannelStatus: Equatable, Sendable {
    /// `mqtt`, `bluetooth`: the key in the status record and in the status line.
    public var name: String
    public var record: JSONValue
    /// For systemd's status line ("connected to mqtt://localhost:1883").
    public var line: String

    public init(name: String, record: JSONValue, line: String) {
        self.name = name
        self.record = record
        self.line = line
    }
}

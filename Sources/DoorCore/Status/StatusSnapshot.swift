/// Everything every audience is told, produced once per turn of the daemon's loop: each door's
/// status, once what the doors share (the PIN lockouts, how the channels stand), and the doors'
/// notices for phones. The loop compares it with the last one, once, and hands both to every
/// subscriber; each view (`phonePushes`, `followerRecords`, `HomeAssistant.retained(from:to:at:)`,
/// `HAPDatabase.events(from:to:)`, `serviceLine(since:)`) is a pure function of them.
public struct StatusSnapshot: Equatable, Sendable {
    /// One throttle channel's state.
    public struct Lockout: Equatable, Sendable {
        public var channel: Throttle.Channel
        /// Until when it is locked; nil when it is not (now).
        public var lockedUntil: Instant?
        /// Wrong PINs not yet forgiven.
        public var failures: Int

        public init(channel: Throttle.Channel, lockedUntil: Instant?, failures: Int) {
            self.channel = channel
            self.lockedUntil = lockedUntil
            self.failures = failures
        }
    }

    /// Every door's status, by `Door.index`.
    public var doors: [DoorStatus]
    public var lockouts: [Lockout]
    /// How the other channels stand (MQTT, Bluetooth), as the daemon last heard from them.
    public var channels: [ChannelStatus]
    /// The doors' notices for phones (warnings, faults, "left open"), numbered.
    public var notices: PhoneNotices

    public init(doors: [DoorStatus], lockouts: [Lockout] = [], channels: [ChannelStatus] = [], notices: PhoneNotices = PhoneNotices()) {
        self.doors = doors
        self.lockouts = lockouts
        self.channels = channels
        self.notices = notices
    }

    /// The locked channels and the seconds each is still locked, at `now`.
    public func locked(at now: Instant) -> [(channel: Throttle.Channel, seconds: Int)] {
        lockouts.compactMap { l in l.lockedUntil.flatMap { $0 > now ? (l.channel, ($0 - now).secondsRoundedUp) : nil } }
    }

    /// The record `Lstatus` answers and status followers get for door `index`: `locked_s` and
    /// `failures` are the worst channel's, `lockout` has each channel's; the door's part says how
    /// it is known (`mode`), what its switches read, and what is pending; then each channel's
    /// own object.
    public func record(door index: Int, at now: Instant) -> JSONValue {
        let lockedNow = locked(at: now)
        let channelLocks: [(String, JSONValue)] = lockouts.map { l in
            let s = lockedNow.first { $0.channel == l.channel }?.seconds ?? 0
            return (l.channel.rawValue, .object([("locked_s", .number(Int64(s))), ("failures", .number(Int64(l.failures)))]))
        }
        let worstLock = lockedNow.map(\.seconds).max() ?? 0
        let worstFailures = lockouts.map(\.failures).max() ?? 0
        let door = doors[index].members(at: now)
        var members = door.head
        members.append(("locked_s", .number(Int64(worstLock))))
        members.append(("failures", .number(Int64(worstFailures))))
        members.append(("lockout", .object(channelLocks)))
        members += door.tail
        for c in channels { members.append((c.name, c.record)) }
        return .object(members)
    }

    /// The doors whose part differs from `old`'s (every door when there is no `old`); a change
    /// of what they share (a lockout, a channel) is in every door's record, so it changes them all.
    public func changedDoors(since old: StatusSnapshot?) -> [Int] {
        guard let old, old.doors.count == doors.count, old.lockouts == lockouts, old.channels == channels else {
            return Array(doors.indices)
        }
        return doors.indices.filter { doors[$0] != old.doors[$0] }
    }
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

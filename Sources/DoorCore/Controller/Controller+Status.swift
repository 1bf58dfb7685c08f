/// The status the local socket sends for `Lstatus` and to status followers.
extension Controller {
    /// `locked_s` and `failures` are the worst channel's; `lockout` has each channel's. The
    /// door's part says how it is known (`mode`), what its switches read, and what is pending.
    public func statusRecord(at now: Instant) -> JSONValue {
        var worstLock = 0, worstFailures = 0
        var channels: [(String, JSONValue)] = []
        for channel in Throttle.Channel.allCases {
            let locked = throttle.remainingLock(channel, at: now)?.secondsRoundedUp ?? 0
            let failures = throttle.budget(channel, at: now).failures
            worstLock = max(worstLock, locked)
            worstFailures = max(worstFailures, failures)
            channels.append((channel.rawValue, .object([("locked_s", .number(Int64(locked))),
                                                        ("failures", .number(Int64(failures)))])))
        }
        func number(_ n: Int?) -> JSONValue { n.map { .number(Int64($0)) } ?? .null }
        func flag(_ b: Bool?) -> JSONValue { b.map { .bool($0) } ?? .null }
        return .object([
            ("door", .string(door.position.rawValue)),
            ("auto_close_s", number(door.closesIn(at: now))),
            ("locked_s", .number(Int64(worstLock))),
            ("failures", .number(Int64(worstFailures))),
            ("lockout", .object(channels)),
            ("mode", .string(door.sensing.believed ? "believed" : "sensed")),
            ("sensors", .object([("closed", flag(door.isActive(.closed))), ("open", flag(door.isActive(.open)))])),
            ("fault", door.fault.map { .string($0.rawValue) } ?? .null),
            ("auto_close_interval_s", number(door.autoCloseInterval.map { $0.secondsRoundedUp })),
            ("hold_s", number(door.holdLeft(at: now))),
            ("warning", .bool(door.warningOn)),
            ("light", door.timing.light == nil ? .null : .bool(door.lightOn)),
            ("open_s", number(door.openFor(at: now))),
        ] + channelStatus)
    }
}

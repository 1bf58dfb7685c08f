/// The door's status, as one value for every audience (`DoorStatus`).
extension Controller {
    /// The status at `now`, with the channels' states as the daemon last heard them.
    public func status(at now: Instant, channels: [ChannelStatus] = []) -> DoorStatus {
        DoorStatus(position: door.position, sensing: door.sensing, closedSwitch: door.isActive(.closed),
                   openSwitch: door.isActive(.open), fault: door.fault, warningOn: door.warningOn,
                   light: door.timing.light == nil ? nil : door.lightOn, holdUntil: door.holdUntil,
                   autoCloseInterval: door.autoCloseInterval, closesAt: door.closesAt(at: now), openSince: door.openSince,
                   lockouts: Throttle.Channel.allCases.map { c in
                       DoorStatus.Lockout(channel: c, lockedUntil: throttle.remainingLock(c, at: now).map { now + $0 },
                                          failures: throttle.budget(c, at: now).failures)
                   },
                   lastOpener: lastOpener, channels: channels)
    }
}

/// The door's status, as one value for every audience (`DoorStatus`).
extension Controller {
    /// Door `index`'s status at `now`, with the channels' states as the daemon last heard them.
    public func status(_ index: Int = 0, at now: Instant, channels: [ChannelStatus] = []) -> DoorStatus {
        let door = doors[index].door
        return DoorStatus(position: door.position, sensing: door.sensing, closedSwitch: door.isActive(.closed),
                   openSwitch: door.isActive(.open), obstructed: door.isActive(.obstruction), fault: door.fault, warningOn: door.warningOn,
                   light: door.timing.light == nil ? nil : door.lightOn, holdUntil: door.holdUntil,
                   autoCloseInterval: door.autoCloseInterval, closesAt: door.closesAt(at: now), openSince: door.openSince,
                   lockouts: Throttle.Channel.allCases.map { c in
                       DoorStatus.Lockout(channel: c, lockedUntil: throttle.remainingLock(c, at: now).map { now + $0 },
                                          failures: throttle.budget(c, at: now).failures)
                   },
                   lastOpener: doors[index].lastOpener, channels: channels,
                          index: index, id: doors[index].id, name: doors[index].name)
    }
}

extension Controller {
    /// Whether the PIN in `slot` may see door `index`'s status: only a door it may use
    /// (`DoorAccess`), so the gate's guest learns nothing of the garage; the master every door.
    public func mayWatch(_ index: Int, slot: Int) -> Bool { access.allows(slot, door: doors[index].id) }

    /// Every door's status at `now`, the first first.
    public func statuses(at now: Instant, channels: [ChannelStatus] = []) -> [DoorStatus] {
        doors.indices.map { status($0, at: now, channels: channels) }
    }
}

/// The doors' status, as one value for every audience (`StatusSnapshot`).
extension Controller {
    /// Door `index`'s status at `now`.
    public func status(_ index: Int = 0, at now: Instant) -> DoorStatus {
        let door = doors[index].door
        return DoorStatus(position: door.position, heading: door.heading, capabilities: door.capabilities,
                          closedSwitch: door.isActive(.closed), openSwitch: door.isActive(.open),
                          obstructed: door.isActive(.obstruction), fault: door.fault, closeFailed: door.closeFailed,
                          warningOn: door.warningOn, light: door.capabilities.light != nil ? door.lightOn : nil,
                          holdUntil: door.holdUntil, autoCloseInterval: door.autoCloseInterval,
                          closesAt: door.closesAt(at: now), openSince: door.openSince,
                          lastOpener: doors[index].lastOpener, opener: door.openerStatus(at: now),
                          index: index, id: doors[index].id, name: doors[index].name)
    }

    /// Every door's status at `now`, the PIN lockouts once, the channels' states as the daemon
    /// last heard them, and the doors' notices for phones.
    public func snapshot(at now: Instant, channels: [ChannelStatus] = []) -> StatusSnapshot {
        StatusSnapshot(doors: doors.indices.map { status($0, at: now) },
                       lockouts: Throttle.Channel.allCases.map { c in
                           StatusSnapshot.Lockout(channel: c, lockedUntil: throttle.remainingLock(c, at: now).map { now + $0 },
                                                  failures: throttle.budget(c, at: now).failures)
                       },
                       channels: channels, notices: notices)
    }

    /// Whether the PIN in `slot` may see door `index`'s status: only a door it may use
    /// (`DoorAccess`), so the gate's guest learns nothing of the garage; the master every door.
    public func mayWatch(_ index: Int, slot: Int) -> Bool { access.allows(slot, door: doors[index].id) }
}

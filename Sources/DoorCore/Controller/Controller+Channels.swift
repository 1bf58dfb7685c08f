/// Door commands from a channel that vouches for its senders itself, with no PIN: Home
/// Assistant over MQTT, where the broker's ACL decides who may publish to the command topic
/// (and commands are off unless the owner turns them on).
extension Controller {
    /// What such a channel may ask.
    public enum ChannelCommand: String, Sendable, CaseIterable {
        case open = "OPEN", close = "CLOSE", stop = "STOP"
    }

    /// Judged by the door's rules like any request (and refused when stale); recorded with the
    /// channel as its source.
    public mutating func command(_ command: ChannelCommand, for index: Int = 0, from source: RequestSource, at now: Instant,
                                 wall: Int64 = 0, age: Duration? = nil) -> Outcome {
        var outcome = Outcome()
        outcome.doorIndex = index
        report(doors[index].door.advance(to: now), wall: wall, into: &outcome)
        outcome.command = logName(command.rawValue.lowercased(), index)
        let kind: EventRecord.Kind = command == .open ? .open : command == .close ? .close : .halt
        if refuseIfStale(age, &outcome) {
            outcome.records += tagged([EventRecord(time: wall, kind: .stale, source: source.description, detail: command.rawValue.lowercased())], index)
            return outcome
        }
        let reply = press(source, at: now, wall: wall, &outcome) { door, mayWarn in
            switch command {
            case .open: return door.request(open: true, at: now, age: age, mayWarn: mayWarn)
            case .close: return door.request(open: false, at: now, age: age, mayWarn: mayWarn)
            case .stop: return door.stop(at: now, age: age, mayWarn: mayWarn)
            }
        }
        outcome.replies = [reply]
        noteOpener(outcome, name: source.description)
        let detail = outcome.presses.isEmpty ? reply.text : "pressed"
        outcome.records += tagged([EventRecord(time: wall, kind: kind, source: source.description, detail: detail)], index)
        return outcome
    }

    /// HomeKit's identify: the door's light, or the warning, for a moment (`Door.identify`).
    /// It spends the source's warning allowance (3 a minute; every unpaired peer shares one), so
    /// nobody sounds the garage at will: past it, `ERR RATE` and nothing shown.
    public mutating func identify(_ index: Int = 0, from source: RequestSource, at now: Instant, wall: Int64 = 0) -> Outcome {
        var outcome = Outcome()
        outcome.doorIndex = index
        outcome.command = logName("identify", index)
        guard rates.allows(.warning, for: source.summaryKey, at: now) else {
            outcome.replies = [.error(.rate)]
            outcome.refusal = "more than \(RequestRates.warnings.capacity) warnings or identifies from \(source.summaryKey) within a minute"
            return outcome
        }
        let decision = doors[index].door.identify(at: now)
        outcome.nothingToShow = decision.reply == .error(.command)
        if decision.events.contains(where: { if case .warning(on: true) = $0 { return true }; if case .light(on: true) = $0 { return true }; return false }) {
            _ = rates.spend(.warning, for: source.summaryKey, at: now)
        }
        outcome.replies = [apply(decision, wall: wall, &outcome)]
        return outcome
    }

    /// Switches a door's light for a channel (HomeKit's Lightbulb, Home Assistant's light), as
    /// `L=` does for a PIN (`switchLight`).
    public mutating func light(on: Bool, for index: Int = 0, from source: RequestSource, at now: Instant, wall: Int64 = 0) -> Outcome {
        var outcome = Outcome()
        outcome.doorIndex = index
        report(doors[index].door.advance(to: now), wall: wall, into: &outcome)
        outcome.command = logName(on ? "light on" : "light off", index)
        outcome.replies = [switchLight(on, from: source, at: now, wall: wall, &outcome)]
        return outcome
    }

    /// The one judgement of a light switched on or off, for the PIN line (`L=`) and the
    /// channels (HomeKit's Lightbulb, Home Assistant's light) alike. On a door whose warning is
    /// its opener's light (`DoorTiming.warningFlashesLight`) a change spends `source`'s
    /// allowance (`RequestRates.lights`, as many as warnings), so nobody flashes the warning at
    /// will; past it, ERR RATE saying why. The light as it already is spends nothing.
    mutating func switchLight(_ on: Bool, from source: RequestSource, at now: Instant, wall: Int64,
                              _ outcome: inout Outcome) -> Reply {
        let i = outcome.doorIndex, key = source.summaryKey
        let limited = doors[i].door.timing.warningFlashesLight
        let decision = doors[i].door.setLight(on: on, at: now, mayChange: !limited || rates.allows(.light, for: key, at: now))
        if limited, decision.events.contains(.light(on: on)) { _ = rates.spend(.light, for: key, at: now) }
        if decision.reply == .error(.rate) {
            outcome.refusal = "more than \(RequestRates.lights.capacity) light changes from \(key) within a minute: this door's warning "
                + "is its opener's light flashing, so the light is not switched at will; ask again in "
                + "\(rates.wait(.light, for: key, at: now).secondsRoundedUp) s"
        }
        return apply(decision, wall: wall, &outcome)
    }

    /// Locks (true) or unlocks the opener's remotes and keypads of door `index` for a channel
    /// (HomeKit's lock, Home Assistant's), judged as `Lremotes` is (`askRemotes`).
    public mutating func lockRemotes(_ locked: Bool, for index: Int = 0, from source: RequestSource, at now: Instant,
                                     wall: Int64 = 0) -> Outcome {
        var outcome = Outcome()
        outcome.doorIndex = index
        outcome.command = logName(locked ? "remotes lock" : "remotes unlock", index)
        outcome.replies = [askRemotes(locked, from: source, slot: nil, at: now, wall: wall, &outcome)]
        return outcome
    }

    /// The one judgement of a lock or unlock of the opener's remotes, for the PIN line
    /// (`Lremotes`, `slot` its PIN's) and the channels alike: the door's word (ERR CMD without
    /// an opener, ERR FAULT while it is silent, OK with nothing asked when nothing would
    /// change); a change spends `source`'s allowance (`RequestRates.remoteLocks`), since each is
    /// kept in the history; a refusal says why; and the history's record, named by `source`.
    mutating func askRemotes(_ locked: Bool, from source: RequestSource, slot: Int?, at now: Instant, wall: Int64,
                             _ outcome: inout Outcome) -> Reply {
        let i = outcome.doorIndex, key = source.summaryKey
        let decision = doors[i].door.lockRemotes(locked, at: now, mayChange: rates.allows(.remotes, for: key, at: now))
        let changed = decision.events.contains(.remotesLock(locked))
        if changed { _ = rates.spend(.remotes, for: key, at: now) }
        switch decision.reply {
        case .error(.command):
            outcome.refusal = "the door has no opener whose remotes garaged could lock (only a door with opener = secplus2:DEVICE in its config has one)"
        case .error(.fault):
            outcome.refusal = "the door's opener does not answer; check its wiring, then ask again"
        case .error(.rate):
            let allowance = RequestRates.remoteLocks
            outcome.refusal = "more than \(allowance.capacity) changes of the remotes' lock from \(key) (one more is allowed every "
                + "\(allowance.refill.secondsRoundedUp) s, as each is kept in the history); ask again in "
                + "\(rates.wait(.remotes, for: key, at: now).secondsRoundedUp) s"
        default:
            break
        }
        let reply = apply(decision, wall: wall, &outcome)
        outcome.records += tagged([EventRecord(time: wall, kind: .remotes, source: source.description, slot: slot, label: label(of: slot),
                                               detail: Controller.remotesDetail(locked, reply, changed: changed))], i)
        return reply
    }

    /// The `remotes` record's detail, the same whoever asked: what was asked and what came of
    /// it. Only a change is kept (`EventRecord.remotesChanged`); "OK: already locked" is an attempt.
    static func remotesDetail(_ locked: Bool, _ reply: Reply, changed: Bool) -> String {
        guard reply == .ok else { return "\(reply.text): \(locked ? "lock" : "unlock")" }
        return changed ? EventRecord.remotesChanged(locked) : "OK: already \(locked ? "locked" : "unlocked")"
    }
}

/// What any channel can ask again and again (the light, the lock of an opener's remotes),
/// judged in one place for the PIN line (`L=`, `Lremotes`) and the channels (HomeKit, Home
/// Assistant): a repeat that changes nothing asks nothing and is an attempt in the history; a
/// change spends the asking channel's allowance where repeating it costs the household
/// something (`RequestRates`); every refusal says why.
extension Controller {
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
            outcome.refusal = "the door has no opener whose remotes garaged could lock (only a door with opener = secplus2:DEVICE or secplus1:DEVICE in its config has one)"
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

/// Door commands from a channel that vouches for its senders itself, with no PIN: Home
/// Assistant over MQTT, where the broker's ACL decides who may publish to the command topic
/// (and commands are off unless the owner turns them on).
extension Controller {
    /// What such a channel may ask.
    public enum ChannelCommand: String, Sendable, CaseIterable {
        case open = "OPEN", close = "CLOSE", stop = "STOP"
    }

    /// Judged by the door's rules like any request (and refused when stale); recorded with the
    /// channel as its source. Judged and accounted at once (`judge` of a `.move`, then
    /// `account`), for the tests; the daemon carries out presses in between.
    public mutating func command(_ command: ChannelCommand, for index: Int = 0, from source: RequestSource, at now: Instant,
                                 wall: Int64 = 0, age: Duration? = nil) -> Outcome {
        var judged = Judged(source, wall: wall, labelsBefore: labels, line: false)
        judgeMove(command, for: index, from: source, at: now, wall: wall, age: age, &judged.outcome)
        return account(judged)
    }

    mutating func judgeMove(_ command: ChannelCommand, for index: Int, from source: RequestSource, at now: Instant,
                   wall: Int64, age: Duration?, _ outcome: inout Outcome) {
        outcome.doorIndex = index
        report(doors[index].door.advance(to: now), wall: wall, into: &outcome)
        outcome.command = logName(command.rawValue.lowercased(), index)
        let kind: EventRecord.Kind = command == .open ? .open : command == .close ? .close : .halt
        if refuseIfStale(age, &outcome) {
            outcome.ownRecords += tagged([EventRecord(time: wall, kind: .stale, source: source.description, detail: command.rawValue.lowercased())], index)
            return
        }
        let reply = press(source, at: now, wall: wall, &outcome) { door, mayWarn in
            switch command {
            case .open: return door.request(open: true, at: now, age: age, mayWarn: mayWarn)
            case .close: return door.request(open: false, at: now, age: age, mayWarn: mayWarn)
            case .stop: return door.stop(at: now, age: age, mayWarn: mayWarn)
            }
        }
        outcome.replies = [reply]
        outcome.opener = source.description
        let detail = outcome.presses.isEmpty ? reply.text : "pressed"
        outcome.ownRecords += tagged([EventRecord(time: wall, kind: kind, source: source.description, detail: detail)], index)
    }

    /// HomeKit's identify: the door's light, or the warning, for a moment (`Door.identify`).
    /// It spends the source's warning allowance (3 a minute; every unpaired peer shares one), so
    /// nobody sounds the garage at will: past it, `ERR RATE` and nothing shown.
    public mutating func identify(_ index: Int = 0, from source: RequestSource, at now: Instant, wall: Int64 = 0) -> Outcome {
        var judged = Judged(source, wall: wall, labelsBefore: labels, line: false)
        judgeIdentify(index, from: source, at: now, wall: wall, &judged.outcome)
        return account(judged)
    }

    mutating func judgeIdentify(_ index: Int, from source: RequestSource, at now: Instant, wall: Int64, _ outcome: inout Outcome) {
        outcome.doorIndex = index
        outcome.command = logName("identify", index)
        guard rates.allows(.warning, for: source.summaryKey, at: now) else {
            outcome.replies = [.error(.rate)]
            outcome.refusal = "more than \(RequestRates.warnings.capacity) warnings or identifies from \(source.summaryKey) within a minute"
            return
        }
        let decision = doors[index].door.identify(at: now)
        outcome.nothingToShow = decision.reply == .error(.command)
        if decision.events.contains(where: { if case .warning(on: true) = $0 { return true }; if case .light(on: true) = $0 { return true }; return false }) {
            _ = rates.spend(.warning, for: source.summaryKey, at: now)
        }
        outcome.replies = [apply(decision, wall: wall, &outcome)]
    }

    /// Switches a door's light for a channel (HomeKit's Lightbulb, Home Assistant's light), as
    /// `L=` does for a PIN (`switchLight`).
    public mutating func light(on: Bool, for index: Int = 0, from source: RequestSource, at now: Instant, wall: Int64 = 0) -> Outcome {
        var judged = Judged(source, wall: wall, labelsBefore: labels, line: false)
        judgeLight(on: on, for: index, from: source, at: now, wall: wall, &judged.outcome)
        return account(judged)
    }

    mutating func judgeLight(on: Bool, for index: Int, from source: RequestSource, at now: Instant, wall: Int64, _ outcome: inout Outcome) {
        outcome.doorIndex = index
        report(doors[index].door.advance(to: now), wall: wall, into: &outcome)
        outcome.command = logName(on ? "light on" : "light off", index)
        outcome.replies = [switchLight(on, from: source, at: now, wall: wall, &outcome)]
    }

    /// Locks (true) or unlocks the opener's remotes and keypads of door `index` for a channel
    /// (HomeKit's lock, Home Assistant's), judged as `Lremotes` is (`askRemotes`).
    public mutating func lockRemotes(_ locked: Bool, for index: Int = 0, from source: RequestSource, at now: Instant,
                                     wall: Int64 = 0) -> Outcome {
        var judged = Judged(source, wall: wall, labelsBefore: labels, line: false)
        judgeRemotes(locked, for: index, from: source, at: now, wall: wall, &judged.outcome)
        return account(judged)
    }

    mutating func judgeRemotes(_ locked: Bool, for index: Int, from source: RequestSource, at now: Instant, wall: Int64,
                      _ outcome: inout Outcome) {
        outcome.doorIndex = index
        outcome.command = logName(locked ? "remotes lock" : "remotes unlock", index)
        outcome.replies = [askRemotes(locked, from: source, slot: nil, at: now, wall: wall, &outcome)]
    }
}

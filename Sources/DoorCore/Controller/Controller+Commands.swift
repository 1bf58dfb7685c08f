/// What each command does once its PIN was accepted.
extension Controller {
    mutating func execute(_ command: Command, from source: RequestSource, at now: Instant, wall: Int64, age: Duration?,
                          _ outcome: inout Outcome) -> [Reply] {
        switch command {
        case .open, .close:
            return [pressDoor(open: command == .open, from: source, at: now, wall: wall, age: age, &outcome)]
        default:
            return manage(command, from: source, at: now, wall: wall, age: age, &outcome)
        }
    }

    /// An open or a close: the door's gate decides the press.
    private mutating func pressDoor(open: Bool, from source: RequestSource, at now: Instant, wall: Int64, age: Duration?,
                                    _ outcome: inout Outcome) -> Reply {
        press(source, at: now, wall: wall, &outcome) { door, mayWarn in
            door.request(open: open, at: now, age: age, mayWarn: mayWarn)
        }
    }

    /// Every command but an open or a close, out of line: the press path stays a few lines
    /// of code that a cold request reads together.
    @inline(never)
    private mutating func manage(_ command: Command, from source: RequestSource, at now: Instant, wall: Int64,
                                 age: Duration?, _ outcome: inout Outcome) -> [Reply] {
        switch command {
        case .open, .close:
            // `execute` takes these inline; should one come here, it is judged the same way.
            return [pressDoor(open: command == .open, from: source, at: now, wall: wall, age: age, &outcome)]
        case .hold(let minutes):
            guard rates.spend(.hold, for: source.summaryKey, at: now) else {
                outcome.refusal = "more than \(RequestRates.holds.capacity) hold changes from \(source.summaryKey) within a minute; wait a minute"
                return [.error(.rate)]
            }
            return [apply(doors[outcome.doorIndex].door.hold(minutes: minutes, at: now), wall: wall, &outcome)]
        case .light(let on):
            return [switchLight(on, from: source, at: now, wall: wall, &outcome)]
        case .closeAfter(let seconds):
            do { try doors[outcome.doorIndex].intervalStore?.save(seconds) } catch {
                outcome.storeError = error.description
                return [.error(.store)]
            }
            doors[outcome.doorIndex].door.setAutoClose(seconds == 0 ? nil : .seconds(seconds), at: now)
            return [.ok]
        case .status:
            // Read in place: `let door = doors[i].door` would copy the whole door.
            return [.status(doors[outcome.doorIndex].door.position, autoCloseIn: doors[outcome.doorIndex].door.closesIn(at: now))]
        case .list:
            let entries = table.entries
            return entries.map { Reply.entry(slot: $0.slot, pin: $0.pin) } + [.listed(count: entries.count)]
        case .add(let pin):
            return add(pin, label: nil, storeError: &outcome.storeError)
        case .edit(let slot, let pin):
            return change(storeError: &outcome.storeError) { table throws(ErrorCode) in try table.edit(slot: slot, to: pin); return .ok }
        case .delete(let slot):
            let replies = change(storeError: &outcome.storeError) { table throws(ErrorCode) in try table.delete(slot: slot); return .ok }
            if replies == [.ok], labels[slot] != nil {
                // Best effort: a label left on a free slot is never shown, and the next add
                // into that slot rewrites the labels first.
                var copy = labels
                copy.set(nil, for: slot)
                try? labelStore?.save(copy)
                labels = copy
            }
            if replies == [.ok], access[slot] != nil {
                // The same for a limit: never applied to the next PIN in the slot (the
                // controller holds the pruned value whatever the file says).
                var copy = access
                copy.set(nil, for: slot)
                try? accessStore?.save(copy)
                access = copy
            }
            return replies
        case .local(.remotes(let locked)):
            // Judged and recorded as a channel's lock is, the record naming the PIN's slot.
            return [askRemotes(locked, from: source, slot: outcome.slot, at: now, wall: wall, &outcome)]
        case .local(let local):
            return execute(local, at: now, &outcome)
        }
    }

    /// A request that may press: the door decides through its gate, with whether `source` may
    /// still start the warning; a warning it did start is spent from the source's allowance.
    mutating func press(_ source: RequestSource, at now: Instant, wall: Int64, _ outcome: inout Outcome,
                        _ ask: (inout Door, Bool) -> Door.Decision) -> Reply {
        // Only a door that may need the warning asks the channel's allowance (a lookup, and the
        // channel's key, saved on the common press: no warning output, or a door at CLOSED).
        let i = outcome.doorIndex
        let mayWarn = doors[i].door.timing.warning == nil || doors[i].door.position == .closed
            || rates.allows(.warning, for: source.summaryKey, at: now)
        let decision = ask(&doors[outcome.doorIndex].door, mayWarn)
        if decision.events.contains(where: { if case .pressWarned = $0 { return true } else { return false } }) {
            _ = rates.spend(.warning, for: source.summaryKey, at: now)
        }
        if decision.reply == .error(.rate) { explainTheRate(source, &outcome) }
        return apply(decision, wall: wall, &outcome)
    }

    /// Why a press was refused by its channel's rate, in words: out of line, off the press path.
    @inline(never)
    private func explainTheRate(_ source: RequestSource, _ outcome: inout Outcome) {
        outcome.refusal = "more than \(RequestRates.warnings.capacity) warnings started from \(source.summaryKey) within a minute; wait a minute"
    }

    /// Carries a door decision into the outcome, with its reason when it was refused or did
    /// nothing; returns its reply.
    mutating func apply(_ decision: Door.Decision, wall: Int64, _ outcome: inout Outcome) -> Reply {
        report(decision.events, wall: wall, byRequest: true, into: &outcome)
        if decision.refusal != nil || decision.because != nil { outcome.refusal = decision.words }
        return decision.reply
    }

    private mutating func execute(_ command: LocalCommand, at now: Instant, _ outcome: inout Outcome) -> [Reply] {
        switch command {
        case .list:
            let records = table.entries.map { e -> Reply in
                var m: [(String, JSONValue)] = [("slot", .number(Int64(e.slot))), ("pin", .string(e.pin.string))]
                if let l = labels[e.slot] { m.append(("label", .string(l))) }
                if let d = access[e.slot] { m.append(("doors", .array(d.map { .string($0) }))) }
                return .record(.object(m))
            }
            return records + [.listed(count: records.count)]
        case .add(let pin, let label):
            return add(pin, label: label, storeError: &outcome.storeError)
        case .label(let slot, let name):
            guard slot >= 1, slot < table.capacity, table.slots[slot] != nil else { return [.error(.slot)] }
            var copy = labels
            copy.set(name, for: slot)
            do { try labelStore?.save(copy) } catch {
                outcome.storeError = error.description
                return [.error(.store)]
            }
            labels = copy
            return [.ok]
        case .doors(let slot, let names):
            guard slot >= 1, slot < table.capacity, table.slots[slot] != nil else { return [.error(.slot)] }
            guard !access.unreadable else {
                outcome.storeError = "the door access file could not be read at start; fix or delete it, then restart garaged"
                return [.error(.store)]
            }
            if let unknown = names?.first(where: { name in !doors.contains { $0.id == name } }) {
                outcome.refusal = "there is no door \(unknown) (the doors: \(doors.compactMap(\.id).joined(separator: ", ")))"
                return [.error(.door)]
            }
            var copy = access
            copy.set(names, for: slot)
            do { try accessStore?.save(copy) } catch {
                outcome.storeError = error.description
                return [.error(.store)]
            }
            access = copy
            return [.ok]
        case .status:
            outcome.query = .status
            return []
        case .log(let since):
            outcome.query = .log(since: since)
            return []
        case .follow(let topic, let since):
            outcome.query = .follow(topic, since: since)
            return []
        case .unlock(let channel):
            throttle.clear(channel)
            return [.ok]
        case .pair(let request):
            outcome.query = .pair(request)
            return []
        case .phones:
            outcome.query = .phones
            return []
        case .unpair(let label):
            outcome.query = .unpair(label)
            return []
        case .homekit(let verb):
            outcome.query = .homekit(verb)
            return []
        case .remotes:
            // `manage` takes it, with its door and time.
            return [.error(.command)]
        }
    }
}

/// The book's rxCallback, grown into the one place that decides: a request, time passing, a
/// limit switch or the relay's release goes in; an `Outcome` comes out with the replies, what
/// the door does, what the history records and what phones are told. It owns the table, the
/// door and the throttle and is driven by one thread (the daemon's loop), so it needs no
/// locks; every input carries the time it is judged at (monotonic for the door, wall-clock
/// milliseconds for the history).
public struct Controller: Sendable {
    public internal(set) var table: PinTable
    /// The doors, the first first: the book's `O=1` and `S` act on it.
    public internal(set) var doors: [DoorUnit]
    public internal(set) var throttle: Throttle
    /// Names of used slots; labels of free slots are never kept.
    public internal(set) var labels: Labels
    /// How often each channel may start the warning or change a hold.
    public internal(set) var rates = RequestRates()
    /// Which doors each limited PIN may use (with several doors).
    public internal(set) var access: DoorAccess
    /// The doors' notices for phones (warnings, faults, "left open"), which the snapshot carries.
    public internal(set) var notices = PhoneNotices()
    let store: any PinTableSaving
    let labelStore: (any LabelsSaving)?
    let accessStore: (any DoorAccessSaving)?

    /// A controller of one door.
    public init(table: PinTable, door: Door, throttle: Throttle = Throttle(),
                store: any PinTableSaving, labels: Labels = Labels(),
                labelStore: (any LabelsSaving)? = nil, intervalStore: (any ClosingIntervalSaving)? = nil,
                doorStateStore: (any DoorStateSaving)? = nil, keptCloseFailed: Bool = false) {
        self.init(table: table, doors: [DoorUnit(door: door, intervalStore: intervalStore, doorStateStore: doorStateStore,
                                                 keptCloseFailed: keptCloseFailed)],
                  throttle: throttle, store: store, labels: labels, labelStore: labelStore)
    }

    /// A controller of several doors, each `Door.index` its place in `doors`.
    public init(table: PinTable, doors: [DoorUnit], throttle: Throttle = Throttle(), store: any PinTableSaving,
                labels: Labels = Labels(), labelStore: (any LabelsSaving)? = nil,
                access: DoorAccess = DoorAccess(), accessStore: (any DoorAccessSaving)? = nil) {
        precondition(!doors.isEmpty && doors.indices.allSatisfy { doors[$0].door.index == $0 }, "doors[i].door.index must be i")
        self.table = table
        self.doors = doors
        self.throttle = throttle
        self.store = store
        self.labels = labels.pruned(to: table)
        self.labelStore = labelStore
        self.access = access.pruned(to: table)
        self.accessStore = accessStore
    }

    /// The first door: the one a caller with one door means.
    public var door: Door { doors[0].door }
    /// Who last opened the first door with a press.
    public var lastOpener: String? { doors[0].lastOpener }

    /// The earliest of the doors' next deadlines (`Door.nextDeadline`), read in place: the
    /// daemon's loop asks every turn, and reading `doors[i].door` from outside copies a door.
    public var nextDeadline: Instant? {
        var earliest: Instant?
        for i in doors.indices {
            if let due = doors[i].door.nextDeadline, earliest.map({ due < $0 }) ?? true { earliest = due }
        }
        return earliest
    }

    /// Whether door `index` has something to do at `now` (its deadline has come).
    public func isDue(_ index: Int, at now: Instant) -> Bool { doors[index].door.nextDeadline.map { $0 <= now } ?? false }

    /// The label of `slot`, for logs and events.
    public func label(of slot: Int?) -> String? { slot.flatMap { labels[$0] } }

    /// A request judged and its presses decided, before what the history keeps of it is
    /// written: the daemon carries out the presses first, then `account`s for the request.
    /// Not copyable: it is accounted for once, and moves (never copied) on its way to the relay.
    public struct Judged: ~Copyable, Sendable {
        public var outcome: Outcome
        let source: RequestSource
        let wall: Int64
        let labelsBefore: Labels
        /// Whether it was a protocol line, whose request records `account` makes from the
        /// decoded command; any other request made its own (`Outcome.ownRecords`).
        let line: Bool

        init(_ source: RequestSource, wall: Int64, labelsBefore: Labels, line: Bool) {
            var outcome = Outcome()
            // What the door did is described (history records, notices) in `account`, after the presses.
            outcome.undescribed = Outcome.Undescribed()
            self.outcome = outcome
            (self.source, self.wall, self.labelsBefore, self.line) = (source, wall, labelsBefore, line)
        }
    }

    /// Judges any request, from any channel or the door's timers, at `now`: its age first, then
    /// what it asks; presses come back in `outcome.presses`, to be carried out before `account`,
    /// which describes what the door did for every kind of request alike.
    public mutating func judge(_ request: DoorRequest, at now: Instant, wall: Int64 = 0) -> Judged {
        let age = request.arrived.map { now - $0 }
        let source = request.source
        // Decided in place: the outcome is not copied on its way to the relay.
        var judged = Judged(source, wall: wall, labelsBefore: labels, line: request.ask.isLine)
        switch request.ask {
        case .line(let bytes):
            decodeAndJudge(bytes, from: source, at: now, wall: wall, age: age, &judged.outcome)
        case .move(let move, let door):
            judgeMove(move, for: door, from: source, at: now, wall: wall, age: age, &judged.outcome)
        case .light(let on, let door):
            if !stale(age, door, on ? "light on" : "light off", &judged.outcome) {
                judgeLight(on: on, for: door, from: source, at: now, wall: wall, &judged.outcome)
            }
        case .identify(let door):
            if !stale(age, door, "identify", &judged.outcome) {
                judgeIdentify(door, from: source, at: now, wall: wall, &judged.outcome)
            }
        case .remotes(let locked, let door):
            if !stale(age, door, locked ? "remotes lock" : "remotes unlock", &judged.outcome) {
                judgeRemotes(locked, for: door, from: source, at: now, wall: wall, &judged.outcome)
            }
        case .time(let door):
            judged.outcome.doorIndex = door
            report(doors[door].door.advance(to: now), wall: wall, into: &judged.outcome)
        }
        return judged
    }

    /// Refuses a request that waited too long, named for the log; false when it is fresh.
    private func stale(_ age: Duration?, _ door: Int, _ name: String, _ outcome: inout Outcome) -> Bool {
        outcome.doorIndex = door
        guard refuseIfStale(age, &outcome) else { return false }
        outcome.command = logName(name, door)
        return true
    }

    /// One protocol line judged and accounted at once (`judge` of a `.line`, then `account`), for
    /// the tests, the fuzzer and the benchmarks; the daemon carries out presses in between.
    public mutating func judgeAndAccount(_ bytes: [UInt8], from source: RequestSource, at now: Instant,
                                wall: Int64 = 0, age: Duration? = nil) -> Outcome {
        var judged = Judged(source, wall: wall, labelsBefore: labels, line: true)
        decodeAndJudge(bytes, from: source, at: now, wall: wall, age: age, &judged.outcome)
        return account(judged)
    }

    /// What the history keeps of a judged request, and who opened the door: after its presses,
    /// for every kind of request (a line, a channel's move, the light, the timers).
    public mutating func account(_ judged: consuming Judged) -> Outcome {
        var outcome = judged.outcome
        keepCloseFailedIfChanged(outcome.doorIndex, wall: judged.wall, &outcome)
        for group in outcome.undescribed?.all ?? [] { describe(group, wall: judged.wall, into: &outcome) }
        outcome.undescribed = nil
        guard judged.line else {
            if let opener = outcome.opener { noteOpener(outcome, name: opener) }
            outcome.records += outcome.ownRecords
            outcome.ownRecords = []
            return outcome
        }
        if outcome.command == nil, let command = outcome.decoded {
            outcome.command = outcome.namesItsDoor ? logName(command.name, outcome.doorIndex) : command.name
        }
        noteOpener(outcome, name: opener(slot: outcome.slot, source: judged.source))
        outcome.records += tagged(outcome.requestRecords(source: judged.source.description, at: judged.wall,
                                                         labelsBefore: judged.labelsBefore, labelsAfter: labels),
                                  outcome.doorIndex, aboutADoor: (outcome.decoded?.isAboutADoor ?? false) && outcome.result != .error(.door))
        return outcome
    }

    /// A line decoded, then judged as a command; a line that does not decode is refused as such.
    private mutating func decodeAndJudge(_ bytes: [UInt8], from source: RequestSource, at now: Instant, wall: Int64,
                                age: Duration?, _ outcome: inout Outcome) {
        // The request as the codec made it, not copied out of a `Result`.
        let request: Request
        do throws(ErrorCode) { request = try CommandCodec.request(bytes) } catch {
            // The first door is judged at the request's time first, as for any request.
            report(doors[0].door.advance(to: now), wall: wall, into: &outcome)
            // Bluetooth does not know the local extensions at all, malformed or not.
            let local = bytes.count > PIN.length && bytes[PIN.length] == LocalCommand.letter
            outcome.replies = [.error(local && !source.isLocal && error == .format ? .command : error)]
            return
        }
        judgeCommand(request, from: source, at: now, wall: wall, age: age, &outcome)
    }

    /// A decoded request: its door judged at the request's time first, then each check in turn,
    /// then the command. Its name for the log is made in `account`, after any press.
    private mutating func judgeCommand(_ request: Request, from source: RequestSource, at now: Instant, wall: Int64,
                                 age: Duration?, _ outcome: inout Outcome) {
        let index = door(of: request.door)
        outcome.doorIndex = index ?? 0
        report(doors[outcome.doorIndex].door.advance(to: now), wall: wall, into: &outcome)
        outcome.decoded = request.command
        if case .local = request.command, !source.isLocal {
            outcome.replies = [.error(.command)]
            return
        }
        if refuseIfStale(age, &outcome) { return }
        if let channel = source.channel, let left = throttle.remainingLock(channel, at: now) {
            outcome.replies = [.locked(seconds: left.secondsRoundedUp)]
            return
        }
        guard let slot = table.slot(of: request.pin), Controller.may(slot, request.command, source) else {
            refuseThePIN(source, at: now, &outcome)
            return
        }
        outcome.slot = slot
        // Which doors there are is told only to someone with a PIN.
        if index == nil, let choice = request.door {
            refuseUnknownDoor(choice, &outcome)
            return
        }
        if request.command.isAboutADoor, !access.allows(slot, door: doors[outcome.doorIndex].id) {
            refuseTheDoor(slot, &outcome)
            return
        }
        outcome.namesItsDoor = request.command.isAboutADoor
        if request.command.needsMaster && !source.mayManage {
            outcome.replies = [.error(.admin)]
            return
        }
        outcome.replies = execute(request.command, from: source, at: now, wall: wall, age: age, &outcome)
    }

    // The refusals below are out of line (`@inline(never)`), so the lines a press runs
    // through lie close together: a cold request reads fewer of them.

    /// A wrong PIN (or one that may not ask this): counted against the channel. A correct PIN
    /// never resets the count (only time and the owner's unlock do), so knowing one PIN gives
    /// no speed-up in guessing another.
    @inline(never)
    private mutating func refuseThePIN(_ source: RequestSource, at now: Instant, _ outcome: inout Outcome) {
        if let channel = source.channel, let delay = throttle.recordFailure(channel, at: now) {
            outcome.lockout = (delay, throttle.budget(channel, at: now).failures)
        }
        outcome.replies = [.error(.pin)]
    }

    @inline(never)
    private func refuseUnknownDoor(_ choice: DoorChoice, _ outcome: inout Outcome) {
        outcome.replies = [.error(.door)]
        // Told to whoever asked: it names no door their PIN may not use.
        outcome.refusal = "garaged drives no door \(choice); garage-pins status lists the doors your PIN may use"
    }

    @inline(never)
    private func refuseTheDoor(_ slot: Int, _ outcome: inout Outcome) {
        outcome.replies = [.error(.denied)]
        outcome.refusal = access.unreadable ? "the door access file could not be read: only the master PIN uses a named door until it is fixed"
            : "slot \(slot) may use \(access[slot]?.joined(separator: ", ") ?? "every door"), not \(doors[outcome.doorIndex].id ?? "this door")"
                + "; the owner sets which doors it may use with garage-pins edit SLOT --doors"
    }

    /// The index of the door a request names: the first when it names none; nil for a number
    /// or name no door has.
    public func door(of choice: DoorChoice?) -> Int? {
        switch choice {
        case nil: return 0
        case .number(let n): return doors.indices.contains(n - 1) ? n - 1 : nil
        case .name(let name): return doors.firstIndex { $0.id == name }
        }
    }

    /// The one check of a request's age (every channel, before anything is judged): true, with
    /// the refusal in the outcome, when it waited too long to act on.
    func refuseIfStale(_ age: Duration?, _ outcome: inout Outcome) -> Bool {
        guard let age, Door.isStale(age) else { return false }
        outcome.replies = [.error(.stale)]
        outcome.refusal = "it waited \(age.nanoseconds / 1_000_000) ms between arriving and being judged (the limit is \(Door.maxRequestAge.nanoseconds / 1_000_000) ms), "
            + "so it was not performed; send it again"
        return true
    }

    /// How the history and Home Assistant name whoever asked: a label, the slot, or the channel.
    func opener(slot: Int?, source: RequestSource) -> String {
        guard let slot else { return source.description }
        return label(of: slot) ?? (slot == 0 ? "master PIN" : "slot \(slot)")
    }

    /// Remembers who opened the door (a press now), or will once the warning has run.
    mutating func noteOpener(_ outcome: Outcome, name: String) {
        let i = outcome.doorIndex
        if outcome.presses.contains(where: { $0.reason == .open }) { doors[i].lastOpener = name }
        if outcome.door.contains(.pressWarned(.open)) { doors[i].pendingOpener = name }
    }

    /// Whether the PIN in `slot` may ask for `command`: the master for management, any stored
    /// PIN for the door; the owner at the shell may also unlock with any stored PIN.
    static func may(_ slot: Int, _ command: Command, _ source: RequestSource) -> Bool {
        if slot == 0 || !command.needsMaster { return true }
        if source.isOwner, case .local(.unlock) = command { return true }
        return false
    }

    /// Time passed for door `index`: travel ends, a warning runs out, auto-close, "left open",
    /// the light.
    public mutating func tick(_ index: Int = 0, at now: Instant, wall: Int64 = 0) -> Outcome {
        input(index, at: now, wall: wall) { $0.advance(to: now) }
    }

    /// What `event` of door `index` asks of its parts (`Door.effect(of:)`), read in place: the
    /// loop asks for every event, and reading `doors[i].door` from outside copies a door.
    public func effect(of event: Door.Event, door index: Int) -> DoorEffect? { doors[index].door.effect(of: event) }

    /// The warning output went on at `at`: the press it announces waits a whole warning from then.
    public mutating func warningShown(_ index: Int = 0, at now: Instant) { doors[index].door.warningShown(at: now) }

    /// The warning output could not be switched on: the press it announced is called off.
    public mutating func warningFailed(_ index: Int = 0, at now: Instant, wall: Int64 = 0) -> Outcome {
        input(index, at: now, wall: wall) { $0.warningFailed(at: now) }
    }

    /// The door's drive finished the last press (the relay released it, the opener's release was
    /// written, or it could not be carried out); a press that waited for it may be decided now.
    public mutating func pressEnded(_ index: Int = 0, at now: Instant, wall: Int64 = 0) -> Outcome {
        input(index, at: now, wall: wall) { $0.pressEnded(at: now) }
    }

    /// The door's drive could not put the permit's press on the wire: nothing moved for it.
    public mutating func pressNotSent(_ permit: PressPermit, why: String, at now: Instant, wall: Int64 = 0) -> Outcome {
        input(permit.door, at: now, wall: wall) { $0.pressNotSent(permit, why: why, at: now) }
    }

    /// The relay stayed energised past the press and its margin (the relay thread says so).
    public mutating func relayFault(_ index: Int = 0, at now: Instant, wall: Int64 = 0) -> Outcome {
        input(index, at: now, wall: wall) { $0.reportFault(.relay) }
    }

    /// A switch's raw edge (or reading); it counts once debounced (a photo-eye's break at once).
    public mutating func sensor(_ which: DoorSwitch, of index: Int = 0, active: Bool, at now: Instant, wall: Int64 = 0) -> Outcome {
        input(index, at: now, wall: wall) { $0.sensor(which, active: active, at: now) }
    }

    /// Door `index`'s opener said where the door is and whether its photo-eyes see an obstruction.
    public mutating func openerReported(_ state: OpenerDoorState, obstructed: Bool, of index: Int = 0, at now: Instant,
                                        wall: Int64 = 0) -> Outcome {
        input(index, at: now, wall: wall) { $0.openerReported(state, obstructed: obstructed, at: now) }
    }

    /// Door `index`'s opener's whole STATUS, in one call: where the door is, its photo-eyes,
    /// its light and the lock of its remotes.
    public mutating func openerReported(_ state: OpenerDoorState, obstructed: Bool, light: Bool, remotesLocked: Bool,
                                        of index: Int, at now: Instant, wall: Int64 = 0) -> Outcome {
        input(index, at: now, wall: wall) { door in
            defer { door.openerReported(light: light, remotesLocked: remotesLocked) }
            return door.openerReported(state, obstructed: obstructed, at: now)
        }
    }

    /// The rest of door `index`'s opener's STATUS: its light and the lock of its remotes.
    public mutating func openerReported(light: Bool, remotesLocked: Bool, of index: Int = 0) {
        doors[index].door.openerReported(light: light, remotesLocked: remotesLocked)
    }

    /// Door `index`'s opener's wire carried a wall button's press.
    public mutating func openerSawWallButton(of index: Int = 0, at now: Instant) { doors[index].door.openerSawWallButton(at: now) }

    /// Door `index`'s opener saw motion.
    public mutating func openerSawMotion(of index: Int = 0, at now: Instant) { doors[index].door.openerSawMotion(at: now) }

    /// An `auto` door's opener found, or searched for (`Door.openerIdentified`).
    public mutating func openerIdentified(_ identity: OpenerIdentity, of index: Int = 0) { doors[index].door.openerIdentified(identity) }

    /// Door `index`'s opener's count of openings.
    public mutating func openerCounted(openings: Int, of index: Int = 0) { doors[index].door.openerCounted(openings: openings) }

    /// Door `index`'s opener's backup battery, as it said it (nil: it does not know).
    public mutating func openerReported(battery: OpenerBattery?, of index: Int = 0) { doors[index].door.openerReported(battery: battery) }

    /// Door `index`'s opener is off until garaged restarts, and why.
    public mutating func openerOff(_ why: String?, of index: Int, at now: Instant, wall: Int64 = 0) -> Outcome {
        input(index, at: now, wall: wall) { $0.openerOff(why) }
    }

    /// Door `index`'s opener answers again, or went silent.
    public mutating func openerAnswered(_ answering: Bool, of index: Int = 0, at now: Instant, wall: Int64 = 0) -> Outcome {
        input(index, at: now, wall: wall) { $0.openerAnswered(answering) }
    }

    /// What one door did with an input that is not a request.
    private mutating func input(_ index: Int, at now: Instant, wall: Int64, _ apply: (inout Door) -> [Door.Event]) -> Outcome {
        var outcome = Outcome()
        outcome.doorIndex = index
        report(apply(&doors[index].door), wall: wall, into: &outcome)
        return outcome
    }

    /// Adds what the door did to the outcome: the events, their history records, and what
    /// phones are told. A press a request caused is recorded as that request, not again here.
    /// A close that failed (or the door seen closed after one) is kept beside the table.
    /// While a request is judged (`undescribed` set), only the events are added: the rest waits
    /// for `account`, so nothing stands between the gate's permit and the relay.
    mutating func report(_ events: [Door.Event], wall: Int64, byRequest: Bool = false,
                         into outcome: inout Outcome) {
        let judging = outcome.undescribed != nil
        if judging && events.isEmpty { return }
        // The first events are taken as they are, not copied.
        if outcome.door.isEmpty { outcome.door = events } else { outcome.door += events }
        let group = Outcome.DoorEvents(events: events, byRequest: byRequest,
                                       autoCloseInterval: doors[outcome.doorIndex].door.autoCloseInterval)
        if judging {
            outcome.undescribed?.append(group)
        } else {
            keepCloseFailedIfChanged(outcome.doorIndex, wall: wall, &outcome)
            describe(group, wall: wall, into: &outcome)
        }
    }

    /// What the history and phones are told of what a door did (`report`'s second half).
    private mutating func describe(_ group: Outcome.DoorEvents, wall: Int64, into outcome: inout Outcome) {
        let i = outcome.doorIndex, events = group.events
        guard !events.isEmpty else { return }
        if !group.byRequest, events.presses.contains(where: { $0.reason == .open }) {
            // An open that waited for its warning presses now: whoever asked for it opened.
            doors[i].lastOpener = doors[i].pendingOpener ?? doors[i].lastOpener
            doors[i].pendingOpener = nil
        }
        // Opened by the wall button or a remote, as the opener's wire tells.
        for case .moved(.opening, true, let who?) in events { doors[i].lastOpener = who }
        outcome.records += tagged(events.compactMap { e in
            if group.byRequest, case .press = e { return nil }
            return e.record(at: wall, autoCloseInterval: group.autoCloseInterval)
        }, i)
        // Phones are told them from the snapshot; with several doors each says its door (`@2:F NOT MOVED`).
        let timing = doors[i].door.timing
        let pushes = events.compactMap { $0.push(timing) }
        notices.append(doors.count == 1 ? pushes : pushes.map { .about(door: i + 1, $0) })
    }

    /// A command's name for the log, with its door when there are several (`open @gate`).
    func logName(_ command: String, _ index: Int) -> String {
        guard doors.count > 1, let id = doors[index].id else { return command }
        return "\(command) @\(id)"
    }

    /// With several doors, the history names the door each record is about.
    func tagged(_ records: [EventRecord], _ index: Int, aboutADoor: Bool = true) -> [EventRecord] {
        guard doors.count > 1, aboutADoor else { return records }
        return records.map { r in
            var r = r
            r.door = doors[index].id
            return r
        }
    }

    /// Saves whether a close failed, when that changed; on failure the door still holds to it,
    /// and the log says it may not outlive a restart.
    private mutating func keepCloseFailedIfChanged(_ i: Int, wall: Int64, _ outcome: inout Outcome) {
        guard doors[i].door.closeFailed != doors[i].closeFailedKept else { return }
        doors[i].closeFailedKept = doors[i].door.closeFailed
        do { try doors[i].doorStateStore?.save(closeFailed: doors[i].door.closeFailed, at: wall) } catch {
            outcome.storeError = error.description
        }
    }
}

import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
#endif

/// The loop's requests: judged by the controller, carried out, answered, logged; and the
/// answers the loop gives itself (the history, followers).
extension DoorLoop {
    /// Every request, from every source, on one path: a connection's line or write, Home
    /// Assistant's command, the door's own timers (`timers`). Judged by the controller (its age,
    /// then what it asks, every press through the door's gate), its presses carried out first,
    /// then accounted for once (`Controller.account`: the history, who opened), its effects
    /// carried, its replies made (the loop's own for a query), its log line written, and its
    /// verdict given to the `connection` that asked, when one did.
    @discardableResult
    func perform(_ request: DoorRequest, answering connection: Connection? = nil) -> Controller.Outcome {
        // The press goes out before the controller writes what the history keeps of it.
        let judged = controller.judge(request, at: clock.now(), wall: EventRecord.now())
        // A press that cannot be on the wire within the request's age limit is never sent.
        let deadline = (request.arrived ?? clock.now()) + Door.maxRequestAge
        for case .press(let permit) in judged.outcome.door { press(permit, deadline: deadline) }
        let outcome = controller.account(judged)
        enact(outcome, summaryKey: request.source.summaryKey, pressed: true)
        let replies = connection.map { answer(outcome, to: $0) } ?? outcome.replies
        logRequest(request, outcome, replies: replies)
        connection?.answered(Verdict(replies: replies, accepted: outcome.accepted))
        return outcome
    }

    /// Who asks when time passes for a door (auto-close, a hold or a warning running out, the
    /// light, "left open"): its repeats are summarised under `garaged`, as every press the
    /// door made itself always was.
    static let timers = RequestSource("garaged's timers", channel: nil, summaryKey: "garaged")

    /// A performed request's log line: none for the timers (their presses and moves have their
    /// own lines); identify with nothing to show once per burst; a query the loop answered
    /// itself with its own verdict (its refusal, or OK).
    private func logRequest(_ request: DoorRequest, _ outcome: Controller.Outcome, replies: [Reply]) {
        switch request.ask {
        case .time:
            return
        case .identify where outcome.nothingToShow:
            // Neither a light nor a warning is wired: the log line is all identify shows.
            logOncePerBurst(.info, "identify", key: "identify \(request.source.summaryKey)",
                            [("source", request.source.description), ("shown", "no light or warning is wired: this line only")])
        default:
            let result = outcome.query == nil ? outcome.result
                : replies.first { if case .error = $0 { return true } else { return false } } ?? .ok
            logRequest(request.source, outcome, result: result)
        }
    }

    /// When a request stamped `receivedAt` (CLOCK_REALTIME ns) arrived, on the loop's clock.
    func arrival(_ receivedAt: Int64) -> Instant { clock.now() - PacketSocket.age(of: receivedAt) }

    /// A performed request's log line (and its lockout's), made the same way for every channel.
    private func logRequest(_ source: RequestSource, _ outcome: Controller.Outcome, result: Reply) {
        var extra: [(String, String)] = []
        if let why = outcome.refusal { extra.append(("why", why)) }
        if let error = outcome.storeError { extra.append(("error", error)) }
        logRequest(source, command: outcome.command ?? "?", slot: outcome.slot, result: result,
                   changed: outcome.changedSomething, extra: extra)
        if let lock = outcome.lockout {
            log.warning("lockout", ["source": source.description, "seconds": String(lock.duration.secondsRoundedUp),
                                    "failures": String(lock.failures)])
        }
    }

    /// The replies to a judged request: the controller's, or for a query the loop answers
    /// itself (the history, followers) the loop's, and for one about a part (pairing, HomeKit)
    /// that part's.
    private func answer(_ outcome: Controller.Outcome, to connection: Connection) -> [Reply] {
        let source = connection.source
        switch outcome.query {
        case .status:
            return statusRecords(seenBy: outcome.slot) + [.ok]
        case .log(let since):
            let records = history.since(since)
            return records.map { .record($0.json) } + [.listed(count: records.count)]
        case .follow(let topic, let since):
            guard connection.canFollow else { return [.error(.command)] }
            let limit = source.isOwner ? DoorLoop.maxOwnerFollowers : DoorLoop.maxFollowers
            let same = connections.values.filter { $0.following != nil && $0.source.isOwner == source.isOwner }.count
            guard same < limit else {
                log.warning("follow-refused", ["source": source.description,
                                               "why": "\(same) \(source.isOwner ? "owner's" : "other users'") followers already (at most \(limit))"])
                return [.error(.limit)]
            }
            let slot = outcome.slot
            connection.follow(topic) { [weak self] door in
                guard let self, let slot else { return false }
                return self.controller.mayWatch(door, slot: slot)
            }
            if topic == .status { return [.ok] + statusRecords(seenBy: outcome.slot) }
            return [.ok] + (since.map { history.since($0).map { Reply.record($0.json) } } ?? [])
        case let query?:
            // Pairing, phones, HomeKit: the part that runs them answers; none runs it.
            for part in owners {
                if let replies = part.answer(query, from: connection, record: { record($0) }) { return replies }
            }
            if case .homekit = query { return [.error(.homekit)] }
            return [.error(.bluetooth)]
        case nil:
            // The local socket answers in words too (garage-pins prints them); Bluetooth keeps
            // the book's bytes.
            return source.isLocal ? outcome.wordedReplies : outcome.replies
        }
    }

    /// Logs a request: in full when it changed something, otherwise once per burst of the same
    /// (source, command, result), whose count is logged when it ends.
    func logRequest(_ source: RequestSource, command: String, slot: Int? = nil, result: Reply, changed: Bool,
                    extra: [(String, String)] = []) {
        let resultText: String
        if case .locked = result { resultText = "ERR LOCKED" } else { resultText = result.text }
        if !changed {
            let line = LogLine(event: "request", fields: [("source", source.summaryKey), ("command", command), ("result", resultText)])
            guard logBursts.note("request \(source.summaryKey) \(command) \(resultText)", line, at: clock.now()) else { return }
        }
        var fields: [(String, String)] = [("source", source.description), ("command", command),
                                          ("slot", slot.map { String($0) } ?? "-"), ("result", result.text)]
        fields += extra
        log.info("request", fields)
    }

    /// Logs a line anyone or anything can repeat at will (a chattering switch, a door moved by
    /// hand again and again) once per burst of the same `key`; the count follows when it ends.
    func logOncePerBurst(_ level: Logger.Level, _ event: String, key: String, _ fields: [(String, String)]) {
        guard logBursts.note(key, LogLine(event: event, fields: fields), at: clock.now()) else { return }
        log.log(level, event, fields)
    }

    /// Adds a record to the history and the event file, and pushes it to log followers.
    func record(_ r: EventRecord) {
        history.append(r)
        events?.enqueue(r)
        tellAudiences { $0.eventRecorded(r) }
    }

    /// Records what an outcome says happened; what can repeat once per burst (same kind,
    /// channel or local user, slot, and for a fault which one), with the count when the burst
    /// ends.
    func record(_ records: [EventRecord], summaryKey: String) {
        for r in records {
            // A fault's burst is per fault; a move's per who moved it (the wall button, a remote).
            let which = r.kind == .fault ? r.detail?.split(separator: ":").first.map(String.init) ?? ""
                : r.kind == .door ? r.detail?.split(separator: "(").dropFirst().last.map(String.init) ?? "" : ""
            if r.importance == .kept || eventBursts.note("\(r.kind) \(summaryKey) \(r.slot ?? -1) \(which)", r, at: clock.now()) {
                record(r)
            }
        }
    }

    /// Logs and records the counts of bursts that ended (or ran a whole span).
    func summariseBursts(_ lines: [BurstCounter<String, LogLine>.Summary],
                         _ attempts: [BurstCounter<String, EventRecord>.Summary]) {
        for s in lines {
            log.info(s.first.event + "-repeats", s.first.fields + [("more", String(s.folded)),
                                                                  ("over_s", String((s.to - s.from).secondsRoundedUp))])
        }
        for s in attempts {
            var r = s.first
            r.time = EventRecord.now()
            r.count = s.folded
            r.spanSeconds = (s.to - s.from).secondsRoundedUp
            record(r)
        }
    }

    func followers(of topic: LocalCommand.FollowTopic) -> [Connection] {
        connections.values.filter { $0.following == topic }
    }

}

import DoorCore

/// The door's controller driven as the daemon drives it (presses to a relay that releases
/// after its pulse, the warning output confirmed or failing, switch edges stamped as the
/// kernel stamps them, stalls, restarts), wired to a simulated opener, with every press
/// checked against the door's invariants (docs/threat-model.md) as it is made. In a garage
/// whose door a Security+ 2.0 opener reports (`Garage.opener`) the same opener speaks on its
/// wire instead: its STATUS reaches the door late, twice, or at any time, it goes silent and
/// comes back, and a press is its explicit command (`PressPermit.action`).
final class World {
    let garage: Garage
    private(set) var now = Instant(nanoseconds: 1_000_000_000)
    private var opener: Opener
    private var controller: Controller
    private let table: PinTable
    private let kept = KeptDoorState()

    /// What the kernel last delivered of each switch, and since when.
    private var raw: [DoorSwitch: (level: Bool, since: Instant)] = [:]
    /// Edges read off the lines but not yet handed to the door (bounce, a stalled loop).
    private var edges: [(at: Instant, which: DoorSwitch, level: Bool)] = []
    /// While a press is under way: when the relay releases it.
    private var relayEnd: Instant?
    /// The release happened but the door has not been told yet (a stalled loop).
    private var releaseUntold = false
    /// The warning output as the garage sees it: on since when, nil when off.
    private var warningSince: Instant?
    private var warningFailsNext = false

    // What the invariants remember between presses.
    private var judgingStaleRequest = false
    private var closeFailedUnresolved = false
    private var quietSinceStart = true
    private var movedSinceStop = true
    /// From when the photo-eye's clear beam may count as clear: once it has stayed clear for the
    /// debounce (its break counts at once).
    private var beamClearFrom = Instant(nanoseconds: 0)
    private var warnedBy: [String: [Instant]] = [:]

    /// What an opener's drive has read off the wire but the door not yet heard, in the order
    /// sent: its STATUS (the state and the obstruction), or that it answers or went silent.
    private enum News { case status(OpenerDoorState, obstructed: Bool), answering(Bool) }
    private var news: [(at: Instant, what: News)] = []
    /// The opener's STATUS as it last put it on the wire (nil: nothing since garaged started).
    private var sent: (state: OpenerDoorState, obstructed: Bool)?
    /// The opener's door as it really was at the last look: its moves count as something
    /// happening (a door found where it is at start is not).
    private var physical: OpenerDoorState
    /// Where the opener last said the door is (not `unknown`), whether it said the beam is
    /// broken, and whether it answers, as the door has been told: what its invariants are about.
    private var toldState: OpenerDoorState?
    private var toldObstructed = false
    private var toldAnswering = false
    /// The opener said where the door is since it was last told silent (or garaged started).
    private var toldWhereSinceSilence = false
    private var random: UInt64

    /// Every broken invariant, with when.
    private(set) var violations: [String] = []
    /// Presses made, by reason.
    private(set) var presses: [Door.Press] = []
    /// Presses made, with when (ms since the start): two worlds that press alike show the same.
    private(set) var timedPresses: [String] = []
    /// False: a HomeKit target write always goes to the gate, as if `move(toTarget:)` never
    /// skipped a write (the world to compare with the session's mapping).
    var mapsTargetWrites = true
    /// The door as HomeKit last read it.
    private(set) var view: HAPDoorView?

    init(_ garage: Garage) {
        self.garage = garage
        opener = Opener(place: garage.start, travel: .seconds(garage.realTravelS))
        physical = opener.reportedState
        random = UInt64(truncatingIfNeeded: garage.seed) &* 0x9E37_79B9_7F4A_7C15 | 1
        var t = try! PinTable(master: PIN("12345")!, capacity: 4)
        _ = try! t.add(PIN("guest")!)
        table = t
        controller = Controller(table: t, door: Door(timing: garage.timing), store: NoStore())
        // A door with an opener has no switches: the door knows nothing until it answers.
        for s in DoorSwitch.allCases { raw[s] = (garage.opener ? false : opener.reads(s), now) }
        controller = makeController()
        view = HAPDoorView(controller.status(at: now))
        if garage.opener { openerDriveStarts() }
    }

    private func makeController() -> Controller {
        let door = Door(timing: garage.timing, sensing: garage.sensing, debounce: .milliseconds(garage.debounceMs),
                        closed: raw[.closed]!.level, open: raw[.open]!.level, obstructed: raw[.obstruction]!.level, autoCloseAnyOpening: garage.autoCloseAny,
                        closeFailed: kept.closeFailed, at: now)
        if door.position == .closed { closeFailedUnresolved = false }
        // A daemon that starts reads the photo-eye's line as it is.
        if !raw[.obstruction]!.level { beamClearFrom = min(beamClearFrom, now) }
        return Controller(table: table, door: door, store: NoStore(), doorStateStore: kept, keptCloseFailed: kept.closeFailed)
    }

    /// The status snapshot every audience would be given now.
    func snapshot() -> StatusSnapshot { controller.snapshot(at: now) }

    // MARK: - Steps

    func perform(_ step: Step) {
        switch step {
        case .ask(let channel, let who, let ask):
            let pin = who == .master ? "12345" : who == .guest ? "guest" : "wrong"
            let source: RequestSource
            switch channel {
            case .bluetooth: source = RequestSource("bluetooth 00:11:22:33:44:55", channel: .remote)
            case .localUser: source = RequestSource("local uid=1000", channel: .local, isLocal: true)
            case .owner: source = RequestSource("local uid=0", channel: nil, isLocal: true)
            }
            request(source) { c, now in c.judgeAndAccount(Array((pin + ask.rawValue).utf8), from: source, at: now, age: .milliseconds(3)) }
        case .mqtt(let command):
            let mqtt = RequestSource("mqtt", channel: nil)
            request(mqtt) { c, now in c.command(command, from: mqtt, at: now, age: .milliseconds(1)) }
        case .homekit(let command):
            let homekit = RequestSource("homekit 5F2E0C1A-CONTROLLER", channel: nil)
            if let command {
                request(homekit) { c, now in c.command(command, from: homekit, at: now, age: .milliseconds(2)) }
            } else {
                request(homekit) { c, now in c.identify(from: homekit, at: now) }
            }
        case .homekitTarget(let target):
            let homekit = RequestSource("homekit 5F2E0C1A-CONTROLLER", channel: nil)
            run(for: .zero)
            guard let view else { return }
            let mapped = view.move(toTarget: target)
            // A STOPPED door's repeated target is skipped in both worlds: the one rule the gate
            // does not make redundant, kept on purpose (`move(toTarget:)`).
            let stoppedRepeat = view.current == HAPDoorView.stopped && target == view.target
            let command = mapsTargetWrites ? mapped : stoppedRepeat ? nil : target == HAPDoorView.open ? .open : .close
            guard let command else { return }
            var accepted = false
            request(homekit) { c, now in
                let outcome = c.command(command, from: homekit, at: now, age: .milliseconds(2))
                accepted = outcome.accepted
                return outcome
            }
            _ = accepted
        case .wait(let ms):
            run(for: .milliseconds(ms))
        case .remote:
            opener.press()
            quietSinceStart = false
            openerChanged()
        case .obstacle:
            opener.obstacle = true
        case .beam:
            opener.beamBroken.toggle()
            if garage.opener {
                opener.reverseIfClosingOnTheBeam()
                openerChanged()
            } else {
                lineChanged(.obstruction, at: now)
            }
            run(for: .zero)
        case .stall(let ms, let command):
            let arrives = now + .milliseconds(ms / 2)
            stall(for: .milliseconds(ms))
            let mqtt = RequestSource("mqtt", channel: nil)
            let age = now - arrives
            judgingStaleRequest = Door.isStale(age)
            request(mqtt) { c, now in c.command(command, from: mqtt, at: now, age: age) }
            judgingStaleRequest = false
        case .restart:
            // The kernel releases the lines of a process that ends: a press is cut, the
            // warning goes dark; what was queued is lost with the process.
            relayEnd = nil
            releaseUntold = false
            warningSince = nil
            edges.removeAll()
            news.removeAll()
            if garage.opener {
                for s in DoorSwitch.allCases { raw[s] = (false, now) }
                toldState = nil
                toldObstructed = false
                toldAnswering = false
                toldWhereSinceSilence = false
            }
            controller = makeController()
            view = HAPDoorView(controller.status(at: now))
            quietSinceStart = true
            movedSinceStop = true
            // Each channel's allowance of warnings starts again with the daemon.
            warnedBy.removeAll()
            feed { $0.tick(at: now) }
            if garage.opener { openerDriveStarts() }
        case .warningFails:
            warningFailsNext = true
        case .flood(let channel, let count):
            let asks: [Step.Ask] = [.close, .open, .holdOn, .holdOff]
            for i in 0..<count {
                perform(.ask(channel, .guest, asks[i % asks.count]))
                run(for: .milliseconds(10))
            }
        case .stick(let which):
            guard !garage.opener else { return }
            if opener.stuck.contains(which) { opener.stuck.remove(which) } else { opener.stuck.insert(which) }
            lineChanged(which, at: now)
            run(for: .zero)
        case .report(let n):
            guard garage.opener, opener.answering else { return }
            let state = n % 7 == 0 ? OpenerDoorState.unknown : opener.reportedState
            queue(.status(state, obstructed: opener.beamBroken), after: delay())
            run(for: .zero)
        case .silence(let ms):
            guard garage.opener else { return }
            opener.answering.toggle()
            if opener.answering {
                // The drive's next GET_STATUS is answered: it says so, then what it heard.
                queue(.answering(true), after: .milliseconds(ms))
                sendStatus(after: .milliseconds(ms))
            } else {
                queue(.answering(false), after: .milliseconds(ms))
            }
            run(for: .zero)
        }
    }

    // MARK: - The opener's wire

    /// garaged starts with the opener's drive: it asks GET_STATUS, and hears the answer, or
    /// says the opener is silent once 5 s went unanswered.
    private func openerDriveStarts() {
        sent = nil
        if opener.answering {
            queue(.answering(true), after: delay())
            sendStatus(after: delay())
        } else {
            queue(.answering(false), after: .seconds(5))
        }
    }

    /// The opener's door or photo-eyes may have changed: an answering opener reports it, by
    /// itself, late (and now and then twice).
    private func openerChanged() {
        guard garage.opener else { return }
        if opener.reportedState != physical {
            physical = opener.reportedState
            quietSinceStart = false
        }
        guard opener.answering, let s = sent, s.state != opener.reportedState || s.obstructed != opener.beamBroken else { return }
        sendStatus(after: delay())
    }

    /// The opener puts its STATUS on the wire; the door hears it `after` (once, or twice).
    private func sendStatus(after: Duration) {
        sent = (opener.reportedState, opener.beamBroken)
        queue(.status(opener.reportedState, obstructed: opener.beamBroken), after: after)
        if next() % 4 == 0 { queue(.status(opener.reportedState, obstructed: opener.beamBroken), after: after + delay()) }
    }

    /// News on the wire reaches the door in the order sent: no sooner than the news before.
    private func queue(_ what: News, after: Duration) {
        let at = max(now + after, news.last?.at ?? now)
        news.append((at, what))
    }

    /// How late a report is: up to the garage's `reportDelayMs`.
    private func delay() -> Duration {
        .milliseconds(Int64(next() % UInt64(garage.reportDelayMs + 1)))
    }

    /// The next of the garage's pseudo-random numbers (xorshift64).
    private func next() -> UInt64 {
        random ^= random << 13
        random ^= random >> 7
        random ^= random << 17
        return random
    }

    /// The door hears one piece of news: the levels its invariants judge by are what it was
    /// told, set before it hears, so a press the news lets through is judged by them.
    private func hear(_ what: News) {
        let now = self.now
        switch what {
        case .answering(let answering):
            toldAnswering = answering
            if !answering { toldWhereSinceSilence = false }
            feed { $0.openerAnswered(answering, at: now) }
        case .status(let state, let obstructed):
            toldAnswering = true
            toldObstructed = obstructed
            if state != .unknown {
                toldState = state
                toldWhereSinceSilence = true
                // Seen closed: a close that failed is resolved.
                if state == .closed { closeFailedUnresolved = false }
                told(.closed, state == .closed)
                told(.open, state == .open)
            }
            told(.obstruction, obstructed)
            feed { $0.openerReported(state, obstructed: obstructed, at: now) }
        }
    }

    /// A level the opener's report gives the door's virtual switch.
    private func told(_ which: DoorSwitch, _ level: Bool) {
        guard raw[which]!.level != level else { return }
        raw[which] = (level, now)
        if which == .obstruction && !level { beamClearFrom = now }
    }

    /// A request, judged after the loop's own turn has brought the door up to now (so what the
    /// outcome holds is the request's doing).
    private func request(_ source: RequestSource, _ judge: (inout Controller, Instant) -> Controller.Outcome) {
        run(for: .zero)
        let now = self.now
        quietSinceStart = false
        let outcome = feed { judge(&$0, now) }
        let warned = outcome.door.contains { if case .pressWarned = $0 { return true } else { return false } }
        if warned {
            let key = source.summaryKey
            let recent = (warnedBy[key] ?? []).filter { now - $0 < .seconds(60) } + [now]
            warnedBy[key] = recent
            // 3 at once, then one every 20 s: no more than 6 in any minute.
            if recent.count > 6 { violate("\(key) started the warning \(recent.count) times within a minute") }
        }
        if judgingStaleRequest, !outcome.presses.isEmpty { violate("a stale request pressed") }
    }

    // MARK: - Time

    /// Time passes with the daemon awake: the opener moves, the relay releases, switch edges
    /// reach the door, its timers fire.
    func run(for d: Duration) {
        let target = now + d
        var turns = 0
        while true {
            turns += 1
            if turns > 100_000 { violate("the door's timers did not settle"); return }
            var next = target
            for candidate in [opener.nextChange.map { now + $0 }, relayEnd, controller.door.nextDeadline, edges.first?.at, news.first?.at] {
                if let c = candidate, c < next { next = c }
            }
            if next < now { next = now }
            move(to: next)
            var did = false
            if let end = relayEnd, end <= now {
                relayEnd = nil
                releaseUntold = true
            }
            if releaseUntold {
                releaseUntold = false
                let now = self.now
                feed { $0.pressEnded(at: now) }
                did = true
            }
            while let e = edges.first, e.at <= now {
                edges.removeFirst()
                deliver(e)
                did = true
            }
            while let n = news.first, n.at <= now {
                news.removeFirst()
                hear(n.what)
                did = true
            }
            if let due = controller.door.nextDeadline, due <= now {
                let now = self.now
                feed { $0.tick(at: now) }
                did = true
            }
            if !did && now >= target { return }
        }
    }

    /// The daemon stops for `d`: the garage goes on (the door moves, the relay thread releases
    /// its press, the lines change), and the loop hears of it all only when it wakes.
    private func stall(for d: Duration) {
        let target = now + d
        while now < target {
            var next = target
            let from = now
            for candidate in [opener.nextChange.map { from + $0 }, relayEnd] { if let c = candidate, c < next { next = c } }
            move(to: next)
            if let end = relayEnd, end <= now {
                relayEnd = nil
                releaseUntold = true
            }
        }
        let woke = now
        if releaseUntold {
            releaseUntold = false
            feed { $0.pressEnded(at: woke) }
        }
        while let e = edges.first {
            edges.removeFirst()
            deliver(e)
        }
        // What the drive read off the wire meanwhile waits in the loop's inbox.
        while let n = news.first, n.at <= woke {
            news.removeFirst()
            hear(n.what)
        }
        feed { $0.tick(at: woke) }
    }

    /// Moves the opener on to `t`, turning the changes of its lines into edges.
    private func move(to t: Instant) {
        guard t > now else { return }
        let before = DoorSwitch.allCases.map(opener.reads)
        opener.advance(by: t - now)
        now = t
        if garage.opener {
            openerChanged()
            return
        }
        for (i, s) in DoorSwitch.allCases.enumerated() where opener.reads(s) != before[i] { lineChanged(s, at: now) }
    }

    /// A line changed: its edge, after a few bounces when the garage's contacts bounce.
    private func lineChanged(_ which: DoorSwitch, at t: Instant) {
        let level = opener.reads(which)
        if garage.bounce {
            edges.append((t, which, level))
            edges.append((t + .milliseconds(2), which, !level))
            edges.append((t + .milliseconds(7), which, level))
        } else {
            edges.append((t, which, level))
        }
        edges.sort { $0.at < $1.at }
    }

    private func deliver(_ e: (at: Instant, which: DoorSwitch, level: Bool)) {
        if raw[e.which]!.level != e.level {
            raw[e.which] = (e.level, e.at)
            if e.which == .obstruction && !e.level { beamClearFrom = e.at + .milliseconds(garage.debounceMs) }
        }
        guard watches(e.which) else { return }
        feed { $0.sensor(e.which, active: e.level, at: e.at) }
    }

    // MARK: - Carrying out, and the invariants

    /// One input to the controller, its outcome carried out; returns the outcome.
    @discardableResult
    private func feed(_ input: (inout Controller) -> Controller.Outcome) -> Controller.Outcome {
        let before = controller.door.position
        let outcome = input(&controller)
        carryOut(outcome, from: before)
        view = HAPDoorView(controller.status(at: now))
        return outcome
    }

    /// Carries out an outcome as the daemon's loop does, checking each press as it is made
    /// against where the door was at that moment (`position`, moved on by the outcome's events).
    private func carryOut(_ outcome: Controller.Outcome, from before: DoorPosition) {
        var position = before
        var failed = false
        for (i, event) in outcome.door.enumerated() {
            switch event {
            case .moved(let p, _, _):
                position = p
                if p == .closed { closeFailedUnresolved = false }
                if p == .opening || p == .closing { movedSinceStop = true }
                // An opener's first report moves the door from "not known" to where it was:
                // only the opener's own moves count (`openerChanged`).
                if !garage.opener { quietSinceStart = false }
            case .fault(.didNotClose):
                closeFailedUnresolved = true
            case .press(let permit):
                check(permit.reason, from: position)
                presses.append(permit.reason)
                timedPresses.append("\(permit.reason) at \((now.nanoseconds - 1_000_000_000) / 1_000_000) ms")
                // A door pressed while it moved is STOPPED, whatever its switches said: a second
                // STOP finds it at rest and presses nothing.
                if permit.reason == .stop, i + 1 >= outcome.door.count || outcome.door[i + 1] != .moved(.stopped, bySomeoneElse: false) {
                    violate("a STOP press did not leave the door STOPPED")
                }
                if garage.opener {
                    // The drive sends the command, and its release 150 ms later; a silent
                    // opener (its wire cut) hears nothing.
                    relayEnd = now + .milliseconds(150)
                    if opener.answering {
                        opener.command(permit.action)
                        openerChanged()
                    }
                } else {
                    relayEnd = now + .milliseconds(Garage.pulseMs)
                    opener.press()
                }
            case .warning(let on):
                if on && warningFailsNext {
                    warningFailsNext = false
                    failed = true
                } else if on {
                    warningSince = now
                    controller.warningShown(at: now)
                } else {
                    warningSince = nil
                }
            default:
                break
            }
        }
        if failed { feed { $0.warningFailed(at: now) } }
    }

    /// Whether garaged reads this line in this garage.
    private func watches(_ which: DoorSwitch) -> Bool {
        switch which {
        case .closed: return garage.sensing.closedSwitch
        case .open: return garage.sensing.openSwitch
        case .obstruction: return garage.sensing.obstructionSwitch
        }
    }

    /// The door's invariants, for one press of `reason` made with the door at `position`.
    private func check(_ reason: Door.Press, from position: DoorPosition) {
        if relayEnd != nil || releaseUntold { violate("\(reason) pressed while the relay was still pressing") }
        let settled = Duration.milliseconds(garage.debounceMs)
        func sensed(_ s: DoorSwitch) -> Bool {
            guard watches(s), let r = raw[s], r.level else { return false }
            return now - r.since >= settled
        }
        if sensed(.closed) && sensed(.open) { violate("\(reason) pressed while both switches read their end") }
        switch reason {
        case .open:
            if sensed(.open) || position == .open { violate("open pressed toward where the door is (\(position))") }
        case .close, .autoClose:
            if sensed(.closed) || position == .closed { violate("\(reason) pressed toward where the door is (\(position))") }
        case .stop:
            if !movedSinceStop { violate("a second STOP press without the door moving in between") }
            movedSinceStop = false
        }
        // On a one-button opener every press may close the door but an open from CLOSED (it can
        // only open) and a STOP of a closing door (it stops it, or sends it back up): none of
        // those while the photo-eye's beam is broken, from the edge of its break (however short)
        // until it has stayed clear for the debounce.
        let mayClose = reason == .open ? position != .closed && !sensed(.closed) : reason == .stop ? position != .closing : true
        let beamBroken = watches(.obstruction) && (raw[.obstruction]!.level || now < beamClearFrom)
        if mayClose && beamBroken { violate("\(reason) pressed from \(position) while the photo-eye's beam was broken (or clear for less than the debounce)") }
        if garage.warning && position != .closed {
            let warned = warningSince.map { now - $0 } ?? .zero
            if warned < .seconds(Garage.warningS) {
                violate("\(reason) pressed from \(position) after \(warned) of warning (needs \(Garage.warningS) s)")
            }
        }
        if reason == .autoClose && closeFailedUnresolved { violate("auto-close pressed after a close that failed") }
        if quietSinceStart { violate("\(reason) pressed at start, before anything happened") }
        if garage.opener { checkOpener(reason) }
    }

    /// The invariants of a door an opener reports, by what it was told: no press while the
    /// opener does not answer, none toward where it says the door is (a STOP only of a door it
    /// did not say is at an end), no close while it says its photo-eyes see something.
    private func checkOpener(_ reason: Door.Press) {
        if !toldAnswering { violate("\(reason) pressed while the opener was not answering") }
        guard let state = toldState, toldWhereSinceSilence else {
            violate("\(reason) pressed before the opener said where the door is (since garaged started, or since it was silent)")
            return
        }
        switch reason {
        case .open where state == .open, .close where state == .closed, .autoClose where state == .closed:
            violate("\(reason) pressed toward where the opener says the door is (\(state))")
        case .stop where state == .open || state == .closed:
            violate("stop pressed while the opener says the door rests at an end (\(state))")
        default:
            break
        }
        if (reason == .close || reason == .autoClose) && toldObstructed {
            violate("\(reason) pressed while the opener reports an obstruction")
        }
    }

    private func violate(_ what: String) {
        violations.append("at \(Double((now.nanoseconds - 1_000_000_000) / 1_000_000) / 1000) s: \(what)")
    }
}

/// The table store of a test that never changes the table.
struct NoStore: PinTableSaving {
    func save(_ table: PinTable) throws(StoreError) {}
}

/// The kept failed close: what a restart finds.
final class KeptDoorState: DoorStateSaving, @unchecked Sendable {
    var closeFailed = false
    func save(closeFailed: Bool, at time: Int64) throws(StoreError) { self.closeFailed = closeFailed }
}

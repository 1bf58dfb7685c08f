import DoorCore
import DoorSystem

/// The loop's side of the door: carrying out what the controller decided (the press first),
/// reading the limit switches, and telling phones.
extension DoorLoop {
    /// Carries out an outcome: presses go to the relay first (unless the caller `pressed` them
    /// already), then the warning and the light switch, then the log, the history and the
    /// pushes to phones. A warning output that went on is confirmed to the door (its press
    /// waits a whole warning from then); one that could not be switched on calls its press off.
    func enact(_ outcome: Controller.Outcome, summaryKey: String = "garaged", pressed: Bool = false) {
        if !pressed { for permit in outcome.presses { press(permit) } }
        let index = outcome.doorIndex
        var warningFailed = false
        // With several doors, each line names the door it is about.
        let tag: [(String, String)] = doors.count > 1 ? [("door", controller.doors[index].id ?? String(index + 1))] : []
        let key = tag.first.map { " \($0.1)" } ?? ""
        for event in outcome.door {
            // The door said what each effect is and which part carries it: the loop carries it.
            if let effect = controller.effect(of: event, door: index), !carry(effect, of: index, tag, key: key) { warningFailed = true }
            switch event {
            case .press(let p):
                // A press no request made just now: an auto-close, or a press its warning announced.
                if outcome.replies.isEmpty {
                    log.info(p.reason == .autoClose ? "auto-close" : "press-after-warning", tag + [("press", p.reason.rawValue)])
                }
            case .pressWarned(let p):
                log.info("warning", tag + [("press", p.rawValue), ("after_s", String(controller.doors[index].door.timing.warning?.secondsRoundedUp ?? 0))])
            case .moved(let position, let bySomeoneElse, let who):
                let fields = tag + [("state", position.rawValue), ("by", bySomeoneElse ? who ?? "someone else (remote, button, hand)" : "garaged")]
                if bySomeoneElse {
                    logOncePerBurst(.info, "door", key: "door\(key) \(position.rawValue)", fields)
                } else {
                    log.info("door", fields)
                }
            case .fault(let f):
                logOncePerBurst(.warning, "door-fault", key: "fault\(key) \(f.rawValue)", tag + [("fault", f.rawValue), ("why", f.explanation)])
            case .leftOpen(let d):
                log.warning("left-open", tag + [("minutes", String(d.nanoseconds / 60_000_000_000))])
            case .pressCancelled(let p, let why):
                logOncePerBurst(.info, "press-cancelled", key: "cancelled\(key) \(p.rawValue)", tag + [("press", p.rawValue), ("why", why)])
            case .holdEnded:
                log.info("hold-ended", tag)
            case .warning, .light, .remotesLock:
                continue  // carried: the drive or the output logs it
            }
        }
        // A request's own failed save is in its log line; time's (a failed close kept) here.
        if outcome.replies.isEmpty, let error = outcome.storeError {
            log.error("store-failed", ["error": error, "effect": "the door holds to it until garaged stops"])
        }
        record(outcome.records, summaryKey: summaryKey)
        if warningFailed {
            log.error("warning-failed", ["effect": "the press it was to announce is called off: nobody was warned"])
            enact(controller.warningFailed(index, at: clock.now(), wall: EventRecord.now()))
        }
    }

    /// Carries one of the door's effects to the part the door named (a press is carried first,
    /// by `press`); false when a warning that was to go on could not be shown.
    private func carry(_ effect: DoorEffect, of index: Int, _ tag: [(String, String)], key: String) -> Bool {
        let drive = doors[index].drive, outputs = doors[index].outputs
        switch effect {
        case .press:
            return true
        case .warning(let on, .openerLight):
            // Its first flash is confirmed by the drive (`hear(_:door:)`).
            return flash(drive, on, tag) || !on
        case .warning(let on, .output):
            guard outputs.set(.warning, on, log: log, tag) else { return !on }
            if on { controller.warningShown(index, at: clock.now()) }
            return true
        case .light(let on, .opener):
            // Once per burst: a channel can ask faster than the opener's queue drains.
            if !drive.ask(.light(on)) { logOncePerBurst(.warning, "light-failed", key: "light-failed\(key)", tag + [("why", DoorLoop.unaskable)]) }
            return true
        case .light(let on, .wired):
            outputs.set(.light, on, log: log, tag)
            return true
        case .remotesLock(let locked):
            if !drive.ask(.remotesLocked(locked)) {
                logOncePerBurst(.warning, "remotes-failed", key: "remotes-failed\(key)", tag + [("why", DoorLoop.unaskable)])
            }
            return true
        }
    }

    /// Why an ask of the opener's light or lock was not sent, and what to do.
    static let unaskable = "the opener could not be asked (its queue of settings is full, or garaged is stopping); ask again once its status shows the last one"

    /// The warning as the opener's light flashing; false when the opener could not be asked.
    /// On, it is said once the first flash is written; off, at once.
    private func flash(_ drive: any DoorDrive, _ on: Bool, _ tag: [(String, String)]) -> Bool {
        guard drive.ask(.flashing(on)) else {
            log.log(.error, "warning-failed", tag + [("output", "the opener's light"), ("error", "the opener could not be asked")])
            return false
        }
        if !on { log.info("warning", tag + [("output", "off"), ("shown_by", "the opener's light, flashing")]) }
        serveDrive(of: drive.door)
        return true
    }

    /// Reads and writes a door's own wire (an opener's) now, and tells the door what it said and
    /// what was written.
    func serveDrive(of door: Int) {
        hear(doors[door].drive.serve(), door: door)
    }

    /// What a door's opener said, and what its drive wrote or could not, to the door and the log.
    func hear(_ events: [OpenerEvent], door: Int) {
        guard !events.isEmpty else { return }
        let tag: [(String, String)] = [("door", controller.doors[door].id ?? String(door + 1))]
        let now = clock.now(), wall = EventRecord.now()
        for event in events {
            switch event {
            case .status(let state, let obstructed, let light, let locked):
                // Anyone on the wire can make it flap: once per burst of the same report.
                let fields = tag + [("state", state.description), ("obstructed", obstructed ? "yes" : "no"), ("light", light ? "on" : "off"),
                                    ("locked", locked ? "yes" : "no")]
                logOncePerBurst(.info, "opener-status", key: "opener-status " + fields.map(\.1).joined(separator: " "), fields)
                enact(controller.openerReported(state, obstructed: obstructed, light: light, remotesLocked: locked, of: door, at: now, wall: wall))
            case .answering(let answering):
                enact(controller.openerAnswered(answering, of: door, at: now, wall: wall))
            case .off(let why):
                enact(controller.openerOff(why, of: door, at: now, wall: wall))
            case .openings(let count):
                controller.openerCounted(openings: count, of: door)
            case .identified(let identity):
                controller.openerIdentified(identity, of: door)
            case .motion:
                controller.openerSawMotion(of: door, at: now)
            case .wallButton:
                controller.openerSawWallButton(of: door, at: now)
            case .battery(let battery):
                controller.openerReported(battery: battery, of: door)
            case .pressOver:
                enact(controller.pressEnded(door, at: now, wall: wall))
            case .pressNotSent(let permit, let why):
                enact(controller.pressNotSent(permit, why: why, at: now, wall: wall))
            case .warningShown(let at):
                log.info("warning", (doors.count > 1 ? tag : []) + [("output", "on"), ("shown_by", "the opener's light, flashing")])
                controller.warningShown(door, at: at)
            case .warningFailed(let why):
                log.error("warning-failed", (doors.count > 1 ? tag : []) + [("output", "the opener's light"), ("error", why),
                                                                           ("effect", "the press it was to announce is called off: nobody was warned")])
                enact(controller.warningFailed(door, at: now, wall: wall))
            case .note(let note):
                let level: Logger.Level = switch note.level {
                case .info: .info
                case .warning: .warning
                case .error: .error
                }
                log.log(level, note.event, (doors.count > 1 ? tag : []) + note.pairs)
            }
        }
    }

    /// Once a turn: the snapshot, compared with the last once; when it changed, every audience
    /// is given both (each sends what its view of them says).
    func publishStatus() {
        let now = clock.now()
        let snapshot = controller.snapshot(at: now, channels: channelStates)
        guard snapshot != lastSnapshot else { return }
        let old = lastSnapshot
        lastSnapshot = snapshot
        tellAudiences { $0.statusChanged(from: old, to: snapshot, at: now) }
    }

    /// Tells every audience, in order: the subscribers the daemon was built with, then each
    /// connection. No list of them is built: this runs for every record and every change.
    func tellAudiences(_ tell: (any DoorSubscriber) -> Void) {
        for subscriber in subscribers { tell(subscriber) }
        for connection in connections.values { tell(connection) }
    }

    /// The snapshot every audience has now (for `Lstatus` and a new follower).
    func currentSnapshot() -> StatusSnapshot { lastSnapshot ?? controller.snapshot(at: clock.now(), channels: channelStates) }

    /// The doors' status records the PIN in `slot` may see (`Controller.mayWatch`); none without one.
    func statusRecords(seenBy slot: Int?) -> [Reply] {
        guard let slot else { return [] }
        let now = clock.now(), snapshot = currentSnapshot()
        return snapshot.doors.indices.filter { controller.mayWatch($0, slot: slot) }.map { .record(snapshot.record(door: $0, at: now)) }
    }

    /// How each channel last said it stands, in a stable order.
    private var channelStates: [ChannelStatus] { channels.keys.sorted().compactMap { channels[$0] } }

    /// Starts a press the door's gate allowed. It cannot be refused, since the door decides no
    /// press before the last one was released; if it is (a bug), the door is told at once, so
    /// it never waits for a release that will not come.
    func press(_ permit: PressPermit, deadline: Instant? = nil) {
        // A refusal is logged by the drive, with its reason.
        let drive = doors[permit.door].drive
        guard drive.carryOut(permit, deadline: deadline ?? clock.now() + Door.maxRequestAge) else {
            enact(controller.pressEnded(permit.door, at: clock.now(), wall: EventRecord.now()))
            return
        }
        // A drive with a wire of its own writes the press now, on this turn.
        if drive.pollFD != nil { serveDrive(of: permit.door) }
    }

    /// A switch's descriptor polled readable: its edges go to the door, stamped as the kernel
    /// saw them.
    func readSwitch(_ input: any SwitchInput, of door: Int) {
        for edge in input.edges() {
            enact(controller.sensor(input.which, of: door, active: edge.active, at: edge.at, wall: EventRecord.now()))
        }
    }
}

/// One door's parts the loop drives: what moves it (today a relay, through the pulse driver),
/// its outputs and its switches.
struct DoorParts {
    /// The door's `Door.index`.
    let index: Int
    let drive: any DoorDrive
    let outputs: DoorOutputs
    let switches: [any SwitchInput]
}

/// The door's outputs besides the relay: the warning light or buzzer, and the garage light.
/// Switched from the loop's thread (a level that holds for seconds; the press's timing is the
/// relay thread's).
struct DoorOutputs: Sendable {
    enum Which: String { case warning, light }

    var warning: (any RelayLine)?
    var light: (any RelayLine)?

    init(warning: (any RelayLine)? = nil, light: (any RelayLine)? = nil) {
        self.warning = warning
        self.light = light
    }

    /// Switches an output; false when it could not be (said in the log). Nothing wired: true.
    @discardableResult
    func set(_ which: Which, _ on: Bool, log: Logger, _ tag: [(String, String)] = []) -> Bool {
        guard let line = which == .warning ? warning : light else { return true }
        do {
            try line.setActive(on)
            log.info(which.rawValue, tag + [("output", on ? "on" : "off")])
            return true
        } catch {
            log.log(.error, "\(which.rawValue)-failed", tag + [("error", error.description)])
            return false
        }
    }

    /// Leaves every output off and gives the lines back.
    func close() {
        warning?.close()
        light?.close()
    }
}

import DoorCore
import DoorSystem

/// The loop's side of the door: carrying out what the controller decided (the press first),
/// reading the limit switches, and telling phones.
extension DoorLoop {
    /// Carries out an outcome: presses go to the relay first, then the warning and the light
    /// switch, then the log, the history and the pushes to phones. A warning output that went
    /// on is confirmed to the door (its press waits a whole warning from then); one that could
    /// not be switched on calls its press off.
    func carryOut(_ outcome: Controller.Outcome, summaryKey: String = "garaged") {
        for permit in outcome.presses { press(permit) }
        var warningFailed = false
        for event in outcome.door {
            switch event {
            case .press(let p):
                // A press no request made just now: an auto-close, or a press its warning announced.
                if outcome.replies.isEmpty {
                    log.info(p.reason == .autoClose ? "auto-close" : "press-after-warning", ["press": p.reason.rawValue])
                }
            case .warning(let on):
                if outputs.set(.warning, on, log: log) {
                    if on { controller.warningShown(at: clock.now()) }
                } else if on {
                    warningFailed = true
                }
            case .pressWarned(let p):
                log.info("warning", ["press": p.rawValue, "after_s": String(controller.door.timing.warning?.secondsRoundedUp ?? 0)])
            case .light(let on):
                _ = outputs.set(.light, on, log: log)
            case .moved(let position, let bySomeoneElse):
                let fields = [("state", position.rawValue), ("by", bySomeoneElse ? "someone else (remote, button, hand)" : "garaged")]
                if bySomeoneElse {
                    logOncePerBurst(.info, "door", key: "door \(position.rawValue)", fields)
                } else {
                    log.info("door", fields)
                }
            case .fault(let f):
                logOncePerBurst(.warning, "door-fault", key: "fault \(f.rawValue)", [("fault", f.rawValue), ("why", f.explanation)])
            case .leftOpen(let d):
                log.warning("left-open", ["minutes": String(d.nanoseconds / 60_000_000_000)])
            case .pressCancelled(let p, let why):
                logOncePerBurst(.info, "press-cancelled", key: "cancelled \(p.rawValue)", [("press", p.rawValue), ("why", why)])
            case .holdEnded:
                log.info("hold-ended", [:])
            }
        }
        record(outcome.records, summaryKey: summaryKey)
        pendingPushes += outcome.pushes
        if warningFailed {
            log.error("warning-failed", ["effect": "the press it was to announce is called off: nobody was warned"])
            carryOut(controller.warningFailed(at: clock.now(), wall: EventRecord.now()))
        }
    }

    /// Tells every phone that enabled notifications what changed; after the replies of the
    /// request that caused it, so a phone's own answer comes first.
    func flushPushes() {
        guard !pendingPushes.isEmpty else { return }
        let pushes = pendingPushes
        pendingPushes.removeAll()
        for c in connections.values { if let bearer = c as? ATTConnection { bearer.push(pushes) } }
    }

    /// The retained values Home Assistant shows: the cover's state, who last opened it, the
    /// lockout, a fault (the channel sends only what changed).
    func publishToHomeAssistant() {
        guard let mqtt else { return }
        let ha = mqtt.ha, door = controller.door
        mqtt.retain(ha.stateTopic, HomeAssistant.state(door.position))
        mqtt.retain(ha.lastOpenedByTopic, lastOpenedBy)
        mqtt.retain(ha.lockoutTopic, HomeAssistant.lockout(controller.throttle, at: clock.now()))
        mqtt.retain(ha.faultTopic, door.fault.map { "\($0.rawValue): \($0.explanation)" } ?? "none")
        let s = mqtt.status
        controller.channelStatus = [("mqtt", .object([
            ("state", .string(s.state)), ("broker", .string(mqtt.settings.url)), ("since", .number(s.since)),
            ("last_error", s.lastError.map { .string($0) } ?? .null),
            ("commands", .bool(mqtt.settings.commands)),
        ]))]
    }

    /// Starts a press the door's gate allowed. It cannot be refused, since the door decides no
    /// press before the last one was released; if it is (a bug), the door is told at once, so
    /// it never waits for a release that will not come.
    func press(_ permit: PressPermit) {
        guard !pulser.press(permit) else { return }
        log.error("press-refused", ["reason": permit.reason.rawValue, "why": "the relay thread was still pressing or stopping"])
        carryOut(controller.relayReleased(at: clock.now(), wall: EventRecord.now()))
    }

    /// A switch's descriptor polled readable: its edges go to the door, stamped as the kernel
    /// saw them.
    func readSwitch(_ input: any SwitchInput) {
        for edge in input.edges() {
            carryOut(controller.sensor(input.which, active: edge.active, at: edge.at, wall: EventRecord.now()))
        }
    }
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
    func set(_ which: Which, _ on: Bool, log: Logger) -> Bool {
        guard let line = which == .warning ? warning : light else { return true }
        do {
            try line.setActive(on)
            log.info(which.rawValue, ["output": on ? "on" : "off"])
            return true
        } catch {
            log.error("\(which.rawValue)-failed", ["error": error.description])
            return false
        }
    }

    /// Leaves every output off and gives the lines back.
    func close() {
        warning?.close()
        light?.close()
    }
}

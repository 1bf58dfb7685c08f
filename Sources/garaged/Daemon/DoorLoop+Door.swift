import DoorCore
import DoorSystem

/// The loop's side of the door: carrying out what the controller decided (the press first),
/// reading the limit switches, and telling phones.
extension DoorLoop {
    /// Carries out an outcome: presses go to the relay thread first, then the warning and
    /// the light switch, then the log, the history and the pushes to phones.
    func carryOut(_ outcome: Controller.Outcome, summaryKey: String = "garaged") {
        if !outcome.pressesStarted {
            for case .press(let p) in outcome.door { press(p) }
        }
        tellRefusedPresses()
        for event in outcome.door {
            switch event {
            case .press(let p):
                if p == .autoClose || p == .close { log.info(p == .autoClose ? "auto-close" : "close-after-warning", ["press": p.rawValue]) }
            case .warning(let on):
                outputs.set(.warning, on, log: log)
                if on { controller.warningShown(at: clock.now()) }
            case .light(let on):
                outputs.set(.light, on, log: log)
            case .moved(let position, let bySomeoneElse):
                log.info("door", ["state": position.rawValue, "by": bySomeoneElse ? "someone else (remote, button, hand)" : "garaged"])
            case .fault(let f):
                log.warning("door-fault", ["fault": f.rawValue, "why": f.explanation])
            case .leftOpen(let d):
                log.warning("left-open", ["minutes": String(d.nanoseconds / 60_000_000_000)])
            case .closeCancelled(let why):
                log.info("close-cancelled", ["why": why])
            case .holdEnded:
                log.info("hold-ended", [:])
            }
        }
        record(outcome.records, summaryKey: summaryKey)
        pendingPushes += outcome.pushes
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

    /// Starts a press the door decided (called by the controller the moment it decides). It
    /// cannot be refused, since the door decides no press before the last one was released;
    /// if it is (a bug), the door is told once the current input is carried out, so it never
    /// waits for a release that will not come.
    func press(_ press: Door.Press) {
        if !pulser.press(press) { refusedPresses.append(press) }
    }

    private func tellRefusedPresses() {
        guard !refusedPresses.isEmpty else { return }
        let refused = refusedPresses
        refusedPresses.removeAll()
        for p in refused {
            log.error("press-refused", ["reason": p.rawValue, "why": "the relay thread was still pressing or stopping"])
            carryOut(controller.relayReleased(at: clock.now(), wall: EventRecord.now()))
        }
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

    func set(_ which: Which, _ on: Bool, log: Logger) {
        guard let line = which == .warning ? warning : light else { return }
        do {
            try line.setActive(on)
            log.info(which.rawValue, ["output": on ? "on" : "off"])
        } catch {
            log.error("\(which.rawValue)-failed", ["error": error.description])
        }
    }

    /// Leaves every output off and gives the lines back.
    func close() {
        warning?.close()
        light?.close()
    }
}

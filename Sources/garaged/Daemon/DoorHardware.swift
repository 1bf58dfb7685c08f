import DoorCore

/// The lines the door uses, claimed together at start (the relay and the outputs inactive in
/// the same request, the switches read) and given back together if the start fails.
struct DoorHardware {
    /// The relay line; nil for a door moved by its opener.
    let relay: (any RelayLine)?
    /// The opener's serial device, for a door with an opener.
    let opener: SerialPort?
    let outputs: DoorOutputs
    let switches: [any SwitchInput]
    /// What the switches read at start (false for a switch there is not).
    let closedActive: Bool
    let openActive: Bool
    /// What the photo-eye read at start (false when none is wired).
    let obstructed: Bool

    static func claim(_ settings: DoorSettings, clock: any MonotonicClock) throws(RelayError) -> DoorHardware {
        var claimed: [any RelayLine] = []
        var switches: [any SwitchInput] = []
        func giveBack() {
            for l in claimed { l.close() }
            for s in switches { s.close() }
        }
        var opener: SerialPort?
        do throws(RelayError) {
            var relay: (any RelayLine)?
            switch settings.opener {
            case .secPlus2(let device)?: opener = try SerialPort(path: device, line: SecPlus2Session.line)
            case .secPlus1(let device)?:
                // Security+ 1.0 is 8E1: a UART without parity would garble every byte both ways.
                if let why = MiniUART.refusal(device) { throw RelayError(why) }
                opener = try SerialPort(path: device, line: SecPlus1Session.line)
            case .auto(let device)?:
                // It may find Security+ 1.0: the same UART as for secplus1. The search sets the line.
                if let why = MiniUART.refusal(device, for: .auto) { throw RelayError(why) }
                opener = try SerialPort(path: device, line: SecPlus2Session.line)
            case nil:
                let line = try settings.relay.open(activeLow: settings.activeLow, clock: clock)
                claimed.append(line)
                relay = line
            }
            let warning = try settings.warn.map { spec throws(RelayError) in try spec.open(activeLow: settings.warnActiveLow, clock: clock) }
            if let warning { claimed.append(warning) }
            let light = try settings.light.map { spec throws(RelayError) in try spec.open(activeLow: settings.lightActiveLow, clock: clock) }
            if let light { claimed.append(light) }
            var closed = false, open = false
            if let spec = settings.sensorClosed {
                let s = try spec.openSwitch(.closed, activeLow: settings.sensorClosedActiveLow, clock: clock)
                switches.append(s)
                closed = try s.level()
            }
            if let spec = settings.sensorOpen {
                let s = try spec.openSwitch(.open, activeLow: settings.sensorOpenActiveLow, clock: clock)
                switches.append(s)
                open = try s.level()
            }
            var obstructed = false
            if let spec = settings.sensorObstruction {
                let s = try spec.openSwitch(.obstruction, activeLow: settings.sensorObstructionActiveLow, clock: clock)
                switches.append(s)
                obstructed = try s.level()
            }
            return DoorHardware(relay: relay, opener: opener, outputs: DoorOutputs(warning: warning, light: light), switches: switches,
                                closedActive: closed, openActive: open, obstructed: obstructed)
        } catch {
            opener?.close()
            giveBack()
            throw error
        }
    }

    /// Gives every line back (the relay's is the pulse driver's to close).
    func releaseAllButTheRelay() {
        outputs.close()
        for s in switches { s.close() }
    }

    /// Gives every line back, the relay's too: for a start that failed after the claim.
    func releaseAll() {
        releaseAllButTheRelay()
        relay?.close()
        opener?.close()
    }
}

/// The door's lines besides the relay (the warning output, the light, the switches) as a
/// service: claimed before anything starts, given back when garaged stops, after the relay's
/// last press (the pulse driver lets the relay go itself).
final class DoorLines: Service, @unchecked Sendable {
    let hardware: DoorHardware
    var name: String { "door-lines" }

    init(_ hardware: DoorHardware) { self.hardware = hardware }

    func start() {}

    func stop() -> Bool {
        hardware.releaseAllButTheRelay()
        return true
    }
}

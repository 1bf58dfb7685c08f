import CGpio
import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
#endif

/// The GPIO lines: each chip and line there and free (or held by the running garaged), the
/// outputs at rest through the Pi's boot, the switches readable.
extension DoctorChecks {
    func lines(into report: inout DoctorReport) {
        for door in settings.doors {
            // With [door] sections each line is named by its door: "gate relay".
            let of = door.id.map { "\($0) " } ?? ""
            if door.opener == nil { output(of + "relay", door.relay, activeLow: door.activeLow, into: &report) }
            if let spec = door.warn { output(of + "warning", spec, activeLow: door.warnActiveLow, into: &report) }
            if let spec = door.light { output(of + "light", spec, activeLow: door.lightActiveLow, into: &report) }
            if let spec = door.sensorClosed { input(.closed, of, spec, activeLow: door.sensorClosedActiveLow, into: &report) }
            if let spec = door.sensorOpen { input(.open, of, spec, activeLow: door.sensorOpenActiveLow, into: &report) }
            if let spec = door.sensorObstruction { input(.obstruction, of, spec, activeLow: door.sensorObstructionActiveLow, into: &report) }
            if door.capabilities.position == .believed {
                report.add(.warn, of + "sensors", "none: garaged only believes where \(door.label) is; a reed switch on --\(door.id.map { "door.\($0)." } ?? "")sensor-closed lets it know (wiring/README.md)")
            }
        }
    }

    private func output(_ role: String, _ spec: RelaySpec, activeLow: Bool, into report: inout DoctorReport) {
        guard case .gpio(let chip, let line) = spec else {
            report.add(.ok, role, "simulated (\(spec)): no hardware moves" + (role.hasSuffix("relay") ? "; for a real relay give --relay CHIP:LINE, e.g. gpiochip0:17" : ""))
            return
        }
        guard let probe = probe(role, chip, line, into: &report) else { return }
        guard let level = PowerUpLevel.raspberryPi(chipLabel: probe.label, offset: Int(probe.offset)) else {
            report.add(.ok, role, "\(probe.label.isEmpty ? probe.chip : probe.label) is not a Raspberry Pi 1–4 GPIO chip: check with a meter that the line keeps the \(role) off while the machine boots")
            return
        }
        if let advice = PowerUpLevel.advice(level, gpio: Int(probe.offset), activeLow: activeLow, role: role) {
            report.add(.warn, role, advice)
        } else {
            report.add(.ok, role, "GPIO\(probe.offset) is pulled \(level.rawValue) at power-up: the \(activeLow ? "active-low" : "active-high") \(role) stays off while the Pi boots")
        }
    }

    private func input(_ which: DoorSwitch, _ of: String, _ spec: RelaySpec, activeLow: Bool, into report: inout DoctorReport) {
        let role = of + "sensor-\(which.rawValue)"
        if case .gpio(let chip, let line) = spec {
            guard let probe = probe(role, chip, line, into: &report), !probe.heldByGaraged else { return }
        }
        // Free (or simulated): read it once, as garaged would at start.
        do {
            let input = try spec.openSwitch(which, activeLow: activeLow, clock: SystemMonotonicClock())
            defer { input.close() }
            let active = try input.level()
            let meaning = which == .obstruction
                ? (active ? "active: the photo-eye's beam is broken now" : "inactive: the photo-eye's beam is clear now")
                : (active ? "active: the door is \(which.rawValue) now" : "inactive: the door is not \(which.rawValue) now")
            report.add(.ok, role, "\(spec) reads \(meaning); if that is wrong, flip --\(role)-active-low")
        } catch {
            report.add(.fail, role, error.description)
        }
    }

    /// What a line is and who holds it; nil after reporting a failure.
    private func probe(_ role: String, _ chip: String, _ line: String,
                       into report: inout DoctorReport) -> (chip: String, label: String, offset: UInt32, heldByGaraged: Bool)? {
        var info = cgpio_line_report()
        var err = [CChar](repeating: 0, count: 512)
        guard cgpio_probe(chip, line, &info, &err, err.count) == 0 else {
            report.add(.fail, role, text(err))
            return nil
        }
        let name = cField(info.chip_name), label = cField(info.chip_label)
        let lineName = cField(info.line_name), consumer = cField(info.consumer)
        let place = "\(name):\(info.offset)" + (lineName.isEmpty ? "" : " (\(lineName))") + (label.isEmpty ? "" : " on \(label)")
        var held = false
        if info.used != 0 {
            if consumer.hasPrefix("garaged"), let pid = runningDaemon {
                held = true
                report.add(.ok, role, "\(place) is held by the running garaged (pid \(pid))")
            } else if consumer.hasPrefix("garaged") {
                report.add(.fail, role, "\(place) is in use by \"\(consumer)\", a garaged running with another table; stop it (sudo systemctl stop garaged) or choose another line")
                return nil
            } else {
                report.add(.fail, role, "\(place) is in use by \(consumer.isEmpty ? "another process or driver" : "\"\(consumer)\""); free it (see gpioinfo \(name)) or choose another line")
                return nil
            }
        } else {
            report.add(.ok, role, "\(place) exists and is free")
        }
        return (name, label, info.offset, held)
    }
}


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
        output("relay", settings.relay, activeLow: settings.activeLow, into: &report)
        if let spec = settings.warn { output("warning", spec, activeLow: settings.warnActiveLow, into: &report) }
        if let spec = settings.light { output("light", spec, activeLow: settings.lightActiveLow, into: &report) }
        if let spec = settings.sensorClosed { input(.closed, spec, activeLow: settings.sensorClosedActiveLow, into: &report) }
        if let spec = settings.sensorOpen { input(.open, spec, activeLow: settings.sensorOpenActiveLow, into: &report) }
        if settings.sensing.believed {
            report.add(.warn, "sensors", "none: garaged only believes where the door is; a reed switch on --sensor-closed lets it know (wiring/README.md)")
        }
    }

    private func output(_ role: String, _ spec: RelaySpec, activeLow: Bool, into report: inout DoctorReport) {
        guard case .gpio(let chip, let line) = spec else {
            report.add(.ok, role, "simulated (\(spec)): no hardware moves" + (role == "relay" ? "; for a real relay give --relay CHIP:LINE, e.g. gpiochip0:17" : ""))
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

    private func input(_ which: DoorSwitch, _ spec: RelaySpec, activeLow: Bool, into report: inout DoctorReport) {
        let role = "sensor-\(which.rawValue)"
        if case .gpio(let chip, let line) = spec {
            guard let probe = probe(role, chip, line, into: &report), !probe.heldByGaraged else { return }
        }
        // Free (or simulated): read it once, as garaged would at start.
        do {
            let input = try spec.openSwitch(which, activeLow: activeLow, clock: SystemMonotonicClock())
            defer { input.close() }
            let active = try input.level()
            report.add(.ok, role, "\(spec) reads \(active ? "active: the door is \(which.rawValue) now" : "inactive: the door is not \(which.rawValue) now"); if that is wrong, flip --\(role)-active-low")
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


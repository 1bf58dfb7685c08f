import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
#endif

/// An opener's serial device: on a Raspberry Pi the UART on pins 8 and 10 as its model and
/// config.txt set them up (not Bluetooth's, not the debug connector's; for Security+ 1.0 not the
/// mini UART, which has no parity), there, a character device, not the kernel's serial console
/// nor a getty's, and the opener answers (2.0: GET_STATUS; 1.0: its door's state, to a wall
/// panel's questions or garaged's). The Pi's files, the boot files and systemd's directory are
/// read under `root`.
extension DoctorChecks {
    func openers(into report: inout DoctorReport) {
        for (index, door) in settings.doors.enumerated() {
            guard let spec = door.opener else { continue }
            let role = door.id.map { "\($0) opener" } ?? "opener"
            if case .auto = spec { kept(role, OpenerFoundFile(tablePath: settings.pins, door: DoorSetup.fileName(index, door)), into: &report) }
            opener(role, spec, into: &report)
        }
    }

    /// An `auto` door's kept search result: what was found and how, or that none is kept.
    private func kept(_ role: String, _ file: OpenerFoundFile, into report: inout DoctorReport) {
        do throws(StoreError) {
            if let kept = try file.load() {
                report.add(.ok, role, "auto: \(kept.kind.title) kept in \(file.path) (found by \(kept.how)): garaged speaks it at start without searching, and searches again if it stays silent; remove the file to force a new search")
            } else {
                report.add(.ok, role, "auto: no search result kept yet (\(file.path)): garaged searches the wire at start (Security+ 2.0 at 9600 8N1, then 1.0 at 1200 8E1) and keeps what it finds")
            }
        } catch {
            report.add(.warn, role, "auto: \(error.description); garaged searches the wire again at start")
        }
    }

    private func opener(_ role: String, _ spec: OpenerSpec, into report: inout DoctorReport) {
        let device = spec.device
        let example: String
        switch spec {
        case .secPlus2: example = "secplus2:/dev/serial0 on a Pi 3, 4, 400 or Zero 2 W, secplus2:/dev/ttyAMA0 on a Pi 5"
        case .secPlus1, .auto:
            example = "\(spec.kind == .auto ? "auto" : "secplus1"):/dev/ttyAMA0 (the PL011: with dtoverlay=miniuart-bt on a Pi 3, 4, 400 or Zero 2 W, dtparam=uart0=on on a Pi 5)"
            if let why = MiniUART.refusal(device, for: spec.kind) {
                report.add(.fail, role, why)
                return
            }
        }
        let pi = RaspberryPi.serial(root: root)
        if let pi, !uart(role, device, on: pi, into: &report) { return }
        var st = stat()
        guard stat(device, &st) == 0 else {
            let advice = pi.map { "enable the UART: \($0.advice), then reboot" } ?? "enable the UART and give its device: \(example) (docs/openers.md)"
            report.add(.fail, role, "\(device): \(DoctorChecks.errnoText()); \(advice)")
            return
        }
        guard st.st_mode & S_IFMT == S_IFCHR else {
            report.add(.fail, role, "\(device) is not a serial device (not a character device): give the UART's device: \(example) (docs/openers.md)")
            return
        }
        let names = deviceNames(device)
        if let console = serialConsole(names) {
            report.add(.fail, role, "\(device) is the kernel's serial console (\(console.entry) in \(console.file)): remove it from that line (raspi-config: Interface Options, Serial Port, no login shell, hardware enabled) and reboot")
        }
        if let getty = gettyOn(names) {
            report.add(.fail, role, "a login prompt is enabled on \(device) (\(getty)): systemctl disable --now \(getty.split(separator: "/").last.map(String.init) ?? getty)")
        }
        if let pid = runningDaemon {
            report.add(.ok, role, "\(device): garaged is running (pid \(pid)) and holds it: that's fine; stop it to have doctor ask the opener")
            return
        }
        let port: SerialPort
        do {
            switch spec {
            case .secPlus2, .auto: port = try SerialPort(path: device, line: SecPlus2Session.line)
            case .secPlus1: port = try SerialPort(path: device, line: SecPlus1Session.line)
            }
        } catch {
            report.add(.fail, role, error.description)
            return
        }
        defer { port.close() }
        if case .auto = spec {
            search(role, port, into: &report)
            return
        }
        if case .secPlus1 = spec {
            if let heard = listenToSecPlus1(port) {
                report.add(.ok, role, "\(device): the Security+ 1.0 opener answered (door \(heard.state); \(heard.panel ? "a wall panel polls it" : "no wall panel heard: garaged asks it itself"))")
            } else {
                report.add(.fail, role, "\(device): no Security+ 1.0 opener answered within \(DoctorChecks.secPlus1Within.secondsRoundedUp) s: check the circuit (TXD and RXD through the level circuit to the red terminal, docs/openers.md), that the UART is the PL011 (1200 baud, even parity), and that the opener has a purple, red or orange learn button")
            }
            return
        }
        if let state = askStatus(port) {
            report.add(.ok, role, "\(device): the Security+ 2.0 opener answered (door \(state))")
        } else {
            report.add(.fail, role, "\(device): no Security+ 2.0 opener answered GET_STATUS within 2 s: check the circuit (TXD and RXD through the non-inverting level circuit to the red terminal, docs/openers.md), and that the opener has a yellow learn button")
        }
    }

    /// `auto`: what answers, as the search would find it (GET_STATUS at 9600 8N1, then a 1.0
    /// panel's polls or an answer to 0x38 at 1200 8E1), or what to check when nothing does.
    private func search(_ role: String, _ port: SerialPort, into report: inout DoctorReport) {
        let device = port.path
        if let state = askStatus(port) {
            report.add(.ok, role, "\(device): found Security+ 2.0 (an answer to GET_STATUS at 9600 8N1; door \(state))")
            return
        }
        if port.set(SecPlus1Session.line) == nil, let heard = listenToSecPlus1(port) {
            report.add(.ok, role, "\(device): found Security+ 1.0 at 1200 8E1 (\(heard.panel ? "a wall panel's polls, and the opener's answers" : "the opener's answer to 0x38"); door \(heard.state))")
            return
        }
        report.add(.fail, role, "\(device): nothing answered: no Security+ 2.0 STATUS to GET_STATUS at 9600 8N1 within 2 s, no Security+ 1.0 answer at 1200 8E1 within \(DoctorChecks.secPlus1Within.secondsRoundedUp) s; check the circuit (TXD and RXD through the level circuit to the red terminal, docs/openers.md), the opener's power, and that the UART is the PL011 (1.0 needs even parity)")
    }

    /// Which of the Pi's UARTs the device is, and what config.txt should say (`PiSerial.findings`);
    /// false when nothing more should be tried on it: a Bluetooth controller's UART or the
    /// debug connector's is never sent a packet. Says too when /dev/serial0 does not lead where
    /// config.txt says: a change that waits for a reboot.
    private func uart(_ role: String, _ device: String, on pi: PiSerial, into report: inout DoctorReport) -> Bool {
        let resolved = RaspberryPi.deviceName(device)
        for finding in pi.findings(device: device, resolved: resolved, ble: settings.ble) {
            report.add(DoctorChecks.level(finding.level), role, finding.text)
        }
        let now = RaspberryPi.deviceName(root + "/dev/serial0")
        if now != "serial0", let meant = pi.serial0, now != meant {
            report.add(.warn, role, "/dev/serial0 leads to \(now), but \(pi.configFile ?? "config.txt") as it is now makes it \(meant): it changed since the Pi started; sudo reboot")
        }
        switch pi.role(of: resolved) {
        case .bluetooth, .debugConnector: return false
        case .onPins, .offPins, .elsewhere: return true
        }
    }

    static func level(_ level: PiSerial.Level) -> DoctorReport.Level {
        switch level {
        case .ok: return .ok
        case .warn: return .warn
        case .fail: return .fail
        }
    }

    /// The device's path, where its links lead and its name in /dev: how a console or a getty names it.
    private func deviceNames(_ device: String) -> Set<String> {
        var names: Set<String> = [device]
        if let real = realpath(device, nil) {
            names.insert(String(cString: real))
            free(real)
        }
        for n in Array(names) { names.insert(String(n.split(separator: "/").last ?? "")) }
        return names
    }

    /// The `console=` entry of the kernel's command line that is this device, with its file.
    private func serialConsole(_ names: Set<String>) -> (entry: String, file: String)? {
        for file in ["/boot/firmware/cmdline.txt", "/boot/cmdline.txt"] {
            guard let bytes = (try? AtomicFile.read(root + file, limit: 64 << 10)) ?? nil else { continue }
            for word in String(decoding: bytes, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" }) where word.hasPrefix("console=") {
                let name = String(word.dropFirst("console=".count).split(separator: ",").first ?? "")
                var candidates: Set<String> = [name, "/dev/" + name]
                if let real = realpath("/dev/" + name, nil) {
                    candidates.insert(String(cString: real))
                    free(real)
                }
                if !candidates.isDisjoint(with: names) { return (String(word), file) }
            }
            return nil  // the first file present is the one the Pi boots with
        }
        return nil
    }

    /// An enabled serial-getty@NAME.service on this device.
    private func gettyOn(_ names: Set<String>) -> String? {
        let dir = root + "/etc/systemd/system/getty.target.wants"
        for name in names where !name.contains("/") {
            let unit = dir + "/serial-getty@\(name).service"
            var st = stat()
            if lstat(unit, &st) == 0 { return unit }
        }
        return nil
    }

    /// How long doctor gives a Security+ 1.0 opener: 1 s to hear a wall panel, then ratgdo's start
    /// and its questions until two answers of each agree (about 5 s).
    static let secPlus1Within: Duration = .seconds(8)

    /// Runs a Security+ 1.0 session on the port, listening 1 s for a wall panel before asking
    /// the opener itself, until it says where the door is: its state and whether a panel was
    /// heard; nil when nothing answered within `secPlus1Within`. It presses no button.
    private func listenToSecPlus1(_ port: SerialPort) -> (state: String, panel: Bool)? {
        let clock = SystemMonotonicClock()
        var timing = SecPlus1Session.Timing()
        timing.listenFor = .seconds(1)
        var session = SecPlus1Session(device: port.path, timing: timing, at: clock.now())
        let deadline = clock.now() + DoctorChecks.secPlus1Within
        var fds = [pollfd(fd: port.fd, events: Int16(POLLIN), revents: 0)]
        while clock.now() < deadline {
            var events: [OpenerEvent] = []
            guard let bytes = port.readAvailable() else { return nil }
            events += session.received(bytes, at: clock.now())
            let step = session.due(at: clock.now())
            events += step.events
            if let write = step.write {
                let ok = port.writeAll(write, drain: false)
                events += session.wrote(ok: ok, unsent: ok ? port.unsent() : 0, error: nil, at: clock.now())
            }
            for case .status(let state, _, _, _) in events where state != .unknown {
                return (state.description, session.role == .withPanel)
            }
            let wake = min(deadline, session.nextWake ?? deadline)
            _ = waitFor(&fds, timeout: max(.zero, wake - clock.now()))
        }
        return nil
    }

    /// Sends GET_STATUS with a client id of doctor's own (random, so garaged's codes and its file
    /// are untouched) and waits up to 2 s for the opener's STATUS; its door state, or nil.
    private func askStatus(_ port: SerialPort) -> String? {
        var random = SystemRandomNumberGenerator()
        let client = SecPlus2ClientID(UInt32.random(in: 0...UInt32.max, using: &random) & ~0xFFF | 0xD0C)
        guard let packet = try? SecPlus2Fields(command: .getStatus, client: client).packet(rolling: UInt32.random(in: 1...0xFFFF, using: &random)) else { return nil }
        let clock = SystemMonotonicClock()
        _ = port.sendBreak(SecPlus2Session.line.breakBefore ?? .zero)
        guard port.writeAll(packet.encoded) else { return nil }
        var receiver = SecPlus2Receiver()
        let deadline = clock.now() + .seconds(2)
        var fds = [pollfd(fd: port.fd, events: Int16(POLLIN), revents: 0)]
        while clock.now() < deadline {
            _ = waitFor(&fds, timeout: deadline - clock.now())
            guard let bytes = port.readAvailable() else { return nil }
            for item in receiver.feed(bytes, at: clock.now()) {
                guard case .packet(let p, _) = item, !client.isEcho(p) else { continue }
                if case .status(let state, _, _, _, _) = SecPlus2Message(p) { return state.description }
            }
        }
        return nil
    }
}

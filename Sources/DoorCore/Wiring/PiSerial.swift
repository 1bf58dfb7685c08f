/// A Raspberry Pi's serial ports as its model and config.txt set them up: which UART reaches
/// GPIO14/15 (header pins 8 and 10, where an opener's circuit goes) and which one the Bluetooth
/// controller holds. It differs by model and by two overlays, and the wrong device either
/// reaches nothing or takes the UART the book's app and the beacon need. Pure: the model's name
/// and config.txt's text come in (`PiSerial.init`), the decision (`refusal`) and what `garaged
/// doctor` says (`findings`) come out.
public struct PiSerial: Sendable, Equatable {
    /// The kinds of board that differ in where their UARTs go.
    public enum Board: Sendable, Equatable {
        /// Pi 3, 4, 400, Zero W, Zero 2 W: the PL011 (ttyAMA0) is wired to Bluetooth and the mini
        /// UART (ttyS0) is on the pins, unless `disable-bt` or `miniuart-bt` changes that.
        case bluetoothOnPL011
        /// Pi 5, 500, Compute Module 5: ttyAMA0 is on the pins once `dtparam=uart0=on`; serial0
        /// is the debug connector's UART (ttyAMA10); Bluetooth has a UART of its own.
        case pi5
        /// Pi 1, 2 and Zero: the PL011 is on the pins, and there is no Bluetooth.
        case pl011OnPins
        /// Compute Modules 1 to 4 (their carrier board decides) and models not known here.
        case other
    }

    /// The overlays that move Bluetooth off the PL011.
    public enum BluetoothOverlay: Sendable, Equatable {
        /// `disable-bt`: Bluetooth off, the PL011 on the pins.
        case disableBT
        /// `miniuart-bt`: Bluetooth on the mini UART, the PL011 on the pins.
        case miniUARTBT
    }

    /// A config.txt line that decides something here, and where it is, for messages.
    public struct Line: Sendable, Equatable, CustomStringConvertible {
        public let text: String
        public let file: String
        public let number: Int

        public var description: String { "\(text) on line \(number) of \(file)" }
    }

    /// A value config.txt sets, with the line that set it last.
    public struct Configured<Value: Sendable & Equatable>: Sendable, Equatable {
        public let value: Value
        public let line: Line
    }

    /// What config.txt says about the UARTs, for this board (lines under another model's filter
    /// left out).
    public struct Boot: Sendable, Equatable {
        public var bluetoothOverlay: Configured<BluetoothOverlay>?
        public var enableUART: Configured<Bool>?
        /// Pi 5: `dtparam=uart0` (or `dtoverlay=uart0-pi5`): ttyAMA0 on the pins.
        public var uart0: Configured<Bool>?
        /// Pi 5: `dtparam=uart0_console`: ttyAMA0 on the pins and serial0 leads to it.
        public var uart0Console: Configured<Bool>?
        public var coreFreq: Configured<Int>?
        public var forceTurbo: Configured<Bool>?
        /// Lines that would matter here but sit under a filter this Pi does not read (`[cm4]`).
        public var skipped: [Line] = []

        public init() {}
    }

    /// How `garaged doctor` rates a finding, as its own lines do.
    public enum Level: Sendable, Equatable { case ok, warn, fail }

    /// What the device is on this Pi.
    public enum Role: Sendable, Equatable {
        /// The UART on pins 8 and 10: where the opener's circuit is.
        case onPins
        /// The UART the Bluetooth controller is wired to.
        case bluetooth
        /// Pi 5: the 3-pin debug connector's UART.
        case debugConnector
        /// One of the Pi's two first UARTs, but not on the pins (and not Bluetooth's) as set up.
        case offPins
        /// Not one of the UARTs this knows: a USB adapter, a UART on other pins.
        case elsewhere
    }

    /// `/proc/device-tree/model` without its NUL: "Raspberry Pi 4 Model B Rev 1.4".
    public let model: String
    public let board: Board
    /// The model filters of config.txt this Pi reads (`pi4`, `pi400`...).
    public let filters: Set<String>
    /// The config.txt garaged read (its path), nil when there was none.
    public let configFile: String?
    public let boot: Boot

    /// The Pi described by its device tree's model and its config.txt (`configFile`'s text,
    /// `include` lines read through `include`); nil when the model is not a Raspberry Pi's.
    public init?(model text: String?, configFile: String?, config: String?, include: (String) -> String? = { _ in nil }) {
        guard let text else { return nil }
        let model = String(text.unicodeScalars.filter { $0 != "\0" }).trimmingSpaces
        guard model.hasPrefix("Raspberry Pi") else { return nil }
        self.model = model
        (board, filters) = PiSerial.kind(of: model)
        self.configFile = configFile
        var boot = Boot()
        var state = FilterState()
        if let configFile, let config {
            PiSerial.parse(config, file: configFile, filters: filters, include: include, depth: 0, state: &state, into: &boot)
        }
        self.boot = boot
    }

    // MARK: where each UART is

    /// The Bluetooth overlay in force, on a board where one matters.
    private var overlay: BluetoothOverlay? { board == .bluetoothOnPL011 ? boot.bluetoothOverlay?.value : nil }

    /// The UART on pins 8 and 10, by its name in /dev; nil when none is set up there.
    public var onPins: String? {
        switch board {
        case .bluetoothOnPL011: return overlay == nil ? "ttyS0" : "ttyAMA0"
        case .pi5: return uart0 ? "ttyAMA0" : nil
        case .pl011OnPins: return "ttyAMA0"
        case .other: return nil
        }
    }

    /// The UART the Bluetooth controller holds; nil when it is off or has a UART of its own.
    public var bluetooth: String? {
        guard board == .bluetoothOnPL011 else { return nil }
        switch overlay {
        case nil: return "ttyAMA0"
        case .miniUARTBT?: return "ttyS0"
        case .disableBT?: return nil
        }
    }

    /// Where /dev/serial0 (the primary UART) leads as set up; nil when not known here.
    public var serial0: String? {
        switch board {
        case .bluetoothOnPL011, .pl011OnPins: return onPins
        case .pi5: return boot.uart0Console?.value == true ? "ttyAMA0" : "ttyAMA10"
        case .other: return nil
        }
    }

    /// Where /dev/serial1 (the secondary UART) leads as set up; nil when not known here.
    public var serial1: String? {
        switch board {
        case .bluetoothOnPL011: return bluetooth
        case .pl011OnPins: return "ttyS0"
        case .pi5, .other: return nil
        }
    }

    /// Pi 5: whether config.txt puts ttyAMA0 on the pins.
    private var uart0: Bool { boot.uart0?.value == true || boot.uart0Console?.value == true }

    /// Whether config.txt leaves the primary UART on (`enable_uart`'s default: on where the PL011
    /// is the primary UART, off where the mini UART is).
    private var uartEnabled: Bool { board == .pi5 || (boot.enableUART?.value ?? (onPins == "ttyAMA0")) }

    /// What the device called `name` in /dev is on this Pi: its name after its links
    /// (`ttyAMA0`), or `serial0` / `serial1` themselves when the links could not be followed.
    public func role(of name: String) -> Role {
        let tty = name == "serial0" ? serial0 ?? name : name == "serial1" ? serial1 ?? name : name
        if tty == bluetooth { return .bluetooth }
        if tty == onPins { return .onPins }
        if board == .pi5, tty == "ttyAMA10" { return .debugConnector }
        if board != .other, tty == "ttyAMA0" || tty == "ttyS0" { return .offPins }
        return .elsewhere
    }

    // MARK: the decision at start

    /// Why garaged must not start with an opener on `device` (`resolved` is its name in /dev
    /// after its links): it is the Bluetooth controller's UART, which never reaches the
    /// opener's wire, and with `ble` on, garaged's own Bluetooth needs it. Nil when it is not.
    public func refusal(device: String, resolved: String, ble: Bool) -> String? {
        guard role(of: resolved) == .bluetooth else { return nil }
        return "\(named(device, resolved)) is the Bluetooth controller's UART on this \(model), not the UART on pins 8 and 10 (GPIO14/15) where the opener's circuit is: \(bluetoothWhy). \(bluetoothFix(ble: ble))"
    }

    /// "/dev/serial1 (ttyAMA0)" when the name in /dev differs from the path given.
    private func named(_ device: String, _ resolved: String) -> String {
        device.split(separator: "/").last.map(String.init) == resolved ? device : "\(device) (\(resolved))"
    }

    private var file: String { configFile ?? "config.txt" }

    private var bluetoothWhy: String {
        if let set = boot.bluetoothOverlay, set.value == .miniUARTBT {
            return "\(set.line) moves Bluetooth to the mini UART ttyS0"
        }
        let skipped = boot.skipped.filter { $0.text.contains("-bt") }
        let under = skipped.isEmpty ? "" : " (\(skipped.map(\.description).joined(separator: ", ")) is under another model's [filter], which this Pi does not read)"
        return "\(file) has no dtoverlay=miniuart-bt or dtoverlay=disable-bt for this Pi\(under), so the PL011 ttyAMA0 is wired to Bluetooth"
    }

    private func bluetoothFix(ble: Bool) -> String {
        guard overlay == nil else { return "Use opener = secplus2:/dev/serial0, the UART on the pins (the PL011 ttyAMA0)." }
        let fix = "Use opener = secplus2:/dev/serial0, the UART on the pins (the mini UART ttyS0, with enable_uart=1 in \(file)); or "
        return fix + (ble
            ? "to have the PL011 on the pins and keep Bluetooth (garaged's ble needs it, for the book's app and the beacon), add dtoverlay=miniuart-bt and core_freq=250 to \(file) and reboot: Bluetooth moves to the mini UART, and serial0 leads to ttyAMA0."
            : "to have the PL011 on the pins, as ble is off, add dtoverlay=disable-bt to \(file), sudo systemctl disable hciuart, and reboot: serial0 then leads to ttyAMA0.")
    }

    // MARK: what doctor says

    /// What `garaged doctor` says about an opener on `device` (`resolved`: its name in /dev
    /// after its links) on this Pi, first line first: the device's role and the config.txt lines
    /// behind it, what to change when it is wrong, and the Bluetooth overlay's cost to `ble`.
    public func findings(device: String, resolved: String, ble: Bool) -> [(level: Level, text: String)] {
        let given = named(device, resolved)
        var out: [(Level, String)] = []
        switch role(of: resolved) {
        case .bluetooth:
            return [(.fail, refusal(device: device, resolved: resolved, ble: ble)!)]
        case .debugConnector:
            return [(.fail, "\(given) is the UART of the 3-pin debug connector on this \(model), not the UART on pins 8 and 10 (GPIO14/15): use opener = secplus2:/dev/ttyAMA0, with dtparam=uart0=on in \(file), and reboot")]
        case .offPins:
            if board == .pi5 {
                return [(.warn, "\(given) is on pins 8 and 10 (GPIO14/15) of this \(model) only with dtparam=uart0=on in \(file), which has none: add it and reboot")]
            }
            let pins = onPins.map { "the UART there is \($0): use opener = secplus2:/dev/serial0" } ?? "none is set up there"
            return [(.fail, "\(given) is not the UART on pins 8 and 10 (GPIO14/15) of this \(model) as \(file) sets it up (\(setupWords)): \(pins)")]
        case .elsewhere:
            if board == .other {
                return [(.ok, "\(model): which UART reaches which pins depends on its carrier board; garaged checks only that the opener answers on \(given)")]
            }
            return [(.ok, "\(given) is not one of this \(model)'s UARTs on pins 8 and 10 (a USB adapter, or a UART on other pins): fine if the circuit is there")]
        case .onPins:
            break
        }
        let kind = onPins == "ttyS0" ? "mini UART" : "PL011"
        if uartEnabled {
            out.append((.ok, "\(given) is the \(kind) on pins 8 and 10 (GPIO14/15) of this \(model) (\(setupWords))"
                + (kind == "mini UART" ? "; enough for Security+ 2.0 (8N1), while a Security+ 1.0 opener's parity would need the PL011 (dtoverlay=miniuart-bt and core_freq=250)" : "")))
        } else if let set = boot.enableUART {
            out.append((.fail, "\(given) is the \(kind) on pins 8 and 10 of this \(model), but \(set.line) turns it off: make it enable_uart=1 and reboot"))
        } else {
            out.append((.fail, "\(given) is the mini UART on pins 8 and 10 of this \(model), which is off without enable_uart=1 in \(file) (it also fixes the core clock the mini UART's baud rate follows): add it and reboot"))
        }
        if board == .pi5, let set = boot.uart0Console, set.value {
            out.append((.warn, "\(set.line) also makes /dev/serial0 lead to ttyAMA0, so a console=serial0 in cmdline.txt puts the kernel's console on the opener's wire: use dtparam=uart0=on instead"))
        }
        if let set = boot.bluetoothOverlay, board == .bluetoothOnPL011 {
            switch set.value {
            case .disableBT where ble:
                out.append((.fail, "\(set.line) turns this Pi's Bluetooth off, and ble is on: the book's app and the beacon need it. Replace it with dtoverlay=miniuart-bt and core_freq=250 (Bluetooth moves to the mini UART, the PL011 stays on the pins) and reboot, or set ble = off"))
            case .miniUARTBT where ble && boot.coreFreq?.value != 250 && boot.forceTurbo?.value != true:
                out.append((.warn, "\(set.line) puts Bluetooth on the mini UART, whose baud rate follows the core clock: add core_freq=250 (or force_turbo=1) to \(file) and reboot, or Bluetooth may lose the controller"))
            default:
                break
            }
        }
        return out
    }

    /// The config.txt lines behind the set-up, in words: "dtoverlay=miniuart-bt (config.txt line 40)".
    private var setupWords: String {
        var parts: [String] = []
        if board == .bluetoothOnPL011 {
            parts.append(boot.bluetoothOverlay.map { "\($0.line)" } ?? "no dtoverlay=disable-bt or miniuart-bt in \(file)")
        }
        if board == .pi5, let set = boot.uart0Console ?? boot.uart0 { parts.append("\(set.line)") }
        if let set = boot.enableUART { parts.append("\(set.line)") }
        if configFile == nil { parts = ["no config.txt found"] }
        if !boot.skipped.isEmpty {
            parts.append("not read on this model, under another model's [filter]: " + boot.skipped.map(\.description).joined(separator: ", ") + "; move what it needs under [all]")
        }
        return parts.joined(separator: ", ")
    }

    /// What to use on this Pi, for a finding that only names the model: the opener's device
    /// and the config.txt lines, by board.
    public var advice: String {
        switch board {
        case .bluetoothOnPL011:
            return "on a \(model) use opener = secplus2:/dev/serial0 with enable_uart=1 in \(file) (the mini UART on pins 8 and 10; /dev/ttyAMA0 is Bluetooth's); for the PL011 there, add dtoverlay=miniuart-bt and core_freq=250"
        case .pi5:
            return "on a \(model) use opener = secplus2:/dev/ttyAMA0 with dtparam=uart0=on in \(file) (/dev/serial0 is the debug connector's UART)"
        case .pl011OnPins:
            return "on a \(model) use opener = secplus2:/dev/serial0 (the PL011 on pins 8 and 10) with enable_uart=1 in \(file)"
        case .other:
            return "on a \(model) the carrier board decides which UART reaches which pins"
        }
    }

    // MARK: reading the model and config.txt

    /// The board and the model filters it reads, from the model's name.
    static func kind(of model: String) -> (Board, Set<String>) {
        let words = model.dropFirst("Raspberry Pi".count).split(separator: " ").map(String.init)
        let plus = words.contains("Plus")
        switch words.first {
        case "5"?: return (.pi5, ["pi5"])
        case "500"?: return (.pi5, ["pi5", "pi500"])
        case "4"?: return (.bluetoothOnPL011, ["pi4"])
        case "400"?: return (.bluetoothOnPL011, ["pi4", "pi400"])
        case "3"?: return (.bluetoothOnPL011, plus ? ["pi3", "pi3+"] : ["pi3"])
        case "2"?: return (.pl011OnPins, ["pi2"])
        case "Model"?: return (.pl011OnPins, ["pi1"])
        case "Zero"?:
            switch words.dropFirst().first {
            case "2"?: return (.bluetoothOnPL011, ["pi0", "pi02"])
            case "W"?: return (.bluetoothOnPL011, ["pi0", "pi0w"])
            default: return (.pl011OnPins, ["pi0"])
            }
        case "Compute"?:
            switch words.dropFirst(2).first {
            case "5"?: return (.pi5, ["pi5", "cm5"])
            case "4"?: return (.other, ["pi4", "cm4"])
            case "4S"?: return (.other, ["pi4", "cm4s"])
            case "3"?: return (.other, plus ? ["pi3", "cm3", "cm3+"] : ["pi3", "cm3"])
            default: return (.other, ["pi1", "cm1"])
            }
        default: return (.other, [])
        }
    }

    /// The model filters config.txt knows; a filter of the same kind replaces the one before.
    static let modelFilters: Set<String> = ["pi1", "pi2", "pi3", "pi3+", "pi4", "pi400", "pi5", "pi500",
                                                   "cm1", "cm3", "cm3+", "cm4", "cm4s", "cm5", "pi0", "pi0w", "pi02"]

    /// Which settings apply while reading: the model filter in force and `[none]`. Filters
    /// this cannot judge (a monitor's EDID, a GPIO's level, a serial number, `board-type=`)
    /// are taken as true: a line under them may apply, and garaged never refuses on a guess.
    struct FilterState {
        var model: String?
        var none = false

        func applies(to filters: Set<String>) -> Bool { !none && (model.map(filters.contains) ?? true) }
    }

    /// Reads config.txt's lines into `boot`, the last setting of each winning, as the firmware
    /// does; `include FILE` is read in place, at most 4 deep.
    static func parse(_ text: String, file: String, filters: Set<String>, include: (String) -> String?, depth: Int,
                      state: inout FilterState, into boot: inout Boot) {
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = String(raw).trimmingSpaces
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
            if trimmed.hasPrefix("["), trimmed.hasSuffix("]") {
                let filter = String(trimmed.dropFirst().dropLast()).lowercased()
                if filter == "all" {
                    state = FilterState()
                } else if filter == "none" {
                    state.none = true
                } else if modelFilters.contains(filter) {
                    state.model = filter
                } else if filter.hasPrefix("board-type=") {
                    state.model = nil
                }
                continue
            }
            // Words end at a space or a comment.
            let words = trimmed.prefix { $0 != "#" }.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if words.first == "include", words.count >= 2, depth < 4 {
                let name = String(words[1])
                if let included = include(name) {
                    parse(included, file: name, filters: filters, include: include, depth: depth + 1, state: &state, into: &boot)
                }
                continue
            }
            guard let setting = words.first, let eq = setting.firstIndex(of: "=") else { continue }
            let key = setting[..<eq].lowercased(), value = String(setting[setting.index(after: eq)...])
            let line = Line(text: String(setting), file: file, number: i + 1)
            let applies = state.applies(to: filters)
            var matters = false
            func on(_ v: String?) -> Bool { !["off", "false", "no", "0", "disabled"].contains((v ?? "on").lowercased()) }
            switch key {
            case "dtoverlay":
                switch value.split(separator: ",").first.map({ $0.lowercased() }) {
                case "disable-bt"?, "pi3-disable-bt"?:
                    matters = true
                    if applies { boot.bluetoothOverlay = Configured(value: .disableBT, line: line) }
                case "miniuart-bt"?, "pi3-miniuart-bt"?:
                    matters = true
                    if applies { boot.bluetoothOverlay = Configured(value: .miniUARTBT, line: line) }
                case "uart0-pi5"?:
                    matters = true
                    if applies { boot.uart0 = Configured(value: true, line: line) }
                default:
                    break
                }
            case "dtparam":
                for param in value.split(separator: ",") {
                    let parts = param.split(separator: "=", maxSplits: 1).map(String.init)
                    switch parts[0].lowercased() {
                    case "uart0":
                        matters = true
                        if applies { boot.uart0 = Configured(value: on(parts.count > 1 ? parts[1] : nil), line: line) }
                    case "uart0_console":
                        matters = true
                        if applies { boot.uart0Console = Configured(value: on(parts.count > 1 ? parts[1] : nil), line: line) }
                    default:
                        break
                    }
                }
            case "enable_uart":
                matters = true
                if applies { boot.enableUART = Configured(value: (Int(value) ?? 0) != 0, line: line) }
            case "core_freq":
                matters = true
                if applies, let mhz = Int(value) { boot.coreFreq = Configured(value: mhz, line: line) }
            case "force_turbo":
                matters = true
                if applies { boot.forceTurbo = Configured(value: (Int(value) ?? 0) != 0, line: line) }
            default:
                break
            }
            if matters && !applies { boot.skipped.append(line) }
        }
    }
}

extension String {
    /// The text without the spaces, tabs and carriage returns around it.
    var trimmingSpaces: String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" || c == "\r" || c == "\n" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\r" || c == "\n" { s.removeLast() }
        return String(s)
    }
}

/// What one door has, said once: where its position comes from, its light, its opener's parts,
/// its obstruction input and how a close is warned. Built at start from the door's settings
/// (`DoorSensing`, `DoorTiming`) and its opener's kind; the door, the status record, HomeKit's
/// services, Home Assistant's entities, `garage-pins` and `doctor` show a part only where this says
/// the door has it.
public struct DoorCapabilities: Equatable, Sendable {
    /// Where the door's position comes from.
    public enum Position: String, Sendable {
        /// Limit switches (one or both).
        case switches
        /// No switch: what garaged's own presses imply.
        case believed
        /// The opener reports it on its own wire.
        case opener

        /// The status record's `mode`: `sensed`, `believed` or `opener`.
        public var mode: String { self == .switches ? "sensed" : rawValue }
    }

    /// Whose a part is: a line wired to the Pi, or the opener's own, spoken to on its wire.
    public enum Source: String, Sendable {
        case wired
        case opener
    }

    /// How a close is warned.
    public enum Warning: String, Sendable {
        /// The `warn` output (a light or buzzer wired to the Pi).
        case output
        /// The opener's own light, flashed (a door with an opener and no `warn` output).
        case openerLight = "opener-light"
    }

    /// One part a door may have or lack, for what is said of it (`lacking`).
    public enum Part: String, Sendable, CaseIterable {
        case light
        case remotesLock = "remotes_lock"
        case motion
        case obstruction
        case openings
        case battery
        case warning
    }

    public var position: Position
    public var light: Source?
    /// The lock of the opener's radio remotes and keypads.
    public var remotesLock: Bool
    /// The opener's motion sensor.
    public var motion: Bool
    public var obstruction: Source?
    /// The opener's count of openings.
    public var openings: Bool
    /// The opener's backup battery.
    public var battery: Bool
    public var warning: Warning?
    /// The opener, for what is said of a part it lacks ("Security+ 1.0"); nil without one.
    public var openerTitle: String?

    public init(position: Position = .believed, light: Source? = nil, remotesLock: Bool = false, motion: Bool = false,
                obstruction: Source? = nil, openings: Bool = false, battery: Bool = false, warning: Warning? = nil,
                openerTitle: String? = nil) {
        self.position = position
        self.light = light
        self.remotesLock = remotesLock
        self.motion = motion
        self.obstruction = obstruction
        self.openings = openings
        self.battery = battery
        self.warning = warning
        self.openerTitle = openerTitle
    }

    /// The one derivation: a door with `sensing` and `timing`. An opener brings what its kind
    /// has (its light wins over a wired one: the drive switches the opener's); without one, a
    /// light only where one is wired (`timing.light`), a photo-eye only where one is wired.
    public init(sensing: DoorSensing, timing: DoorTiming) {
        let kind = sensing.opener != nil ? sensing.openerKind ?? .secPlus2 : nil
        let position: Position = kind != nil ? .opener : sensing.believed ? .believed : .switches
        let light: Source? = kind?.has(.light) == true ? .opener : timing.light != nil ? .wired : nil
        let obstruction: Source? = kind.map { $0.has(.obstruction) ? .opener : nil } ?? (sensing.obstructionSwitch ? .wired : nil)
        let warning: Warning? = timing.warning == nil ? nil : timing.warningFlashesLight && light == .opener ? .openerLight : .output
        let opener = { (part: Part) in kind?.has(part) ?? false }
        self.init(position: position, light: light, remotesLock: opener(.remotesLock), motion: opener(.motion),
                  obstruction: obstruction, openings: opener(.openings), battery: opener(.battery), warning: warning,
                  openerTitle: kind?.title)
    }

    /// Whether the door has `part`.
    public func has(_ part: Part) -> Bool {
        switch part {
        case .light: return light != nil
        case .remotesLock: return remotesLock
        case .motion: return motion
        case .obstruction: return obstruction != nil
        case .openings: return openings
        case .battery: return battery
        case .warning: return warning != nil
        }
    }

    /// The parts it has and whose each is, in `Part` order: the status record's `parts` object,
    /// `{"light":"opener","remotes_lock":"opener",...}`; the opener's parts are all `opener`.
    public var parts: [(Part, String)] {
        Part.allCases.compactMap { part -> (Part, String)? in
            switch part {
            case .light: return light.map { (part, $0.rawValue) }
            case .obstruction: return obstruction.map { (part, $0.rawValue) }
            case .warning: return warning.map { (part, $0.rawValue) }
            default: return has(part) ? (part, Source.opener.rawValue) : nil
            }
        }
    }

    /// The parts in words, from the status record's `parts` (name and whose): "the opener's
    /// light, the lock of its remotes, ..."; what `garage-pins status` and `doctor` say.
    public static func words(_ parts: [(String, String)]) -> String {
        guard !parts.isEmpty else { return "no light, photo-eye, warning or opener" }
        return parts.map { part, whose -> String in
            switch (Part(rawValue: part), whose) {
            case (.light?, "opener"): return "the opener's light"
            case (.light?, _): return "a light"
            case (.remotesLock?, _): return "the lock of the opener's remotes"
            case (.motion?, _): return "the opener's motion sensor"
            case (.obstruction?, "opener"): return "the opener's photo-eyes"
            case (.obstruction?, _): return "a photo-eye"
            case (.openings?, _): return "the opener's count of openings"
            case (.battery?, _): return "the opener's backup battery"
            case (.warning?, "opener-light"): return "a warning by the opener's light"
            case (.warning?, _): return "a warning output"
            case (nil, _): return part
            }
        }.joined(separator: ", ")
    }

    /// This door's parts in words (`words`).
    public var summary: String { DoorCapabilities.words(parts.map { ($0.0.rawValue, $0.1) }) }

    /// Why a door without `part` cannot do what was asked of it, and what would give it one: the
    /// words a refusal (ERR CMD) carries to `garage-pins` and the log.
    public func lacking(_ part: Part) -> String {
        let opener = openerTitle.map { "its \($0) opener" }
        switch part {
        case .light:
            return opener.map { "the door has no light garaged can switch: \($0) reports none" }
                ?? "the door has no light wired; garaged switches a light only on the line its setting names: light = CHIP:LINE "
                + "(e.g. light = gpiochip0:24) in garaged's config or the door's [door NAME] section, or --light (--door.NAME.light); "
                + "then restart garaged"
        case .remotesLock:
            return opener.map { "the door has no lock of its remotes garaged can reach: \($0) has none on its wire" }
                ?? "the door has no opener whose remotes garaged could lock; only a door with an opener on its own wire (opener = secplus2:DEVICE in its config) has one"
        default:
            let what: String = switch part {
            case .motion: "motion sensor"
            case .obstruction: "photo-eye"
            case .openings: "count of openings"
            case .battery: "backup battery"
            default: "warning output"
            }
            return "the door has no \(what)" + (opener.map { ": \($0) reports none" } ?? "")
        }
    }
}

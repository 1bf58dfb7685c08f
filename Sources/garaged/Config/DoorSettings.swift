import DoorCore

/// One door's settings, checked at start: its lines (the relay, the switches, the outputs), its
/// timing and what is built from them. Read by name like `Settings`: `door.pulseMs`.
@dynamicMemberLookup
struct DoorSettings: Sendable {
    /// The section's name (`[door NAME]`); nil for the one door of a file without sections.
    let id: String?
    /// Where the door was declared, for messages; nil for the one door.
    let origin: String?
    let values: SettingValues
    let timing: DoorTiming
    /// Which limit switches there are, and where.
    let sensing: DoorSensing
    let sensorClosed: RelaySpec?
    let sensorOpen: RelaySpec?
    /// The photo-eye's output, read like a switch.
    let sensorObstruction: RelaySpec?
    let warn: RelaySpec?
    let light: RelaySpec?
    /// The opener spoken to on its own wire; nil when the relay moves the door.
    let opener: OpenerSpec?
    /// What the door has, from all of the above and its opener's kind: the one table every
    /// audience's parts follow (HomeKit's services, Home Assistant's entities, doctor).
    let capabilities: DoorCapabilities

    init(id: String?, origin: String?, values: SettingValues) throws(ConfigError) {
        self.id = id
        self.origin = origin
        self.values = values
        opener = values.opener
        if opener != nil, values.isGiven(\.relay) {
            throw ConfigError("\(values.origin(of: \.relay)) and \(values.origin(of: \.opener)): \(id.map { "door \($0)" } ?? "the door") cannot have both a relay and an opener; an opener is moved on its own wire, so remove relay (or remove opener to press a relay)")
        }
        sensorClosed = try DoorSettings.spec(values, \.sensorClosed)
        sensorOpen = try DoorSettings.spec(values, \.sensorOpen)
        sensorObstruction = try DoorSettings.spec(values, \.sensorObstruction)
        warn = try DoorSettings.spec(values, \.warn)
        light = try DoorSettings.spec(values, \.light)
        if let opener {
            for (given, key) in [(sensorClosed != nil, \Catalog.sensorClosed), (sensorOpen != nil, \Catalog.sensorOpen), (sensorObstruction != nil, \Catalog.sensorObstruction)] where given {
                throw ConfigError("\(values.origin(of: key)) and \(values.origin(of: \.opener)): \(id.map { "door \($0)" } ?? "the door") has an opener, which reports where the door is and what its own photo-eyes see; remove the switch (or remove opener to read switches and press a relay)")
            }
            sensing = .reported(by: opener.name, kind: opener.kind, device: opener.device)
        } else {
            sensing = DoorSensing(closedSwitch: sensorClosed != nil, openSwitch: sensorOpen != nil, obstructionSwitch: sensorObstruction != nil)
        }
        // Without a warn output, an opener's own light (where its kind has one) flashes as the warning.
        let openerLight = opener?.kind.has(.light) == true
        var timing = DoorTiming(pulse: .milliseconds(values.pulseMs), travel: .seconds(values.travelS),
                            autoClose: values.autoCloseS == 0 ? nil : .seconds(values.autoCloseS),
                            warning: warn == nil && !openerLight ? nil : .seconds(values.warnS),
                            leftOpen: values.leftOpenS == 0 ? nil : .seconds(values.leftOpenS),
                            light: light == nil ? nil : .seconds(values.lightS))
        timing.motion = .seconds(values.motionS)
        timing.warningFlashesLight = warn == nil && openerLight
        self.timing = timing
        capabilities = DoorCapabilities(sensing: sensing, timing: timing)
    }

    subscript<V>(dynamicMember path: KeyPath<Catalog, Setting<V>>) -> V { values[dynamicMember: path] }

    /// How messages name the door: `door gate`, or `the door` when there is one.
    var label: String { id.map { "door \($0)" } ?? "the door" }

    /// Every line the door uses, with what it is for and where it was set.
    var lines: [(role: String, spec: RelaySpec, origin: String)] {
        let relayOrigin = values.isGiven(\.relay) ? values.origin(of: \.relay)
            : "\(origin.map { "\($0): " } ?? "")\(label) has no relay set (the default)"
        // A door with an opener has no relay, so its default line is nobody's.
        var found: [(String, RelaySpec, String)] = opener == nil ? [("relay", values.relay, relayOrigin)] : []
        if let warn { found.append(("warning output", warn, values.origin(of: \.warn))) }
        if let light { found.append(("light", light, values.origin(of: \.light))) }
        if let sensorClosed { found.append(("closed switch", sensorClosed, values.origin(of: \.sensorClosed))) }
        if let sensorOpen { found.append(("open switch", sensorOpen, values.origin(of: \.sensorOpen))) }
        if let sensorObstruction { found.append(("photo-eye", sensorObstruction, values.origin(of: \.sensorObstruction))) }
        return found
    }

    /// A relay-style spec (`CHIP:LINE` or `sim:FILE`) checked at start; nil when not given.
    private static func spec(_ values: SettingValues, _ path: KeyPath<Catalog, Setting<String?>>) throws(ConfigError) -> RelaySpec? {
        guard let text = values[dynamicMember: path] else { return nil }
        do { return try RelaySpec.parse(text) } catch { throw ConfigError("\(values.origin(of: path)): \(error.message)") }
    }
}

/// What garaged says over MQTT, in the shape Home Assistant's MQTT discovery expects: the
/// topics, the discovery documents (retained, so Home Assistant finds the door after its own
/// restart), the state payloads, and the commands it takes. Pure: the client in garaged only
/// publishes and subscribes what this decides.
public struct HomeAssistant: Sendable {
    /// `garaged` by default: every topic of this door is under `<prefix>/<node>/`.
    public let prefix: String
    /// `homeassistant` by default: where Home Assistant looks for discovery documents.
    public let discoveryPrefix: String
    /// The door's id in topics and unique ids: letters, digits, `_` and `-` only.
    public let node: String
    /// The device's name on Home Assistant's dashboard.
    public let name: String
    /// With commands off the cover is read-only: no command topic is announced or subscribed.
    public let commandsEnabled: Bool
    public let version: String
    /// One cover per door, on the one device. A door with no id (the one door of a config
    /// without sections) has today's topics; each named door has its own under `<node>/<id>/`.
    public let covers: [Cover]

    /// A door as Home Assistant shows it.
    public struct Cover: Sendable, Equatable {
        /// Its `[door NAME]` (topic-safe); nil for the one door of a config without sections.
        public var id: String?
        /// Its name on the dashboard; nil: the device's.
        public var name: String?
        /// What the door has: an entity for each part (its photo-eye, its light, its opener's
        /// lock of its remotes, motion sensor, count of openings and backup battery), none for a
        /// part it lacks.
        public var has: DoorCapabilities

        public init(id: String?, name: String?, has: DoorCapabilities = DoorCapabilities()) {
            self.id = id
            self.name = name
            self.has = has
        }

        var photoEye: Bool { has.obstruction != nil }
        var light: Bool { has.light != nil }
    }

    public init(prefix: String, discoveryPrefix: String, node: String, name: String, commandsEnabled: Bool, version: String,
                covers: [Cover] = [Cover(id: nil, name: nil)]) {
        self.prefix = prefix
        self.discoveryPrefix = discoveryPrefix
        self.node = HomeAssistant.topicSafe(node)
        self.name = name
        self.commandsEnabled = commandsEnabled
        self.version = version
        self.covers = covers
    }

    /// `node` with everything but letters, digits, `_` and `-` made `_` (topics and ids).
    public static func topicSafe(_ text: String) -> String {
        String(text.unicodeScalars.map { s -> Character in
            s.isASCII && (s.properties.isAlphabetic || ("0"..."9").contains(s) || s == "_" || s == "-") ? Character(s) : "_"
        })
    }

    var base: String { "\(prefix)/\(node)" }
    /// Door `door`'s topics: under the node for a door without an id, under `<node>/<id>` otherwise.
    func base(_ door: Int) -> String { covers[door].id.map { "\(base)/\($0)" } ?? base }
    /// `online` / `offline`, retained; the broker publishes `offline` as the last will.
    public var availabilityTopic: String { base + "/availability" }
    /// `open`, `opening`, `closed`, `closing`, `stopped`, retained.
    public func stateTopic(_ door: Int = 0) -> String { base(door) + "/state" }
    /// `OPEN`, `CLOSE`, `STOP` (only when commands are on).
    public func commandTopic(_ door: Int = 0) -> String { base(door) + "/command" }
    /// Each history event as JSON, not retained (with several doors each names its door).
    public var eventTopic: String { base + "/event" }
    public func lastOpenedByTopic(_ door: Int = 0) -> String { base(door) + "/last_opened_by" }
    /// The PIN lockout is the device's: the throttle is every door's.
    public var lockoutTopic: String { base + "/lockout" }
    public func faultTopic(_ door: Int = 0) -> String { base(door) + "/fault" }
    /// The photo-eye's beam, `ON` (broken) or `OFF`, retained; only for a door with one.
    public func obstructionTopic(_ door: Int = 0) -> String { base(door) + "/obstruction" }
    /// The light, `ON` or `OFF`, retained; only for a door whose light garaged switches.
    public func lightTopic(_ door: Int = 0) -> String { base(door) + "/light" }
    /// `ON` or `OFF` for the light (only when commands are on).
    public func lightCommandTopic(_ door: Int = 0) -> String { base(door) + "/light/set" }
    /// The lock of the opener's remotes and keypads, `LOCKED` or `UNLOCKED`, retained.
    public func remotesTopic(_ door: Int = 0) -> String { base(door) + "/remotes" }
    /// `LOCK` or `UNLOCK` for the opener's remotes (only when commands are on).
    public func remotesCommandTopic(_ door: Int = 0) -> String { base(door) + "/remotes/set" }
    /// The opener's motion sensor, `ON` or `OFF`, retained.
    public func motionTopic(_ door: Int = 0) -> String { base(door) + "/motion" }
    /// The opener's count of openings, a number, retained once the opener said it.
    public func openingsTopic(_ door: Int = 0) -> String { base(door) + "/openings" }
    /// The opener's backup battery, `charging` or `full`, retained once the opener said it.
    public func batteryTopic(_ door: Int = 0) -> String { base(door) + "/battery" }
    /// Every command topic garaged subscribes to with commands on: each door's cover, and its
    /// light and its remotes' lock where it has them.
    public var commandTopics: [String] {
        covers.indices.flatMap { i -> [String] in
            [commandTopic(i)] + (covers[i].light ? [lightCommandTopic(i)] : []) + (covers[i].has.remotesLock ? [remotesCommandTopic(i)] : [])
        }
    }

    /// What a message on a topic garaged subscribes to asks for.
    public enum Parsed: Equatable, Sendable {
        /// Not one of the command topics of this configuration.
        case notACommandTopic
        /// A command topic, with a payload it does not take: what it does take, for the log.
        case unknown(expected: String)
        case ask(DoorRequest.Ask)
    }

    /// The request a command message asks for: a move on a cover's topic, the light on or off,
    /// the remotes locked or unlocked; payloads are exact (no case folding, no newline).
    public func parse(topic: String, payload: [UInt8]) -> Parsed {
        let text = String(decoding: payload, as: UTF8.self)
        for i in covers.indices {
            if topic == commandTopic(i) {
                return HomeAssistant.command(payload).map { .ask(.move($0, door: i)) } ?? .unknown(expected: "OPEN, CLOSE or STOP")
            }
            if covers[i].light, topic == lightCommandTopic(i) {
                switch text {
                case HomeAssistant.on: return .ask(.light(true, door: i))
                case HomeAssistant.off: return .ask(.light(false, door: i))
                default: return .unknown(expected: "ON or OFF")
                }
            }
            if covers[i].has.remotesLock, topic == remotesCommandTopic(i) {
                switch text {
                case HomeAssistant.lock: return .ask(.remotes(locked: true, door: i))
                case HomeAssistant.unlock: return .ask(.remotes(locked: false, door: i))
                default: return .unknown(expected: "LOCK or UNLOCK")
                }
            }
        }
        return .notACommandTopic
    }
    /// Home Assistant's birth message: `online` here means "publish your discovery again".
    public var birthTopic: String { discoveryPrefix + "/status" }

    public static let online = "online"
    public static let offline = "offline"
    /// The obstruction sensor's payloads: Home Assistant's binary_sensor defaults.
    public static let beamBroken = "ON", beamClear = "OFF"
    /// The light's and the motion sensor's payloads (Home Assistant's defaults).
    public static let on = "ON", off = "OFF"
    /// The lock's states and commands (Home Assistant's defaults).
    public static let locked = "LOCKED", unlocked = "UNLOCKED", lock = "LOCK", unlock = "UNLOCK"

    /// Home Assistant's cover states for the door's positions.
    public static func state(_ position: DoorPosition) -> String { position.rawValue.lowercased() }

    /// The command a payload asks for; nil for anything else.
    public static func command(_ payload: [UInt8]) -> Controller.ChannelCommand? {
        Controller.ChannelCommand(rawValue: String(decoding: payload, as: UTF8.self))
    }

    /// The retained values Home Assistant shows, from the snapshot: the lockout once (`none`, or
    /// each locked channel with its seconds), then each door's cover state, who last opened it,
    /// its fault, the photo-eye's beam when the door has one, its light when it has one, and what
    /// its opener says of the parts it has (the lock of its remotes, the count of openings and the
    /// backup battery once said, its motion).
    public func retained(_ snapshot: StatusSnapshot, at now: Instant) -> [(topic: String, value: String)] {
        let locked = snapshot.locked(at: now).map { "\($0.channel.rawValue) locked \($0.seconds) s" }
        var values: [(topic: String, value: String)] = [(lockoutTopic, locked.isEmpty ? "none" : locked.joined(separator: ", "))]
        for status in snapshot.doors {
            let door = covers.indices.contains(status.index) ? status.index : 0
            values.append((stateTopic(door), HomeAssistant.state(status.position)))
            values.append((lastOpenedByTopic(door), status.lastOpener ?? "nobody yet"))
            values.append((faultTopic(door), status.fault.map { "\($0.rawValue): \($0.explanation)" } ?? "none"))
            if let obstructed = status.obstructed {
                values.append((obstructionTopic(door), obstructed ? HomeAssistant.beamBroken : HomeAssistant.beamClear))
            }
            if let light = status.light { values.append((lightTopic(door), light ? HomeAssistant.on : HomeAssistant.off)) }
            if let opener = status.opener {
                let has = status.capabilities
                if has.remotesLock, let locked = opener.remotesLocked {
                    values.append((remotesTopic(door), locked ? HomeAssistant.locked : HomeAssistant.unlocked))
                }
                if has.motion { values.append((motionTopic(door), opener.motion == true ? HomeAssistant.on : HomeAssistant.off)) }
                if has.openings, let openings = opener.openings { values.append((openingsTopic(door), String(openings))) }
                if has.battery, let battery = opener.battery { values.append((batteryTopic(door), battery.rawValue)) }
            }
        }
        return values
    }

    /// What changed between two snapshots: the retained values of `new` that `old` did not have
    /// (all of them when there is no `old`).
    public func retained(from old: StatusSnapshot?, to new: StatusSnapshot, at now: Instant) -> [(topic: String, value: String)] {
        let values = retained(new, at: now)
        guard let old else { return values }
        var before: [String: String] = [:]
        for (topic, value) in retained(old, at: now) { before[topic] = value }
        return values.filter { before[$0.topic] != $0.value }
    }

    /// The retained discovery documents: a cover per door with its last opener, its fault,
    /// (with a photo-eye) its obstruction, (with a light garaged switches) its light, (with an
    /// opener, each where it has it) the lock of its remotes, its motion, its openings and its backup battery, and the PIN
    /// lockout, all on one device. Publish each
    /// to its topic; an empty payload would remove it.
    public func discovery() -> [(topic: String, payload: JSONValue)] {
        let device: JSONValue = .object([
            ("identifiers", .array([.string("garaged_\(node)")])), ("name", .string(name)),
            ("manufacturer", .string("garaged")), ("model", .string("Raspberry Pi garage door controller")),
            ("sw_version", .string(version)),
        ])
        let availability: [(String, JSONValue)] = [
            ("availability_topic", .string(availabilityTopic)),
            ("payload_available", .string(HomeAssistant.online)), ("payload_not_available", .string(HomeAssistant.offline)),
        ]
        func sensor(_ id: String, _ title: String, _ topic: String, _ icon: String) -> (String, JSONValue) {
            ("\(discoveryPrefix)/sensor/\(node)/\(id)/config",
             .object([("name", .string(title)), ("unique_id", .string("garaged_\(node)_\(id)")), ("state_topic", .string(topic)),
                      ("icon", .string(icon))] + availability + [("device", device)]))
        }
        var documents: [(String, JSONValue)] = []
        for (i, door) in covers.enumerated() {
            // The one door keeps today's ids; a named door's are its own ("garaged_<node>_gate").
            let id = door.id ?? "door"
            var cover: [(String, JSONValue)] = [
                ("name", door.name.map { .string($0) } ?? (door.id.map { .string($0) } ?? .null)),
                ("unique_id", .string("garaged_\(node)_\(id)")), ("device_class", .string("garage")),
                ("state_topic", .string(stateTopic(i))),
                ("state_open", .string("open")), ("state_opening", .string("opening")), ("state_closed", .string("closed")),
                ("state_closing", .string("closing")), ("state_stopped", .string("stopped")),
            ]
            if commandsEnabled {
                cover += [("command_topic", .string(commandTopic(i))), ("payload_open", .string("OPEN")),
                          ("payload_close", .string("CLOSE")), ("payload_stop", .string("STOP"))]
            }
            documents.append(("\(discoveryPrefix)/cover/\(node)/\(id)/config", .object(cover + availability + [("device", device)])))
            let of = door.id.map { "\($0)_" } ?? "", title = door.id.map { "\(door.name ?? $0): " } ?? ""
            documents.append(sensor(of + "last_opened_by", title + "Last opened by", lastOpenedByTopic(i), "mdi:account-key"))
            documents.append(sensor(of + "fault", title + (door.id == nil ? "Door fault" : "fault"), faultTopic(i), "mdi:alert"))
            if door.photoEye {
                // `problem`, as ESPHome's ratgdo names its obstruction: Home Assistant shows "Problem" / "OK".
                documents.append((obstructionConfigTopic(i), .object([
                    ("name", .string(title + (door.id == nil ? "Obstruction" : "obstruction"))),
                    ("unique_id", .string("garaged_\(node)_\(id)_obstruction")), ("device_class", .string("problem")),
                    ("state_topic", .string(obstructionTopic(i))),
                    ("payload_on", .string(HomeAssistant.beamBroken)), ("payload_off", .string(HomeAssistant.beamClear)),
                ] + availability + [("device", device)])))
            }
            let named = door.id != nil
            func entity(_ component: String, _ object: String, _ label: String, _ fields: [(String, JSONValue)]) -> (String, JSONValue) {
                (configTopic(component, i, object), .object([
                    ("name", .string(title + (named ? label.lowercased() : label))),
                    ("unique_id", .string("garaged_\(node)_\(id)_\(object)")),
                ] + fields + availability + [("device", device)]))
            }
            if door.light {
                // Home Assistant's light needs a command topic: without commands it is a sensor.
                let state: [(String, JSONValue)] = [("state_topic", .string(lightTopic(i))),
                                                    ("payload_on", .string(HomeAssistant.on)), ("payload_off", .string(HomeAssistant.off))]
                documents.append(commandsEnabled
                    ? entity("light", "light", "Light", state + [("command_topic", .string(lightCommandTopic(i)))])
                    : entity("binary_sensor", "light", "Light", [("device_class", .string("light"))] + state))
            }
            if door.has.remotesLock {
                // Without commands the lock is a sensor too; its `lock` class is on when unlocked.
                let lockFields: [(String, JSONValue)] = commandsEnabled
                    ? [("state_topic", .string(remotesTopic(i))), ("command_topic", .string(remotesCommandTopic(i))),
                       ("payload_lock", .string(HomeAssistant.lock)), ("payload_unlock", .string(HomeAssistant.unlock)),
                       ("state_locked", .string(HomeAssistant.locked)), ("state_unlocked", .string(HomeAssistant.unlocked)),
                       ("icon", .string("mdi:remote"))]
                    : [("device_class", .string("lock")), ("state_topic", .string(remotesTopic(i))),
                       ("payload_on", .string(HomeAssistant.unlocked)), ("payload_off", .string(HomeAssistant.locked))]
                documents.append(entity(commandsEnabled ? "lock" : "binary_sensor", "remotes", "Remotes lock", lockFields))
            }
            if door.has.motion {
                documents.append(entity("binary_sensor", "motion", "Motion", [
                    ("device_class", .string("motion")), ("state_topic", .string(motionTopic(i))),
                    ("payload_on", .string(HomeAssistant.on)), ("payload_off", .string(HomeAssistant.off)),
                ]))
            }
            if door.has.openings {
                documents.append(entity("sensor", "openings", "Openings", [
                    ("state_topic", .string(openingsTopic(i))), ("state_class", .string("total_increasing")),
                    ("icon", .string("mdi:counter")),
                ]))
            }
            if door.has.battery {
                // An enum sensor: Home Assistant shows the state and knows the two it may take.
                documents.append(entity("sensor", "battery", "Backup battery", [
                    ("state_topic", .string(batteryTopic(i))), ("device_class", .string("enum")),
                    ("options", .array(OpenerBattery.allCases.map { .string($0.rawValue) })), ("icon", .string("mdi:car-battery")),
                ]))
            }
        }
        // The device's lockout: after the one door's opener as before doors had names, else last.
        let lockout = sensor("lockout", "PIN lockout", lockoutTopic, "mdi:lock-alert")
        documents.insert(lockout, at: covers.count == 1 && covers[0].id == nil ? 2 : documents.count)
        return documents
    }

    /// Door `door`'s obstruction sensor's discovery topic (`<door>_obstruction` for a named door).
    func obstructionConfigTopic(_ door: Int) -> String { configTopic("binary_sensor", door, "obstruction") }

    /// The discovery topic of door `door`'s `object` as a Home Assistant `component`
    /// (`<door>_<object>` for a named door).
    func configTopic(_ component: String, _ door: Int, _ object: String) -> String {
        "\(discoveryPrefix)/\(component)/\(node)/\(covers[door].id.map { "\($0)_" } ?? "")\(object)/config"
    }

    /// Every discovery topic a part's entity can have for door `door`, whatever the config, and
    /// its retained value: what is cleared where this config's door lacks the part.
    private func partTopics(_ door: Int) -> [(part: DoorCapabilities.Part, configs: [String], value: String)] {
        [(.light, [configTopic("light", door, "light"), configTopic("binary_sensor", door, "light")], lightTopic(door)),
         (.remotesLock, [configTopic("lock", door, "remotes"), configTopic("binary_sensor", door, "remotes")], remotesTopic(door)),
         (.motion, [configTopic("binary_sensor", door, "motion")], motionTopic(door)),
         (.openings, [configTopic("sensor", door, "openings")], openingsTopic(door)),
         (.battery, [configTopic("sensor", door, "battery")], batteryTopic(door))]
    }

    /// The entities of parts this config's doors lack, and the discovery a part's other form
    /// left (another door's config, or commands switched on or off, may have left them
    /// retained): cleared at each connect so Home Assistant drops them, as `withoutPhotoEye` is.
    public var withoutEntities: [String] {
        let kept = Set(discovery().map(\.topic))
        return covers.indices.flatMap { i -> [String] in
            let parts = partTopics(i)
            return parts.filter { !covers[i].has.has($0.part) }.map(\.value)
                + parts.flatMap(\.configs).filter { !kept.contains($0) }
        }
    }

    /// With named doors, what the one door of a config without sections left retained on the
    /// broker: its cover and sensors' discovery, and its values. Cleared (an empty retained
    /// payload) so Home Assistant drops the cover that no longer exists.
    public var formerSingleDoor: [String] {
        guard covers.allSatisfy({ $0.id != nil }) else { return [] }
        let kept = Set(discovery().map(\.topic))
        return ["\(discoveryPrefix)/cover/\(node)/door/config", "\(discoveryPrefix)/sensor/\(node)/last_opened_by/config",
                "\(discoveryPrefix)/sensor/\(node)/fault/config", "\(discoveryPrefix)/binary_sensor/\(node)/obstruction/config",
                base + "/state", base + "/last_opened_by", base + "/fault", base + "/obstruction",
                base + "/command", base + "/light", base + "/remotes", base + "/motion", base + "/openings", base + "/battery",
                "\(discoveryPrefix)/light/\(node)/light/config", "\(discoveryPrefix)/binary_sensor/\(node)/light/config",
                "\(discoveryPrefix)/lock/\(node)/remotes/config", "\(discoveryPrefix)/binary_sensor/\(node)/remotes/config",
                "\(discoveryPrefix)/binary_sensor/\(node)/motion/config", "\(discoveryPrefix)/sensor/\(node)/openings/config",
                "\(discoveryPrefix)/sensor/\(node)/battery/config",
        ].filter { !kept.contains($0) }
    }

    /// Each door without a photo-eye: its obstruction sensor's discovery and value, cleared at
    /// each connect so a sensor that an earlier config with `--sensor-obstruction` left retained
    /// goes away.
    public var withoutPhotoEye: [String] {
        covers.indices.filter { !covers[$0].photoEye }.flatMap { [obstructionConfigTopic($0), obstructionTopic($0)] }
    }
}

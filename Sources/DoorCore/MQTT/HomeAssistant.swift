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
        /// A photo-eye is wired (`--sensor-obstruction`): the door gets an obstruction sensor.
        public var photoEye: Bool

        public init(id: String?, name: String?, photoEye: Bool = false) {
            self.id = id
            self.name = name
            self.photoEye = photoEye
        }
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
    /// The door whose command topic `topic` is; nil for any other topic.
    public func door(ofCommandTopic topic: String) -> Int? { covers.indices.first { commandTopic($0) == topic } }
    /// Home Assistant's birth message: `online` here means "publish your discovery again".
    public var birthTopic: String { discoveryPrefix + "/status" }

    public static let online = "online"
    public static let offline = "offline"
    /// The obstruction sensor's payloads: Home Assistant's binary_sensor defaults.
    public static let beamBroken = "ON", beamClear = "OFF"

    /// Home Assistant's cover states for the door's positions.
    public static func state(_ position: DoorPosition) -> String { position.rawValue.lowercased() }

    /// The command a payload asks for; nil for anything else.
    public static func command(_ payload: [UInt8]) -> Controller.ChannelCommand? {
        Controller.ChannelCommand(rawValue: String(decoding: payload, as: UTF8.self))
    }

    /// The retained values Home Assistant shows, from the snapshot: the lockout once (`none`, or
    /// each locked channel with its seconds), then each door's cover state, who last opened it,
    /// its fault, and the photo-eye's beam when the door has one.
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

    /// The retained discovery documents: a cover per door with its last opener, its fault and
    /// (with a photo-eye) its obstruction, and the PIN lockout, all on one device. Publish each
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
        }
        // The device's lockout: after the one door's opener as before doors had names, else last.
        let lockout = sensor("lockout", "PIN lockout", lockoutTopic, "mdi:lock-alert")
        documents.insert(lockout, at: covers.count == 1 && covers[0].id == nil ? 2 : documents.count)
        return documents
    }

    /// Door `door`'s obstruction sensor's discovery topic (`<door>_obstruction` for a named door).
    func obstructionConfigTopic(_ door: Int) -> String {
        "\(discoveryPrefix)/binary_sensor/\(node)/\(covers[door].id.map { "\($0)_" } ?? "")obstruction/config"
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
                base + "/command"].filter { !kept.contains($0) }
    }

    /// Each door without a photo-eye: its obstruction sensor's discovery and value, cleared at
    /// each connect so a sensor that an earlier config with `--sensor-obstruction` left retained
    /// goes away.
    public var withoutPhotoEye: [String] {
        covers.indices.filter { !covers[$0].photoEye }.flatMap { [obstructionConfigTopic($0), obstructionTopic($0)] }
    }
}

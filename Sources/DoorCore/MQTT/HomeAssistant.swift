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

    public init(prefix: String, discoveryPrefix: String, node: String, name: String, commandsEnabled: Bool, version: String) {
        self.prefix = prefix
        self.discoveryPrefix = discoveryPrefix
        self.node = HomeAssistant.topicSafe(node)
        self.name = name
        self.commandsEnabled = commandsEnabled
        self.version = version
    }

    /// `node` with everything but letters, digits, `_` and `-` made `_` (topics and ids).
    public static func topicSafe(_ text: String) -> String {
        String(text.unicodeScalars.map { s -> Character in
            s.isASCII && (s.properties.isAlphabetic || ("0"..."9").contains(s) || s == "_" || s == "-") ? Character(s) : "_"
        })
    }

    var base: String { "\(prefix)/\(node)" }
    /// `online` / `offline`, retained; the broker publishes `offline` as the last will.
    public var availabilityTopic: String { base + "/availability" }
    /// `open`, `opening`, `closed`, `closing`, `stopped`, retained.
    public var stateTopic: String { base + "/state" }
    /// `OPEN`, `CLOSE`, `STOP` (only when commands are on).
    public var commandTopic: String { base + "/command" }
    /// Each history event as JSON, not retained.
    public var eventTopic: String { base + "/event" }
    public var lastOpenedByTopic: String { base + "/last_opened_by" }
    public var lockoutTopic: String { base + "/lockout" }
    public var faultTopic: String { base + "/fault" }
    /// Home Assistant's birth message: `online` here means "publish your discovery again".
    public var birthTopic: String { discoveryPrefix + "/status" }

    public static let online = "online"
    public static let offline = "offline"

    /// Home Assistant's cover states for the door's positions.
    public static func state(_ position: DoorPosition) -> String { position.rawValue.lowercased() }

    /// The command a payload asks for; nil for anything else.
    public static func command(_ payload: [UInt8]) -> Controller.ChannelCommand? {
        Controller.ChannelCommand(rawValue: String(decoding: payload, as: UTF8.self))
    }

    /// The retained values Home Assistant shows, from the status: the cover's state, who last
    /// opened it, the lockout (`none`, or each locked channel with its seconds) and a fault.
    public func retained(_ status: DoorStatus, at now: Instant) -> [(topic: String, value: String)] {
        let locked = status.locked(at: now).map { "\($0.channel.rawValue) locked \($0.seconds) s" }
        return [
            (stateTopic, HomeAssistant.state(status.position)),
            (lastOpenedByTopic, status.lastOpener ?? "nobody yet"),
            (lockoutTopic, locked.isEmpty ? "none" : locked.joined(separator: ", ")),
            (faultTopic, status.fault.map { "\($0.rawValue): \($0.explanation)" } ?? "none"),
        ]
    }

    /// The retained discovery documents: the cover (the door) and three sensors, all on one
    /// device. Publish each to its topic; an empty payload would remove it.
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
        var cover: [(String, JSONValue)] = [
            ("name", .null), ("unique_id", .string("garaged_\(node)_door")), ("device_class", .string("garage")),
            ("state_topic", .string(stateTopic)),
            ("state_open", .string("open")), ("state_opening", .string("opening")), ("state_closed", .string("closed")),
            ("state_closing", .string("closing")), ("state_stopped", .string("stopped")),
        ]
        if commandsEnabled {
            cover += [("command_topic", .string(commandTopic)), ("payload_open", .string("OPEN")),
                      ("payload_close", .string("CLOSE")), ("payload_stop", .string("STOP"))]
        }
        cover += availability + [("device", device)]
        func sensor(_ id: String, _ title: String, _ topic: String, _ icon: String) -> (String, JSONValue) {
            ("\(discoveryPrefix)/sensor/\(node)/\(id)/config",
             .object([("name", .string(title)), ("unique_id", .string("garaged_\(node)_\(id)")), ("state_topic", .string(topic)),
                      ("icon", .string(icon))] + availability + [("device", device)]))
        }
        return [("\(discoveryPrefix)/cover/\(node)/door/config", .object(cover)),
                sensor("last_opened_by", "Last opened by", lastOpenedByTopic, "mdi:account-key"),
                sensor("lockout", "PIN lockout", lockoutTopic, "mdi:lock-alert"),
                sensor("fault", "Door fault", faultTopic, "mdi:alert")]
    }
}

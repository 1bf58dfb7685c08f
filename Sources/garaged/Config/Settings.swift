import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
#endif

/// Everything the daemon runs with: every setting for all doors by name (`settings.pins`, from
/// `Catalog`), each door's own (`doors`), and what is built from several of them (the garage
/// on the air) or resolved against the system (the socket's group), built and checked once at
/// start.
@dynamicMemberLookup
struct Settings: Sendable {
    /// The settings for all doors (read a door's own through `doors`).
    let values: SettingValues
    /// The doors, the first first: the one door of a file without sections, or one per
    /// `[door NAME]` section and `--door.NAME.KEY` name.
    let doors: [DoorSettings]
    /// What the garage looks like over GATT and on the air; used by the ATT test socket too.
    let bluetooth: BluetoothSettings
    /// Home Assistant over MQTT, when `--mqtt` is set.
    let mqtt: MQTTSettings?
    /// The group that may use the local socket (mode 0660), when there is one; `explicit` when
    /// it was set, not the default.
    let socketGroup: (name: String, gid: gid_t, explicit: Bool)?

    /// The socket's group when none is set and a group of this name exists.
    static let defaultSocketGroup = LocalSocketGroup.defaultName

    /// The settings from the command line over the file, split between all doors and each.
    init(_ commandLine: CommandLineSettings, file: ConfigFile?) throws(ConfigError) {
        let (top, doors) = try DoorSections.split(commandLine, file)
        values = try SettingValues(top)
        var checked: [DoorSettings] = []
        for door in doors {
            checked.append(try DoorSettings(id: door.name, origin: door.origin, values: try SettingValues(door.given)))
        }
        self.doors = checked
        try Settings.checkLinesUsedOnce(checked)
        mqtt = try MQTTSettings(values)
        bluetooth = try BluetoothSettings(values)
        if let name = values.socketGroup {
            guard let group = getgrnam(name) else {
                throw ConfigError("--socket-group \(name): no such group; create it (sudo groupadd --system \(name)) or name another")
            }
            socketGroup = (name, group.pointee.gr_gid, true)
        } else if let group = getgrnam(Settings.defaultSocketGroup) {
            socketGroup = (Settings.defaultSocketGroup, group.pointee.gr_gid, false)
        } else {
            socketGroup = nil
        }
    }

    subscript<V>(dynamicMember path: KeyPath<Catalog, Setting<V>>) -> V {
        precondition(!Catalog.shared[keyPath: path].perDoor, "a door's own setting is read from settings.doors")
        return values[dynamicMember: path]
    }

    /// The first door: the book's `O=1` and `S` act on it.
    var door: DoorSettings { doors[0] }

    /// Refuses a line given two jobs, by one door or two: a relay that is also a switch, two
    /// doors on one relay. (Two names for one GPIO line, `17` and `GPIO17`, meet at the claim.)
    static func checkLinesUsedOnce(_ doors: [DoorSettings]) throws(ConfigError) {
        var seen: [RelaySpec: (door: DoorSettings, role: String, origin: String)] = [:]
        for door in doors {
            for (role, spec, origin) in door.lines {
                if let first = seen[spec] {
                    let whose = first.door.id == door.id ? "the " : "\(first.door.label)'s "
                    throw ConfigError("\(origin): \(spec) is already \(whose)\(first.role) (\(first.origin)); \(door.label)'s \(role) needs a line of its own")
                }
                seen[spec] = (door, role, origin)
            }
        }
    }

    /// The event history: `--events`, or beside the table.
    var eventsPath: String { values.events ?? EventHistoryFile.path(forTable: values.pins) }
}

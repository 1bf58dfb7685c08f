import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
#endif

/// Everything the daemon runs with: every setting by name (`settings.pins`, from `Catalog`),
/// and what is built from several of them (the door's timing, the garage on the air) or
/// resolved against the system (the socket's group), built and checked once at start.
@dynamicMemberLookup
struct Settings: Sendable {
    let values: SettingValues
    let timing: DoorTiming
    /// What the garage looks like over GATT and on the air; used by the ATT test socket too.
    let bluetooth: BluetoothSettings
    /// Which limit switches there are, and where.
    let sensing: DoorSensing
    let sensorClosed: RelaySpec?
    let sensorOpen: RelaySpec?
    let warn: RelaySpec?
    let light: RelaySpec?
    /// Home Assistant over MQTT, when `--mqtt` is set.
    let mqtt: MQTTSettings?
    /// The group that may use the local socket (mode 0660), when there is one; `explicit` when
    /// it was set, not the default.
    let socketGroup: (name: String, gid: gid_t, explicit: Bool)?

    /// The socket's group when none is set and a group of this name exists.
    static let defaultSocketGroup = "garage"

    init(_ values: SettingValues) throws(ConfigError) {
        self.values = values
        sensorClosed = try Catalog.spec(values.sensorClosed, "sensor-closed")
        sensorOpen = try Catalog.spec(values.sensorOpen, "sensor-open")
        warn = try Catalog.spec(values.warn, "warn")
        light = try Catalog.spec(values.light, "light")
        mqtt = try MQTTSettings(values)
        sensing = DoorSensing(closedSwitch: sensorClosed != nil, openSwitch: sensorOpen != nil)
        timing = DoorTiming(pulse: .milliseconds(values.pulseMs), travel: .seconds(values.travelS),
                            autoClose: values.autoCloseS == 0 ? nil : .seconds(values.autoCloseS),
                            warning: warn == nil ? nil : .seconds(values.warnS),
                            leftOpen: values.leftOpenS == 0 ? nil : .seconds(values.leftOpenS),
                            light: light == nil ? nil : .seconds(values.lightS))
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

    subscript<V>(dynamicMember path: KeyPath<Catalog, Setting<V>>) -> V { values[dynamicMember: path] }

    /// The event history: `--events`, or beside the table.
    var eventsPath: String { values.events ?? EventHistoryFile.path(forTable: values.pins) }
}

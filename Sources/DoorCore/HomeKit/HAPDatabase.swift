/// HAP's status codes for one characteristic in a 207 Multi-Status answer.
public enum HAPStatus: Int, Sendable {
    case success = 0
    case insufficientPrivileges = -70401
    /// The accessory could not do it (HomeKit shows "No Response" briefly): a refused door move.
    case unableToCommunicate = -70402
    case readOnly = -70404
    case writeOnly = -70405
    case notificationNotSupported = -70406
    case doesNotExist = -70409
    case invalidValue = -70410
}

/// One characteristic's address: the accessory (`aid`) and the instance (`iid`).
public struct HAPCharacteristicID: Hashable, Sendable, Comparable {
    public var aid: Int
    public var iid: Int
    public init(aid: Int, iid: Int) { self.aid = aid; self.iid = iid }
    public static func < (a: Self, b: Self) -> Bool { (a.aid, a.iid) < (b.aid, b.iid) }

    /// `1.9,1.10` (a `GET /characteristics?id=` list); nil when any item is malformed.
    public static func list(_ text: String) -> [HAPCharacteristicID]? {
        var out: [HAPCharacteristicID] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = item.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 2, let aid = Int(parts[0]), let iid = Int(parts[1]), aid > 0, iid > 0 else { return nil }
            out.append(HAPCharacteristicID(aid: aid, iid: iid))
        }
        return out.isEmpty ? nil : out
    }
}

/// What a characteristic is, for reading and writing it.
public enum HAPCharacteristic: Equatable, Sendable {
    case identify
    /// A fixed string: the manufacturer, model, name, serial number, firmware or protocol version.
    case text(String)
    case currentDoorState(door: Int)
    case targetDoorState(door: Int)
    case obstructionDetected(door: Int)
    case lightOn(door: Int)
    /// The lock of an opener's remotes and keypads: LockCurrentState (0 unsecured, 1 secured,
    /// 3 unknown) and LockTargetState (0 unsecured, 1 secured).
    case lockCurrentState(door: Int)
    case lockTargetState(door: Int)
    /// An opener's motion sensor.
    case motionDetected(door: Int)
    /// An opener's backup battery (BatteryService): BatteryLevel (a percentage), ChargingState
    /// (0 not charging, 1 charging, 2 not chargeable) and StatusLowBattery (0 normal, 1 low).
    case batteryLevel(door: Int)
    case chargingState(door: Int)
    case statusLowBattery(door: Int)

    public var readable: Bool { self != .identify }
    public var writable: Bool {
        switch self {
        case .identify, .targetDoorState, .lightOn, .lockTargetState: return true
        default: return false
        }
    }
    public var notifies: Bool {
        switch self {
        case .currentDoorState, .targetDoorState, .obstructionDetected, .lightOn, .lockCurrentState, .lockTargetState, .motionDetected,
             .batteryLevel, .chargingState, .statusLowBattery:
            return true
        default: return false
        }
    }
    /// The door it belongs to, if any.
    public var door: Int? {
        switch self {
        case .currentDoorState(let d), .targetDoorState(let d), .obstructionDetected(let d), .lightOn(let d),
             .lockCurrentState(let d), .lockTargetState(let d), .motionDetected(let d), .batteryLevel(let d), .chargingState(let d),
             .statusLowBattery(let d):
            return d
        default: return nil
        }
    }
}

/// The accessory database `GET /accessories` answers: a GarageDoorOpener service per door, and
/// only what the door has (`DoorCapabilities`): a Lightbulb for its light, the lock of its
/// opener's remotes on the door's service, a MotionSensor for the opener's motion sensor, a
/// BatteryService for its backup battery),
/// AccessoryInformation, HAP's protocol information; with
/// several doors a bridge (aid 1) and an accessory per door (aid 2 on). The instance ids are
/// fixed by the layout, so a controller's cached ids stay right across restarts; any change of
/// layout changes `digest`, which bumps the configuration number.
public struct HAPDatabase: Sendable {
    /// One door as HomeKit shows it.
    public struct Door: Equatable, Sendable {
        public var name: String
        /// What it has: its services follow.
        public var has: DoorCapabilities
        public init(name: String, has: DoorCapabilities) {
            self.name = name
            self.has = has
        }
    }

    struct Entry: Sendable {
        var id: HAPCharacteristicID
        var type: String
        var characteristic: HAPCharacteristic
    }

    struct Service: Sendable {
        var iid: Int
        var type: String
        var primary: Bool
        var characteristics: [Entry]
    }

    public let name: String
    public let doors: [Door]
    public let firmware: String
    private(set) var accessories: [(aid: Int, services: [Service])] = []
    private var index: [HAPCharacteristicID: HAPCharacteristic] = [:]

    public init(name: String, doors: [Door], firmware: String, serial: String) {
        self.name = name
        self.doors = doors
        self.firmware = firmware
        if doors.count == 1 {
            var services = HAPDatabase.information(name: name, model: "garaged", serial: serial, firmware: firmware)
            services += HAPDatabase.door(0, doors[0], aid: 1, from: 16)
            accessories = [(1, services)]
        } else {
            accessories = [(1, HAPDatabase.information(name: name, model: "garaged bridge", serial: serial, firmware: firmware))]
            for (i, d) in doors.enumerated() {
                let aid = i + 2
                accessories.append((aid, HAPDatabase.information(name: d.name, model: "garaged door", serial: "\(serial)-\(i + 1)",
                                                                 firmware: firmware, aid: aid)
                                         + HAPDatabase.door(i, d, aid: aid, from: 16)))
            }
        }
        for a in accessories { for s in a.services { for c in s.characteristics { index[c.id] = c.characteristic } } }
    }

    /// 4 for a garage door opener, 2 for a bridge (the `ci` record and the setup URI).
    public var category: Int { doors.count == 1 ? 4 : 2 }

    public func characteristic(_ id: HAPCharacteristicID) -> HAPCharacteristic? { index[id] }

    /// Every characteristic that sends events, with its address.
    public var notifying: [(HAPCharacteristicID, HAPCharacteristic)] {
        index.filter { $0.value.notifies }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// The aid of door `door`'s accessory.
    public func aid(ofDoor door: Int) -> Int { doors.count == 1 ? 1 : door + 2 }

    /// The layout in a line: equal for equal databases, so a change shows as a new digest.
    public var digest: String {
        accessories.map { a in
            "\(a.aid):" + a.services.map { s in "\(s.iid)/\(s.type)[" + s.characteristics.map { "\($0.id.iid)/\($0.type)" }.joined(separator: ",") + "]" }
                .joined(separator: ";")
        }.joined(separator: "|") + "#" + doors.map(\.name).joined(separator: ",")
    }

    /// The `GET /accessories` document, with each readable characteristic's current value.
    public func document(value: (HAPCharacteristic) -> JSONValue) -> JSONValue {
        .object([("accessories", .array(accessories.map { a in
            .object([("aid", .number(Int64(a.aid))), ("services", .array(a.services.map { s in
                .object([("iid", .number(Int64(s.iid))), ("type", .string(s.type)), ("primary", .bool(s.primary)),
                         ("characteristics", .array(s.characteristics.map { describe($0, value: value) }))])
            }))])
        }))])
    }

    /// One characteristic as `/accessories` (or a `GET` with meta, perms and type) shows it.
    func describe(_ e: Entry, value: (HAPCharacteristic) -> JSONValue) -> JSONValue {
        var members: [(String, JSONValue)] = [("iid", .number(Int64(e.id.iid))), ("type", .string(e.type))]
        var perms: [JSONValue] = []
        if e.characteristic.readable { perms.append(.string("pr")) }
        if e.characteristic.writable { perms.append(.string("pw")) }
        if e.characteristic.notifies { perms.append(.string("ev")) }
        members.append(("perms", .array(perms)))
        members.append(("format", .string(HAPDatabase.format(e.characteristic))))
        if e.characteristic.readable { members.append(("value", value(e.characteristic))) }
        switch e.characteristic {
        case .currentDoorState:
            members += [("minValue", .number(0)), ("maxValue", .number(4)), ("minStep", .number(1))]
        case .targetDoorState, .lockTargetState:
            members += [("minValue", .number(0)), ("maxValue", .number(1)), ("minStep", .number(1))]
        case .lockCurrentState:
            members += [("minValue", .number(0)), ("maxValue", .number(3)), ("minStep", .number(1))]
        case .batteryLevel:
            members += [("minValue", .number(0)), ("maxValue", .number(100)), ("minStep", .number(1)), ("unit", .string("percentage"))]
        case .chargingState:
            members += [("minValue", .number(0)), ("maxValue", .number(2)), ("minStep", .number(1))]
        case .statusLowBattery:
            members += [("minValue", .number(0)), ("maxValue", .number(1)), ("minStep", .number(1))]
        case .text(let s):
            members.append(("maxLen", .number(Int64(max(64, s.utf8.count)))))
        default: break
        }
        return .object(members)
    }

    static func format(_ c: HAPCharacteristic) -> String {
        switch c {
        case .identify, .obstructionDetected, .lightOn, .motionDetected: return "bool"
        case .text: return "string"
        case .currentDoorState, .targetDoorState, .lockCurrentState, .lockTargetState, .batteryLevel, .chargingState, .statusLowBattery:
            return "uint8"
        }
    }

    /// AccessoryInformation (iid 1) and protocol information (iid 8).
    static func information(name: String, model: String, serial: String, firmware: String, aid: Int = 1) -> [Service] {
        func c(_ iid: Int, _ type: String, _ k: HAPCharacteristic) -> Entry { Entry(id: HAPCharacteristicID(aid: aid, iid: iid), type: type, characteristic: k) }
        return [
            Service(iid: 1, type: "3E", primary: false, characteristics: [
                c(2, "14", .identify), c(3, "20", .text("garaged")), c(4, "21", .text(model)), c(5, "23", .text(name)),
                c(6, "30", .text(serial)), c(7, "52", .text(firmware)),
            ]),
            Service(iid: 8, type: "A2", primary: false, characteristics: [c(9, "37", .text("1.1.0"))]),
        ]
    }

    /// GarageDoorOpener (iid 16, with the lock of an opener's remotes at 21 and 22), with a
    /// light a Lightbulb (iid 32), with an opener's motion sensor a MotionSensor (iid 48), with
    /// its backup battery a BatteryService (iid 64: BatteryLevel, ChargingState, StatusLowBattery,
    /// all three required by HAP's definition of the service).
    static func door(_ index: Int, _ d: Door, aid: Int, from base: Int) -> [Service] {
        func c(_ iid: Int, _ type: String, _ k: HAPCharacteristic) -> Entry { Entry(id: HAPCharacteristicID(aid: aid, iid: iid), type: type, characteristic: k) }
        var services = [Service(iid: base, type: "41", primary: true, characteristics: [
            c(base + 1, "E", .currentDoorState(door: index)), c(base + 2, "32", .targetDoorState(door: index)),
            c(base + 3, "24", .obstructionDetected(door: index)), c(base + 4, "23", .text(d.name)),
        ])]
        if d.has.remotesLock {
            services[0].characteristics += [c(base + 5, "1D", .lockCurrentState(door: index)), c(base + 6, "1E", .lockTargetState(door: index))]
        }
        if d.has.light != nil {
            services.append(Service(iid: base + 16, type: "43", primary: false, characteristics: [
                c(base + 17, "25", .lightOn(door: index)), c(base + 18, "23", .text(d.name + " light")),
            ]))
        }
        if d.has.motion {
            services.append(Service(iid: base + 32, type: "85", primary: false, characteristics: [
                c(base + 33, "22", .motionDetected(door: index)), c(base + 34, "23", .text(d.name + " motion")),
            ]))
        }
        if d.has.battery {
            services.append(Service(iid: base + 48, type: "96", primary: false, characteristics: [
                c(base + 49, "68", .batteryLevel(door: index)), c(base + 50, "8F", .chargingState(door: index)),
                c(base + 51, "79", .statusLowBattery(door: index)), c(base + 52, "23", .text(d.name + " battery")),
            ]))
        }
        return services
    }
}

import DoorCore

/// HomeKit's keys and pairings beside the table (`<table>.homekit`): the accessory's id and
/// Ed25519 seed, the setup code and id, the configuration number, the failed pair-setups, and
/// each controller's pairing. Written as safely as the table, readable by its owner only (the
/// seed is the accessory's identity), and never larger than `maxBytes`, which is all `load`
/// reads; a corrupt file is an error naming it (garaged then runs without HomeKit) rather than
/// silently a new accessory every controller would have to pair with again.
public struct HomeKitFile: Sendable {
    public let path: String
    /// The most `load` reads, and so the most `save` writes.
    public static let maxBytes = 64 * 1024

    public init(path: String) { self.path = path }

    public init(tablePath: String) { self.init(path: tablePath + ".homekit") }

    /// The kept state, nil when there is no file yet.
    public func load() throws(StoreError) -> HAPAccessoryState? {
        let bytes: [UInt8]
        do throws(StoreError) {
            guard let read = try AtomicFile.read(path, limit: HomeKitFile.maxBytes) else { return nil }
            bytes = read
        } catch {
            guard case .tooLarge(_, let size, let limit) = error else { throw error }
            throw .homekit(path: path, reason: "it is \(size) bytes, more than the \(limit) it can be")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .homekit(path: path, reason: "not UTF-8 text")
        }
        let json: JSONValue
        do { json = try JSONParser.parse(text) } catch { throw .homekit(path: path, reason: "not JSON: \(error)") }
        guard let state = HomeKitFile.decode(json) else {
            throw .homekit(path: path, reason: "a member is missing or malformed (id, seed, setup_code, setup_id, config_number, pairings)")
        }
        return state
    }

    /// Writes `state`, unless it would be more than `load` reads: then nothing is written.
    public func save(_ state: HAPAccessoryState) throws(StoreError) {
        let bytes = Array((HomeKitFile.encode(state).serialized + "\n").utf8)
        guard bytes.count <= HomeKitFile.maxBytes else {
            throw .wouldBeTooLarge(path: path, size: bytes.count, limit: HomeKitFile.maxBytes,
                                   hint: "\(state.pairings.count) pairings; a controller's pairing id is at most \(HAPPairing.maxIDLength) bytes")
        }
        try AtomicFile.write(bytes, to: path, mode: 0o600)
    }

    static func encode(_ s: HAPAccessoryState) -> JSONValue {
        .object([
            ("id", .string(s.id)), ("seed", .string(Hex.string(s.seed, separator: "", lowercase: true))), ("setup_code", .string(s.setupCode)),
            ("setup_id", .string(s.setupID)), ("config_number", .number(Int64(s.configNumber))),
            ("database", .string(s.databaseDigest)), ("failed_setups", .number(Int64(s.failedSetups))),
            ("pairings", .array(s.pairings.map {
                .object([("id", .string($0.id)), ("public_key", .string(Hex.string($0.publicKey, separator: "", lowercase: true))), ("admin", .bool($0.admin))])
            })),
        ])
    }

    static func decode(_ j: JSONValue) -> HAPAccessoryState? {
        guard let id = j["id"]?.stringValue, let seed = j["seed"]?.stringValue.flatMap(Hex.bytes), seed.count == 32,
              let code = j["setup_code"]?.stringValue, SetupCode.isValid(code),
              let setupID = j["setup_id"]?.stringValue, setupID.count == 4,
              let config = j["config_number"]?.intValue, (1...65535).contains(config),
              let list = j["pairings"]?.arrayValue else { return nil }
        var pairings: [HAPPairing] = []
        for p in list {
            guard let pid = p["id"]?.stringValue, !pid.isEmpty, let key = p["public_key"]?.stringValue.flatMap(Hex.bytes), key.count == 32,
                  let admin = p["admin"]?.boolValue else { return nil }
            pairings.append(HAPPairing(id: pid, publicKey: key, admin: admin))
        }
        return HAPAccessoryState(id: id, seed: seed, setupCode: code, setupID: setupID, configNumber: Int(config),
                                 databaseDigest: j["database"]?.stringValue ?? "",
                                 failedSetups: Int(j["failed_setups"]?.intValue ?? 0), pairings: pairings)
    }
}

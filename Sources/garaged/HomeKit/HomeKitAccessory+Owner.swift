import DoorCore
import DoorSystem

/// `garage-pins homekit`: the setup code and URI (shown to the owner, never logged), the
/// pairings, or a reset.
extension HomeKitAccessory: OwnerCommands {
    func answer(_ query: Controller.LocalQuery, from connection: Connection, record: (EventRecord) -> Void) -> [Reply]? {
        guard case .homekit(let verb) = query else { return nil }
        switch verb {
        case .info:
            let uri = SetupCode.setupURI(code: state.setupCode, setupID: state.setupID, category: database.category)
            return [.record(.object([
                ("setup_code", .string(state.setupCode)), ("setup_uri", .string(uri)), ("setup_id", .string(state.setupID)),
                ("paired", .bool(state.isPaired)), ("pairings", .number(Int64(state.pairings.count))), ("id", .string(state.id)),
                ("name", .string(database.name)), ("category", .number(Int64(database.category))),
                ("config_number", .number(Int64(state.configNumber))), ("failed_setups", .number(Int64(state.failedSetups))),
                ("setup_locked", .bool(state.failedSetups >= HAPAccessoryState.maxFailures)),
            ])), .ok]
        case .pairings:
            return state.pairings.map { .record(.object([("id", .string($0.id)), ("admin", .bool($0.admin))])) }
                + [.listed(count: state.pairings.count)]
        case .reset:
            let forgotten = state.pairings.count
            guard reset() else { return [.error(.store)] }
            let by = connection.source.description
            log.warning("homekit-reset", ["by": by, "effect": "every pairing forgotten, a new setup code, every session closed"])
            record(EventRecord(time: EventRecord.now(), kind: .homekitReset, source: by,
                               detail: "\(forgotten) pairing\(forgotten == 1 ? "" : "s") forgotten, a new setup code"))
            return [.ok]
        }
    }
}

import DoorCore

/// Which doors each PIN may use (`<table>.doors`), written as safely as the table. A missing
/// file is an empty one: every PIN reaches every door.
public struct DoorAccessFile: Sendable, DoorAccessSaving {
    public let path: String

    public init(tablePath: String) { path = tablePath + ".doors" }

    public func load() throws(StoreError) -> DoorAccess {
        guard let bytes = try AtomicFile.read(path, limit: 64 * 1024) else { return DoorAccess() }
        do {
            return try DoorAccess.decode(bytes)
        } catch {
            throw .access(path: path, reason: error.description)
        }
    }

    public func save(_ access: DoorAccess) throws(StoreError) {
        try AtomicFile.write(access.encoded(), to: path, mode: 0o600)
    }
}

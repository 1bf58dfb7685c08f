import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// The table on disk. Saves are crash-safe (AtomicFile: a temporary file in the same directory,
/// fsynced, renamed over the old one, the directory fsynced), so a power cut leaves either the
/// old table or the new one, never a torn one.
public struct PinTableFile: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    /// What to tell the owner when the table cannot be used.
    public var fixHint: String {
        "restore \(path) from a backup, or create a new table with `garage-pins init --pins \(path) --master PIN --force` (this forgets every PIN)"
    }

    public func load() throws(StoreError) -> PinTable {
        // Wrong sizes up to 64 KiB are reported by the layout, with the size it expects.
        guard let bytes = try AtomicFile.read(path, limit: 64 * 1024) else {
            throw .missing(path: path, hint: "create one with `garage-pins init --pins \(path) --master PIN`")
        }
        do {
            return try EEPROMLayout.decode(bytes)
        } catch {
            throw .corrupt(path: path, reason: error, hint: fixHint)
        }
    }

    /// Writes `table` crash-safely with mode 0600.
    public func save(_ table: PinTable) throws(StoreError) {
        try AtomicFile.write(EEPROMLayout.encode(table), to: path, mode: 0o600)
    }

    /// Creates a new table; an existing file is kept unless `force`.
    public func create(_ table: PinTable, force: Bool) throws(StoreError) {
        try AtomicFile.requireRegularOrMissing(path)
        if !force, access(path, F_OK) == 0 {
            throw .exists(path: path)
        }
        try save(table)
    }
}

extension PinTableFile: PinTableSaving {}

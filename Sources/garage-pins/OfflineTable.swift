import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
#endif

/// A table file worked on without the daemon: writers take the table's lock first, so a
/// running garaged (or one starting meanwhile) and this tool never write it both at once, and
/// a refusal names the process that holds it.
struct OfflineTable {
    let path: String
    var labelsFile: LabelsFile { LabelsFile(tablePath: path) }
    var accessFile: DoorAccessFile { DoorAccessFile(tablePath: path) }

    /// Holds the lock for the duration of `body`.
    func withLock<R>(_ body: () throws(CLIError) -> R) throws(CLIError) -> R {
        let lock: TableLock
        do { lock = try TableLock.acquire(tablePath: path) } catch { throw .file("\(error)") }
        defer { withExtendedLifetime(lock) {} }
        return try body()
    }

    func load() throws(CLIError) -> PinTable {
        do { return try PinTableFile(path: path).load() } catch { throw .file("\(error)") }
    }

    /// The labels, or none when the sidecar is missing (or unreadable: said on stderr).
    func labels(for table: PinTable) -> Labels {
        do { return try labelsFile.load().pruned(to: table) } catch {
            var stderr = StandardError()
            print("garage-pins: warning: \(error.description)", to: &stderr)
            return Labels()
        }
    }

    /// The door limits beside the table (none when the file is missing); one that cannot be
    /// read is an error, never taken for "no limits".
    func access(for table: PinTable) throws(CLIError) -> DoorAccess {
        do { return try accessFile.load().pruned(to: table) } catch { throw .file(error.description) }
    }

    /// Writes a new table, its labels and (unless nil: left as they are) its door limits;
    /// refuses an existing table without `force` before writing anything.
    func write(_ table: PinTable, labels: Labels, access: DoorAccess? = nil, force: Bool) throws(CLIError) {
        do {
            if !force, Glibc.access(path, F_OK) == 0 { throw StoreError.exists(path: path) }
            try labelsFile.save(labels)
            if let access { try accessFile.save(access) }
            try PinTableFile(path: path).create(table, force: force)
        } catch {
            throw .file("\(error)")
        }
    }

    /// Refuses a backup without door limits (version 1) while any PIN beside this table is
    /// limited to some doors, or the limits cannot be read: importing it would let those PINs
    /// use every door.
    func refuseLiftingLimits(with backup: String) throws(CLIError) {
        let limits: DoorAccess
        do { limits = try accessFile.load() } catch {
            throw .file("\(error.description). \(backup) is a version 1 backup, which has no door limits, so it is not imported over limits that cannot be read")
        }
        guard !limits.doors.isEmpty else { return }
        let slots = limits.doors.keys.sorted().map { "slot \($0) (\(limits.doors[$0]?.joined(separator: ",") ?? ""))" }.joined(separator: ", ")
        throw .file("\(backup) is a version 1 backup, which has no door limits, and \(accessFile.path) limits \(slots): importing it would let those PINs use every door. Export the backup again with this garage-pins (version \(TableBackup.version) keeps the limits), or lift them first (garage-pins edit SLOT --doors all while garaged runs, or delete \(accessFile.path)) and import again")
    }
}

/// Reads a whole file the owner named (a dump, a backup), with a message naming it on failure;
/// one larger than `limit` is refused with its size, never read in part.
func readInput(_ path: String, what: String, limit: Int = 4 << 20) throws(CLIError) -> [UInt8] {
    do {
        guard let bytes = try AtomicFile.read(path, limit: limit) else { throw CLIError.file("\(what) \(path) does not exist") }
        return bytes
    } catch let e as CLIError {
        throw e
    } catch {
        throw .file("\(error)")
    }
}

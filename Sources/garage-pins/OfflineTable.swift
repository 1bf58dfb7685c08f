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

    /// Writes a new table and its labels; refuses an existing table without `force`.
    func write(_ table: PinTable, labels: Labels, force: Bool) throws(CLIError) {
        do {
            try labelsFile.save(labels)
            try PinTableFile(path: path).create(table, force: force)
        } catch {
            throw .file("\(error)")
        }
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

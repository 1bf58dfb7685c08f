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

    public func load() throws(TableFileError) -> PinTable {
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
    public func save(_ table: PinTable) throws(TableFileError) {
        try AtomicFile.write(EEPROMLayout.encode(table), to: path, mode: 0o600)
    }

    /// Creates a new table; an existing file is kept unless `force`.
    public func create(_ table: PinTable, force: Bool) throws(TableFileError) {
        try AtomicFile.requireRegularOrMissing(path)
        if !force, access(path, F_OK) == 0 {
            throw .exists(path: path)
        }
        try save(table)
    }

    /// The folder a file lives in ("." for a bare name), for fsync and temporary files.
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

/// Why the table file could not be used; each message names the file and what to do.
public enum TableFileError: Error, Equatable, Sendable, CustomStringConvertible {
    case missing(path: String, hint: String)
    case exists(path: String)
    case corrupt(path: String, reason: PinTableError, hint: String)
    case io(path: String, action: String, errno: Int32)
    case locked(path: String, holder: Int32?)
    case labels(path: String, reason: String)
    case invalid(path: String, reason: String)
    case symlink(path: String, target: String, resolved: String?)
    case notRegular(path: String, kind: String)
    case tooLarge(path: String, size: Int, limit: Int)

    public var description: String {
        switch self {
        case .missing(let path, let hint):
            return "PIN table \(path) does not exist; \(hint)"
        case .exists(let path):
            return "PIN table \(path) already exists; add --force to replace it (this forgets every PIN in it)"
        case .corrupt(let path, let reason, let hint):
            return "PIN table \(path) is not a valid table: \(reason); \(hint)"
        case .io(let path, let action, let e):
            return "cannot \(action) \(path): \(String(cString: strerror(e)))"
        case .locked(let path, let holder):
            let who = holder.map { "process \($0)" } ?? "another process"
            return "PIN table \(path) is in use by \(who) (a running garaged?); stop it first, or talk to it through its socket"
        case .labels(let path, let reason):
            return "labels file \(path) is not valid: \(reason); fix that line, or delete the file to forget every label"
        case .invalid(let path, let reason):
            return "\(path) is not valid: \(reason); fix it, or delete the file to go back to the configured value"
        case .symlink(let path, let target, let resolved):
            let instead = resolved.map { "name the file itself (\($0))" } ?? "name a regular file instead"
            return "\(path) is a symbolic link to \(target); garaged does not follow links for the files it keeps (a save replaces the file, so the link would be replaced and its target never updated): \(instead)"
        case .notRegular(let path, let kind):
            return "\(path) is \(kind), not a regular file; name a regular file (or a path that does not exist yet)"
        case .tooLarge(let path, let size, let limit):
            return "\(path) is \(size) bytes, more than the \(limit) such a file can be; is it the right file?"
        }
    }
}

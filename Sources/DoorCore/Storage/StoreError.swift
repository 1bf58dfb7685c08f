#if canImport(Glibc)
import Glibc  // strerror only: the message for an errno a store reported
#endif

/// Why a file the daemon keeps (the table, its lock, labels, history, the closing interval)
/// could not be used; each message names the file and what to do.
public enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    case missing(path: String, hint: String)
    case exists(path: String)
    case corrupt(path: String, reason: PinTableError, hint: String)
    case io(path: String, action: String, errno: Int32)
    case locked(path: String, holder: Int32?)
    case labels(path: String, reason: String)
    case access(path: String, reason: String)
    case invalid(path: String, reason: String)
    /// A kept file that cannot be read, and what to do about it (no configured value stands in).
    case damaged(path: String, reason: String, fix: String)
    case symlink(path: String, target: String, resolved: String?)
    case notRegular(path: String, kind: String)
    case tooLarge(path: String, size: Int, limit: Int)
    /// A save refused because the file would be more than its reader takes.
    case wouldBeTooLarge(path: String, size: Int, limit: Int, hint: String)
    /// HomeKit's keys and pairings (`<table>.homekit`) that cannot be read.
    case homekit(path: String, reason: String)

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
        case .access(let path, let reason):
            return "door access file \(path) is not valid: \(reason); fix that line (garage-pins list shows what garaged holds), or delete the file to let every PIN use every door"
        case .damaged(let path, let reason, let fix):
            return "\(path) is damaged: \(reason); \(fix)"
        case .invalid(let path, let reason):
            return "\(path) is not valid: \(reason); fix it, or delete the file to go back to the configured value"
        case .symlink(let path, let target, let resolved):
            let instead = resolved.map { "name the file itself (\($0))" } ?? "name a regular file instead"
            return "\(path) is a symbolic link to \(target); garaged does not follow links for the files it keeps (a save replaces the file, so the link would be replaced and its target never updated): \(instead)"
        case .notRegular(let path, let kind):
            return "\(path) is \(kind), not a regular file; name a regular file (or a path that does not exist yet)"
        case .tooLarge(let path, let size, let limit):
            return "\(path) is \(size) bytes, more than the \(limit) such a file can be; is it the right file?"
        case .wouldBeTooLarge(let path, let size, let limit, let hint):
            return "not saved: \(path) would be \(size) bytes, more than the \(limit) garaged reads back at its next start; the change was refused and the file left as it was (\(hint))"
        case .homekit(let path, let reason):
            return "HomeKit's keys and pairings \(path) cannot be read: \(reason); fix the file, or remove it to make a new accessory (every controller must then pair again)"
        }
    }
}

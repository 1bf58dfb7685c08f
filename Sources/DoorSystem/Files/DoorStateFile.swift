import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// A close that failed (the door did not reach CLOSED after garaged's press), kept beside the
/// table in `<table>.door` and written as safely as the table, so that no automatic press
/// follows a restart (the package restarts garaged on every upgrade) until the door is seen
/// closed. No file: nothing failed.
public struct DoorStateFile: Sendable {
    public let path: String

    /// Beside the table: `<table>.door` for the first door (as before doors had names),
    /// `<table>.<door>.door` for each other door.
    public init(tablePath: String, door: String? = nil) { path = tablePath + (door.map { ".\($0)" } ?? "") + ".door" }

    /// The line the file holds while a close failure is unresolved.
    static let closeFailedWord = "close-failed"

    /// True when a close failure is kept. A file that is not what garaged writes throws; the
    /// caller then holds the door as if a close had failed (the safe side).
    public func load() throws(StoreError) -> Bool {
        guard let bytes = try AtomicFile.read(path, limit: 256) else { return false }
        let line = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        let words = line.split(separator: " ")
        guard words.count == 2, words[0] == DoorStateFile.closeFailedWord, Int64(words[1]) != nil else {
            throw .invalid(path: path, reason: "expected '\(DoorStateFile.closeFailedWord) <milliseconds>', found '\(line.prefix(40))'")
        }
        return true
    }
}

extension DoorStateFile: DoorStateSaving {
    public func save(closeFailed: Bool, at time: Int64) throws(StoreError) {
        if closeFailed {
            try AtomicFile.write(Array("\(DoorStateFile.closeFailedWord) \(time)\n".utf8), to: path, mode: 0o600)
            return
        }
        guard unlink(path) == 0 || errno == ENOENT else { throw .io(path: path, action: "remove", errno: errno) }
        let dir = AtomicFile.directory(of: path)
        let dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 {
            fsync(dfd)
            close(dfd)
        }
    }
}

import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// The durable, bounded event history: records are appended to FILE and made durable with
/// fdatasync; when FILE would grow past `maxBytes` it is renamed to FILE.1 (dropping the older
/// FILE.1) and a new FILE starts, so the oldest records go first and the history never takes
/// more than twice `maxBytes`. Reading takes FILE.1 then FILE and skips torn or corrupt lines.
/// One process appends (the daemon's event writer thread); it is not shared between threads.
public final class EventHistoryFile: @unchecked Sendable {
    /// The size at which a file rotates, the same as the in-memory history's.
    public static let defaultMaxBytes = EventHistory.defaultMaxBytesPerFile

    public let path: String
    public let maxBytes: Int
    private var fd: Int32 = -1
    private var size = 0

    public init(path: String, maxBytes: Int = EventHistoryFile.defaultMaxBytes) {
        self.path = path
        self.maxBytes = maxBytes
    }

    public var olderPath: String { path + ".1" }

    /// The history file that belongs to a table file.
    public static func path(forTable table: String) -> String { table + ".events" }

    /// The file of attempts (wrong PINs, lockouts, refusals) beside a history file: a part of
    /// its own, so they never push what matters out of the history.
    public static func attemptsPath(forEvents events: String) -> String { events + ".attempts" }

    /// Appends records and waits until they are on disk (fdatasync, once for the batch). The
    /// rotation is decided record by record, as EventHistory mirrors it.
    public func append(_ records: [EventRecord]) throws(StoreError) {
        try openIfNeeded()
        var pending: [UInt8] = []
        for r in records {
            let line = EventCodec.encode(r)
            if size + pending.count > 0, size + pending.count + line.count > maxBytes {
                try write(pending)
                pending.removeAll()
                try sync()
                try rotate()
            }
            pending += line
        }
        try write(pending)
        try sync()
    }

    private func write(_ bytes: [UInt8]) throws(StoreError) {
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(path: path, action: "append to", errno: errno)
            }
            written += n
        }
        size += written
    }

    private func sync() throws(StoreError) {
        guard fdatasync(fd) == 0 else { throw .io(path: path, action: "fdatasync", errno: errno) }
    }

    /// What each file holds, and FILE's size: what an EventHistory starts from.
    public func read() throws(StoreError) -> (older: [EventRecord], current: [EventRecord], currentBytes: Int, skipped: Int) {
        let older = try AtomicFile.read(olderPath, limit: maxBytes * 4) ?? []
        let current = try AtomicFile.read(path, limit: maxBytes * 4) ?? []
        let a = EventCodec.decodeAll(older), b = EventCodec.decodeAll(current)
        // The writer ends a torn last line with a newline before its next append: count it.
        let size = current.count + (current.last.map { $0 == 0x0A ? 0 : 1 } ?? 0)
        return (a.records, b.records, size, a.skipped + b.skipped)
    }

    /// A history that mirrors these files.
    public func history() throws(StoreError) -> (EventHistory, skipped: Int) {
        let r = try read()
        return (EventHistory(maxBytesPerFile: maxBytes, older: r.older, current: r.current, currentBytes: r.currentBytes), r.skipped)
    }

    public func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    deinit { close() }

    /// Opens FILE for appending; a last line torn by a crash gets its newline first, so the
    /// next record starts on a line of its own (the torn one stays, and is skipped on reading).
    private func openIfNeeded() throws(StoreError) {
        guard fd < 0 else { return }
        fd = try AtomicFile.openRegular(path, flags: O_WRONLY | O_APPEND)
        var st = stat()
        fstat(fd, &st)
        size = Int(st.st_size)
        if size > 0 {
            let rfd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            var last: UInt8 = 0x0A
            if rfd >= 0 {
                _ = pread(rfd, &last, 1, off_t(size - 1))
                Glibc.close(rfd)
            }
            if last != 0x0A {
                var lf: UInt8 = 0x0A
                if Glibc.write(fd, &lf, 1) == 1 { size += 1 }
            }
        }
    }

    private func rotate() throws(StoreError) {
        close()
        guard rename(path, olderPath) == 0 else { throw .io(path: path, action: "rotate", errno: errno) }
        let dir = AtomicFile.directory(of: path)
        let dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 { fsync(dfd); Glibc.close(dfd) }
        try openIfNeeded()
    }
}

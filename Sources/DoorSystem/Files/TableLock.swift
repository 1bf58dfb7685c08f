import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// Makes one process the only writer of a table. The lock lives on `<table>.lock`, not on the
/// table itself, because saves replace the table file by rename. It is a POSIX record lock so a
/// refused process can name the holder's pid, and the kernel drops it when the holder dies.
public final class TableLock: @unchecked Sendable {
    private let fd: Int32
    public let path: String

    private init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    public static func lockPath(for tablePath: String) -> String { tablePath + ".lock" }

    /// Takes the lock or throws `.locked` naming the holder.
    public static func acquire(tablePath: String) throws(StoreError) -> TableLock {
        let path = lockPath(for: tablePath)
        try AtomicFile.requireRegularOrMissing(tablePath)
        let fd = try AtomicFile.openRegular(path, flags: O_RDWR)
        var fl = flock()
        fl.l_type = Int16(F_WRLCK)
        fl.l_whence = Int16(SEEK_SET)
        if fcntl(fd, F_SETLK, &fl) != 0 {
            let e = errno
            var probe = flock()
            probe.l_type = Int16(F_WRLCK)
            probe.l_whence = Int16(SEEK_SET)
            let holder: Int32? = fcntl(fd, F_GETLK, &probe) == 0 && probe.l_type != Int16(F_UNLCK)
                ? probe.l_pid : nil
            close(fd)
            if e == EACCES || e == EAGAIN { throw .locked(path: tablePath, holder: holder) }
            throw .io(path: path, action: "lock", errno: e)
        }
        return TableLock(fd: fd, path: path)
    }

    /// The pid holding the table's lock, if any (for tools that only want to ask).
    public static func holder(tablePath: String) -> Int32? {
        let fd = open(lockPath(for: tablePath), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var probe = flock()
        probe.l_type = Int16(F_WRLCK)
        probe.l_whence = Int16(SEEK_SET)
        guard fcntl(fd, F_GETLK, &probe) == 0, probe.l_type != Int16(F_UNLCK) else { return nil }
        return probe.l_pid
    }

    deinit { close(fd) }
}

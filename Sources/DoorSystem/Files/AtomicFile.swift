import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// Replaces a whole small file crash-safely (the PIN table, labels, history): a temporary
/// file in the same directory, fsync, rename over the old one, fsync the directory. A power
/// cut leaves the old contents or the new, never a mix.
///
/// Only regular files, never through a symbolic link: a save replaces the file by rename, so a
/// link would be replaced by a file and its target would never see the change (and a link
/// planted in a writable folder could point a write anywhere). A link, a FIFO, a device or a
/// directory where a file belongs is refused with a message that says what to name instead.
public enum AtomicFile {
    /// The folder a file lives in ("." for a bare name), for fsync and temporary files.
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The suffix of temporary files: `<file>.tmp.XXXXXX`. One left by a save that was killed
    /// holds a whole table (PINs) and is removed by `removeStaleTemporaries`.
    static let temporaryInfix = ".tmp."

    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600) throws(StoreError) {
        try requireRegularOrMissing(path)
        let dir = AtomicFile.directory(of: path)
        var template = Array("\(path)\(temporaryInfix)XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw .io(path: dir, action: "create a temporary file in", errno: errno) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let tmp = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var ok = false
        defer { if !ok { unlink(tmp) } }
        fchmod(fd, mode)
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                let e = errno
                close(fd)
                throw .io(path: tmp, action: "write", errno: e)
            }
            written += n
        }
        if fsync(fd) != 0 {
            let e = errno
            close(fd)
            throw .io(path: tmp, action: "fsync", errno: e)
        }
        close(fd)
        guard rename(tmp, path) == 0 else { throw .io(path: path, action: "replace", errno: errno) }
        ok = true
        let dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 {
            fsync(dfd)
            close(dfd)
        }
    }

    /// The whole file, or nil when it does not exist; other failures throw. A file larger than
    /// `limit` cannot be ours and is refused with its size, never read in part.
    public static func read(_ path: String, limit: Int = 1 << 20) throws(StoreError) -> [UInt8]? {
        // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused just below.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            if errno == ELOOP { throw symlinkError(path) }
            throw .io(path: path, action: "open", errno: errno)
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw .io(path: path, action: "stat", errno: errno) }
        guard st.st_mode & S_IFMT == S_IFREG else { throw .notRegular(path: path, kind: fileKind(st.st_mode)) }
        guard Int(st.st_size) <= limit else { throw .tooLarge(path: path, size: Int(st.st_size), limit: limit) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while bytes.count <= limit {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(path: path, action: "read", errno: errno)
            }
            if n == 0 { break }
            bytes += chunk[0..<n]
        }
        return bytes
    }

    /// Refuses a path that exists as anything but a regular file (a link, a FIFO, a folder).
    public static func requireRegularOrMissing(_ path: String) throws(StoreError) {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        switch st.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFLNK: throw symlinkError(path)
        default: throw .notRegular(path: path, kind: fileKind(st.st_mode))
        }
    }

    /// Opens (creating it 0600 if needed) a file the daemon appends to or locks, refusing a
    /// symbolic link or anything that is not a regular file.
    public static func openRegular(_ path: String, flags: Int32) throws(StoreError) -> Int32 {
        let fd = open(path, flags | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
        guard fd >= 0 else {
            if errno == ELOOP { throw symlinkError(path) }
            throw .io(path: path, action: "open", errno: errno)
        }
        var st = stat()
        if fstat(fd, &st) != 0 || st.st_mode & S_IFMT != S_IFREG {
            close(fd)
            throw .notRegular(path: path, kind: fileKind(st.st_mode))
        }
        return fd
    }

    /// Removes `<path>.tmp.XXXXXX` files that saves killed mid-way left behind (they hold a
    /// whole table, PINs included). Only the holder of the table's lock may call it: then no
    /// save is under way. Returns the names removed.
    @discardableResult
    public static func removeStaleTemporaries(of path: String) -> [String] {
        let dir = AtomicFile.directory(of: path)
        let base = path.split(separator: "/").last.map(String.init) ?? path
        let prefix = base + temporaryInfix
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var removed: [String] = []
        while let entry = readdir(d) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasPrefix(prefix), name.utf8.count == prefix.utf8.count + 6 else { continue }
            let full = dir == "/" ? "/" + name : dir + "/" + name
            var st = stat()
            guard lstat(full, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { continue }
            if unlink(full) == 0 { removed.append(full) }
        }
        return removed
    }

    static func symlinkError(_ path: String) -> StoreError {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink(path, &buffer, buffer.count - 1)
        let target = n > 0 ? String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
        var resolved = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let real = realpath(path, &resolved) != nil
            ? String(decoding: resolved.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
        return .symlink(path: path, target: target, resolved: real)
    }

    static func fileKind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: return "a directory"
        case S_IFIFO: return "a FIFO"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        case S_IFLNK: return "a symbolic link"
        default: return "not a regular file"
        }
    }
}

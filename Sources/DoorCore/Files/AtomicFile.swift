#if canImport(Glibc)
import Glibc
#endif

/// Replaces a whole small file crash-safely (the PIN table, labels, history): a temporary
/// file in the same directory, fsync, rename over the old one, fsync the directory. A power
/// cut leaves the old contents or the new, never a mix.
public enum AtomicFile {
    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600) throws(TableFileError) {
        let dir = PinTableFile.directory(of: path)
        var template = Array("\(path).tmp.XXXXXX".utf8CString)
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

    /// The whole file, or nil when it does not exist; other failures throw. `limit` guards
    /// against reading a huge file that cannot be ours.
    public static func read(_ path: String, limit: Int = 1 << 20) throws(TableFileError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw .io(path: path, action: "open", errno: errno)
        }
        defer { close(fd) }
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
}

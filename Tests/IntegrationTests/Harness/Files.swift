import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A whole file as text ("" if it does not exist), for logs, CLI output and /proc.
func readText(_ path: String) -> String {
    readBytes(path).map { String(decoding: $0, as: UTF8.self) } ?? ""
}

/// A whole file as bytes (nil if it does not exist), for byte-exact table comparisons. Read to
/// its end, not to the size `stat` gives: /proc files say 0 and come a page at a time.
func readBytes(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { break }
        bytes += chunk[0..<n]
    }
    return bytes
}

/// Whether a path exists (any kind of file, a socket included).
func fileExists(_ path: String) -> Bool {
    var st = stat()
    return lstat(path, &st) == 0
}

/// A file's permission bits (st_mode & 0o7777), to check the table stays 0600.
func permissions(_ path: String) -> mode_t? {
    var st = stat()
    guard stat(path, &st) == 0 else { return nil }
    return st.st_mode & 0o7777
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A whole file as text ("" if it does not exist), for logs and CLI output.
func readText(_ path: String) -> String {
    FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } ?? ""
}

/// A whole file as bytes (nil if it does not exist), for byte-exact table comparisons.
func readBytes(_ path: String) -> [UInt8]? {
    FileManager.default.contents(atPath: path).map { [UInt8]($0) }
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

import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// The system under garaged: which OS release and architecture, and whether garaged's package
/// is made for it (the arm64 package needs Raspberry Pi OS trixie: see `SystemRelease`).
extension DoctorChecks {
    static func system(into report: inout DoctorReport) {
        let advice = SystemRelease(osRelease: osRelease(), machine: machine()).advice
        report.add(advice.warn ? .warn : .ok, "system", advice.text)
    }

    /// /etc/os-release, or /usr/lib/os-release where it is missing (os-release(5)); it is a
    /// symbolic link on Debian, which is followed: this only reads.
    private static func osRelease() -> String? {
        for path in ["/etc/os-release", "/usr/lib/os-release"] {
            guard let f = fopen(path, "r") else { continue }
            defer { fclose(f) }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while bytes.count < 65536 {
                let n = fread(&chunk, 1, chunk.count, f)
                guard n > 0 else { break }
                bytes += chunk[..<n]
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        return nil
    }

    private static func machine() -> String {
        var u = utsname()
        guard uname(&u) == 0 else { return "unknown" }
        return withUnsafeBytes(of: u.machine) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

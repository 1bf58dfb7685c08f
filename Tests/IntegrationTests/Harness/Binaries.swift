import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where `garaged` and `garage-pins` are: SwiftPM puts every product of a build, the test bundle
/// included, in one products folder, so the tests look next to themselves instead of assuming a
/// path (debug or release, any triple). GARAGED_BIN_DIR overrides, for running against an
/// installed build.
enum Binaries {
    /// A marker class whose bundle is the test bundle.
    private final class Marker {}

    static let searched: [String] = {
        var dirs: [String] = []
        if let env = ProcessInfo.processInfo.environment["GARAGED_BIN_DIR"], !env.isEmpty { dirs.append(env) }
        // On Linux the test bundle is an executable (…/debug/garagedPackageTests.xctest) and
        // Bundle(for:) is that file's folder; on Darwin it is the .xctest folder itself.
        let bundle = Bundle(for: Marker.self).bundleURL
        dirs.append(bundle.path)
        dirs.append(bundle.deletingLastPathComponent().path)
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            dirs.append(URL(fileURLWithPath: exe).deletingLastPathComponent().path)
        }
        var seen = Set<String>()
        return dirs.filter { seen.insert($0).inserted }
    }()

    /// The full path of a product, or an error that says where it looked and what to do.
    static func path(of name: String) throws -> String {
        for dir in searched {
            let candidate = (dir as NSString).appendingPathComponent(name)
            var st = stat()
            if stat(candidate, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        throw HarnessError("""
            the \(name) binary was not found next to the test bundle (looked in: \
            \(searched.joined(separator: ", "))). Build it first (`swift build`, or \
            `swift build --build-tests`; `swift test` without --skip-build does it), or set \
            GARAGED_BIN_DIR to the folder that holds it.
            """)
    }

    /// An executable from PATH (setpriv), or an error naming the package that provides it.
    static func system(_ name: String, package: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/sbin:/usr/bin:/sbin:/bin"
        for dir in path.split(separator: ":") + ["/usr/bin", "/bin"] {
            let candidate = "\(dir)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        throw HarnessError("\(name) is not installed (apt-get install \(package)); the test needs it")
    }
}

import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
#endif

/// A limit switch with no hardware, for tests and the demo: `sim:FILE` holds one character,
/// `1` when the switch is closed (active: the door is at its end) and `0` when open. Writing a
/// new value is an edge: the daemon watches FILE's folder with inotify (no polling), so both
/// `echo 1 > FILE` and writing a temporary file and renaming it over FILE are seen at once.
final class SimulatedSwitch: SwitchInput {
    let which: DoorSwitch
    let fd: Int32
    private let path: String
    private let name: String
    private let activeLow: Bool
    private let clock: any MonotonicClock
    private var last: Bool

    init(_ which: DoorSwitch, path: String, activeLow: Bool, clock: any MonotonicClock) throws(RelayError) {
        self.which = which
        self.path = path
        self.activeLow = activeLow
        self.clock = clock
        name = path.split(separator: "/").last.map(String.init) ?? path
        fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw RelayError("cannot watch the simulated \(which.rawValue) switch \(path): \(String(cString: strerror(errno)))") }
        let dir = AtomicFile.directory(of: path)
        guard inotify_add_watch(fd, dir, UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE)) >= 0 else {
            let e = errno
            Glibc.close(fd)
            throw RelayError("cannot watch the folder \(dir) of the simulated \(which.rawValue) switch: \(String(cString: strerror(e)))")
        }
        last = false
        last = try level()
    }

    var description: String { "sim:\(path) (simulated switch)" }

    /// The file's character; a missing or empty file reads as inactive, anything else but 0
    /// or 1 is an error that says what the file must hold.
    func level() throws(RelayError) -> Bool {
        let raw: Bool
        do {
            let bytes = try AtomicFile.read(path, limit: 64) ?? []
            switch bytes.first {
            case nil, UInt8(ascii: "0"): raw = false
            case UInt8(ascii: "1"): raw = true
            default:
                throw RelayError("the simulated \(which.rawValue) switch \(path) holds '\(String(decoding: bytes.prefix(8), as: UTF8.self))'; it must hold 1 (closed) or 0 (open)")
            }
        } catch let e as RelayError {
            throw e
        } catch {
            throw RelayError("cannot read the simulated \(which.rawValue) switch: \(error)")
        }
        return raw != activeLow
    }

    func edges() -> [(active: Bool, at: Instant)] {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var touched = false
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            var at = 0
            while at + 16 <= n {
                let length = Int(buffer[at + 12]) | Int(buffer[at + 13]) << 8 | Int(buffer[at + 14]) << 16 | Int(buffer[at + 15]) << 24
                let nameBytes = buffer[(at + 16)..<min(n, at + 16 + length)].prefix { $0 != 0 }
                if String(decoding: nameBytes, as: UTF8.self) == name { touched = true }
                at += 16 + length
            }
        }
        guard touched, let now = try? level(), now != last else { return [] }
        last = now
        return [(now, clock.now())]
    }

    func close() { Glibc.close(fd) }
}

import DoorCore
import DoorSystem
import Foundation
import Synchronization
@testable import GaragedKit
import XCTest

/// A fresh folder under /tmp for one test's files, removed with everything in it.
final class TempFolder {
    let path: String

    init() throws {
        var template = Array("/tmp/garaged-unit.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestError("mkdtemp failed: \(String(cString: strerror(errno)))") }
        path = String(cString: made)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }

    /// Writes `text` to `name` with `mode` (set after the write, so the umask has no say).
    @discardableResult
    func write(_ name: String, _ text: String, mode: mode_t = 0o600) throws -> String {
        let p = file(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: p))
        guard chmod(p, mode) == 0 else { throw TestError("chmod \(p) failed: \(String(cString: strerror(errno)))") }
        return p
    }

    /// A PIN table with the master PIN 12345, saved as `garage-pins init` would.
    @discardableResult
    func table(mode: mode_t = 0o600) throws -> String {
        let p = file("pins")
        try PinTableFile(path: p).save(try PinTable(master: PIN("12345")!))
        guard chmod(p, mode) == 0 else { throw TestError("chmod \(p) failed: \(String(cString: strerror(errno)))") }
        return p
    }
}

/// What a test could not set up, said plainly.
struct TestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A monotonic clock the test moves by hand: what the loop judges a request's age by, without
/// waiting for real time to pass.
final class TestClock: MonotonicClock {
    private let time = Mutex(Instant(nanoseconds: 100_000_000_000))

    func now() -> Instant { time.withLock { $0 } }

    func advance(_ d: Duration) { time.withLock { $0 = $0 + d } }
}

/// A drive that keeps the permits it was handed: what the loop pressed, and when.
final class RecordingDrive: DoorDrive {
    let door: Int
    private let received = Mutex<[PressPermit]>([])

    init(door: Int = 0) { self.door = door }

    var permits: [PressPermit] { received.withLock { $0 } }
    var name: String { "recording-drive" }
    func start() {}
    func stop() -> Bool { true }

    func carryOut(_ permit: PressPermit) -> Bool {
        received.withLock { $0.append(permit) }
        return true
    }
}

/// The log every test shares: its writer thread runs for the process's life, like garaged's.
let testLog = Logger()

/// The settings garaged would run with for these arguments (`garaged ARGS`), through the same
/// command-line parser and catalog; the machine's /etc/garaged.conf plays no part (only a
/// `--config` the test gives).
func settings(_ arguments: [String]) throws -> Settings {
    let options = try SettingsOptions.parse(arguments)
    return try options.settings(from: ConfigChoice(given: options.config, environment: ""))
}

/// What a settings refusal says; fails the test when the settings were accepted.
func refusal(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) -> String? {
    do {
        _ = try settings(arguments)
        XCTFail("accepted: \(arguments)", file: file, line: line)
        return nil
    } catch let e as ConfigError {
        return e.description
    } catch {
        XCTFail("not a ConfigError: \(error)", file: file, line: line)
        return nil
    }
}

/// Asserts the exact words of each refusal in turn: one mistake made in the file, by a flag
/// and by a named door's flag says the same thing, pointing at where it was made.
func assertRefusals(_ cases: [(arguments: [String], says: String)], file: StaticString = #filePath, line: UInt = #line) {
    for c in cases { XCTAssertEqual(refusal(c.arguments, file: file, line: line), c.says, "\(c.arguments)", file: file, line: line) }
}

/// A client of the local socket written with the plain calls (socket, connect, send, poll,
/// recv), not the daemon's own, so a test sees the bytes garaged puts on the wire.
final class PacketClient {
    let fd: Int32
    private var pending: [UInt8] = []

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in path.utf8.prefix(raw.count - 1).enumerated() { raw[i] = b }
        }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else {
            let why = String(cString: strerror(errno))
            close(fd)
            throw TestError("connect to \(path): \(why)")
        }
    }

    deinit { close(fd) }

    /// Sends one request line (its LF added) as one packet.
    func send(_ line: String) throws {
        let bytes = Array(line.utf8) + [0x0A]
        let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard n == bytes.count else { throw TestError("send '\(line)': \(n < 0 ? String(cString: strerror(errno)) : "\(n) of \(bytes.count) bytes")") }
    }

    /// The next reply record (without its LF), waiting at most `within`.
    func record(within: Duration = .seconds(5)) throws -> String {
        let deadline = ContinuousClock.now + within
        while true {
            if let lf = pending.firstIndex(of: 0x0A) {
                defer { pending.removeSubrange(...lf) }
                return String(decoding: pending[..<lf], as: UTF8.self)
            }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { throw TestError("no reply within \(within) (partial: \(pending))") }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ms = Int32(min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1, 60_000))
            guard poll(&p, 1, ms) >= 0 || errno == EINTR else { throw TestError("poll: \(String(cString: strerror(errno)))") }
            guard p.revents != 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if n < 0, errno == EAGAIN || errno == EINTR { continue }
            guard n > 0 else { throw TestError("the connection closed (partial: \(pending))") }
            pending += buffer[..<n]
        }
    }

    /// One request and its one-record answer.
    func ask(_ line: String) throws -> String {
        try send(line)
        return try record()
    }

    /// One request answered with a list: its records, up to the `OK <count>` that ends it.
    func list(_ line: String) throws -> [String] {
        try send(line)
        var records: [String] = []
        while true {
            let r = try record()
            if r.hasPrefix("OK ") || r.hasPrefix("ERR") { return records }
            records.append(r)
        }
    }
}

/// Waits until `condition` holds, checking every few milliseconds; fails the test naming
/// `what` if it does not within `within`.
func waitUntil(_ what: String, within: Duration = .seconds(5), file: StaticString = #filePath, line: UInt = #line,
               _ condition: () throws -> Bool) rethrows {
    let deadline = ContinuousClock.now + within
    while ContinuousClock.now < deadline {
        if try condition() { return }
        usleep(2000)
    }
    if try condition() { return }
    XCTFail("not within \(within): \(what)", file: file, line: line)
}

/// The simulated relay's trace: the levels it was set to, in order (each line `<ns> <0|1>`).
func traceLevels(_ path: String) -> [Int] {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
    return text.split(separator: "\n").compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }
}

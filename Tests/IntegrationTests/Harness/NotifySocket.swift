import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Stands in for systemd's notification socket (sd_notify(3)): a datagram socket a daemon
/// started with NOTIFY_SOCKET sends READY=1, STATUS=, STOPPING=1 and WATCHDOG=1 to. Every
/// message received is kept, in order, so a test can ask what came and when.
final class NotifySocket {
    let fd: Int32
    let path: String
    /// Each message with when it arrived (monotonic nanoseconds).
    private(set) var messages: [(at: UInt64, text: String)] = []

    init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket(): \(String(cString: strerror(errno)))") }
        var addr = try unixAddress(path)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else {
            let e = errno
            close(fd)
            throw HarnessError("bind \(path): \(String(cString: strerror(e)))", errno: e)
        }
    }

    deinit { close(fd) }

    /// Reads what has arrived, waiting up to `timeout` for the first datagram.
    private func receive(timeout: Duration) {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ms = Int32(clamping: timeout.totalNanoseconds / 1_000_000)
        guard poll(&pfd, 1, max(ms, 0)) > 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            guard n > 0 else { return }
            messages.append((monotonicNanoseconds(), String(decoding: buffer[..<n], as: UTF8.self)))
        }
    }

    /// Waits until a message satisfies `match`, at most `timeout`; returns it, or nil.
    func wait(for match: (String) -> Bool, after index: Int = 0, timeout: Duration = .seconds(10)) -> (index: Int, text: String)? {
        let deadline = monotonicNanoseconds() + timeout.totalNanoseconds
        var next = index
        while true {
            while next < messages.count {
                if match(messages[next].text) { return (next, messages[next].text) }
                next += 1
            }
            let now = monotonicNanoseconds()
            guard now < deadline else { return nil }
            receive(timeout: .nanoseconds(Int64(deadline - now)))
        }
    }

    /// The value of `KEY=` in a message ("STATUS" → "door CLOSED; lockout none"), or nil.
    static func value(_ key: String, in message: String) -> String? {
        message.split(separator: "\n").first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
    }
}

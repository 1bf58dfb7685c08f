import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A bare TCP listener on a free loopback port that records what a client sends: a fake
/// broker that speaks nothing, to see what garaged would say to one.
final class RawListener {
    let port: Int
    private let fd: Int32

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        guard bound, listen(fd, 4) == 0 else {
            close(fd)
            throw HarnessError("raw listener: \(String(cString: strerror(errno)))")
        }
        port = Int(UInt16(bigEndian: addr.sin_port))
    }

    deinit { close(fd) }

    /// True when a client has connected (and waits in the backlog), without waiting.
    var hasConnectionWaiting: Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&pfd, 1, 0) == 1
    }

    /// Accepts one connection and returns the bytes it sent within `timeout` (it stops at the
    /// first pause of 300 ms once something came), then closes it.
    func firstBytes(timeout: Duration) -> [UInt8] {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, Int32(timeout.totalNanoseconds / 1_000_000)) == 1 else { return [] }
        let conn = accept(fd, nil, nil)
        guard conn >= 0 else { return [] }
        defer { close(conn) }
        var got: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var c = pollfd(fd: conn, events: Int16(POLLIN), revents: 0)
        while poll(&c, 1, got.isEmpty ? Int32(timeout.totalNanoseconds / 1_000_000) : 300) == 1 {
            let n = buffer.withUnsafeMutableBytes { read(conn, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            got += buffer[0..<n]
        }
        return got
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The address of a Unix socket at `path`; throws when the path does not fit.
func unixAddress(_ path: String) throws -> sockaddr_un {
    var addr = sockaddr_un()
    addr.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else {
        throw HarnessError("socket path too long: \(path)")
    }
    withUnsafeMutableBytes(of: &addr.sun_path) { raw in
        raw.copyBytes(from: bytes)
        raw[bytes.count] = 0
    }
    return addr
}

/// Connects a non-blocking Unix socket of `type` (stream for the local socket, seqpacket for the
/// ATT seam); throws with errno's text (ENOENT, ECONNREFUSED, EAGAIN for a full backlog).
func connectUnixSocket(_ path: String, type: Int32) throws -> Int32 {
    let fd = socket(AF_UNIX, type | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
    guard fd >= 0 else { throw HarnessError("socket(): \(String(cString: strerror(errno)))") }
    var addr: sockaddr_un
    do { addr = try unixAddress(path) } catch { close(fd); throw error }
    let rc = withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    guard rc == 0 else {
        let e = errno
        close(fd)
        throw HarnessError("connect \(path): \(String(cString: strerror(e)))", errno: e)
    }
    return fd
}

/// A client of the daemon's Unix socket written from scratch (socket, connect, send, recv, poll),
/// so the tests see exactly the bytes on the wire, can send what no well-behaved client would
/// (a NUL, an overlong line, garbage), and never share code with the product's own client.
final class SocketClient {
    let fd: Int32
    let path: String
    private var pending: [UInt8] = []

    /// Connects once; throws with errno's text if nothing accepts (no file, a dead socket, a
    /// full backlog). Non-blocking, so every later wait has a deadline.
    init(path: String) throws {
        self.path = path
        fd = try connectUnixSocket(path, type: Int32(SOCK_SEQPACKET.rawValue))
    }

    deinit { close(fd) }

    /// Sends every byte before the deadline. While the socket is full it keeps reading, so a
    /// daemon answering a flood is never stuck writing replies nobody reads.
    func send(_ bytes: [UInt8], timeout: Duration = .seconds(5)) throws {
        let deadline = monotonicNanoseconds() + timeout.totalNanoseconds
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if n > 0 { sent += n; continue }
            if n < 0 && errno == EINTR { continue }
            guard n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) else {
                throw HarnessError("send to \(path) failed after \(sent) of \(bytes.count) bytes: \(String(cString: strerror(errno)))")
            }
            guard try waitFor(Int16(POLLOUT) | Int16(POLLIN), deadline: deadline) else {
                throw HarnessError("send to \(path) stalled: \(sent) of \(bytes.count) bytes sent before the deadline")
            }
            _ = try drainInput()
        }
    }

    /// Sends one request line (LF added), as one packet.
    func sendLine(_ bytes: [UInt8]) throws { try send(bytes + [0x0A]) }

    /// Sends many request lines, packed into as few packets as the daemon takes (4096 bytes).
    func sendLines(_ lines: [String], timeout: Duration = .seconds(20)) throws {
        var packet: [UInt8] = []
        for line in lines {
            let bytes = Array(line.utf8) + [0x0A]
            if packet.count + bytes.count > 4096 {
                try send(packet, timeout: timeout)
                packet = []
            }
            packet += bytes
        }
        if !packet.isEmpty { try send(packet, timeout: timeout) }
    }

    /// The next reply record (without its LF), waiting up to `timeout` for it.
    func readRecord(timeout: Duration = .seconds(5)) throws -> String {
        let deadline = monotonicNanoseconds() + timeout.totalNanoseconds
        while true {
            if let lf = pending.firstIndex(of: 0x0A) {
                let record = String(decoding: pending[..<lf], as: UTF8.self)
                pending.removeSubrange(...lf)
                return record
            }
            guard try waitFor(Int16(POLLIN), deadline: deadline) else {
                throw HarnessError("no reply record from \(path) within \(timeout) (partial: \(pending))")
            }
            let open = try drainInput()
            if !open && !pending.contains(0x0A) {
                throw HarnessError("\(path) closed the connection (partial reply: \(pending))")
            }
        }
    }

    /// Every complete record that has already arrived, without waiting.
    func availableRecords() throws -> [String] {
        _ = try drainInput()
        var out: [String] = []
        while let lf = pending.firstIndex(of: 0x0A) {
            out.append(String(decoding: pending[..<lf], as: UTF8.self))
            pending.removeSubrange(...lf)
        }
        return out
    }

    /// Sends one request and returns its answer: `<slot>=<pin>` entries, then the final record.
    func request(_ bytes: [UInt8], timeout: Duration = .seconds(5)) throws -> [String] {
        try sendLine(bytes)
        var records: [String] = []
        while true {
            let r = try readRecord(timeout: timeout)
            records.append(r)
            if !SocketClient.isEntry(r) && SocketClient.reason(r) == nil { return records }
        }
    }

    /// `request` for text.
    func request(_ text: String, timeout: Duration = .seconds(5)) throws -> [String] {
        try request(Array(text.utf8), timeout: timeout)
    }

    /// A request whose answer is one record (everything but P); throws if more come. The reason
    /// record the local socket may send before it is left out (`explained` keeps it).
    func ask(_ bytes: [UInt8]) throws -> String { try explained(bytes).record }

    func ask(_ text: String) throws -> String { try ask(Array(text.utf8)) }

    /// A request whose answer is one record, with the words of the `{"reason":"..."}` record
    /// sent before it (why it was refused or did nothing), nil when none came.
    func explained(_ bytes: [UInt8]) throws -> (reason: String?, record: String) {
        var records = try request(bytes)
        let reason = records.first.flatMap(SocketClient.reason)
        if reason != nil { records.removeFirst() }
        guard records.count == 1 else { throw HarnessError("expected one record (after any reason), got \(records)") }
        return (reason, records[0])
    }

    func explained(_ text: String) throws -> (reason: String?, record: String) { try explained(Array(text.utf8)) }

    /// The words of a `{"reason":"..."}` record, nil for any other record.
    static func reason(_ record: String) -> String? {
        guard record.hasPrefix(#"{"reason":"#),
              let object = try? JSONSerialization.jsonObject(with: Data(record.utf8)) as? [String: Any], object.count == 1 else { return nil }
        return object["reason"] as? String
    }

    /// Half-closes: the daemon sees end of stream after what was sent.
    func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }

    /// True for a `P` list entry (digits, `=`): not the end of an answer.
    static func isEntry(_ record: String) -> Bool {
        guard let eq = record.firstIndex(of: "=") else { return false }
        return !record[..<eq].isEmpty && record[..<eq].allSatisfy(\.isASCII) && record[..<eq].allSatisfy(\.isNumber)
    }

    /// Reads what is there; false at end of stream.
    private func drainInput() throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n > 0 { pending += buffer[0..<n]; continue }
            if n == 0 { return false }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return true }
            throw HarnessError("recv from \(path): \(String(cString: strerror(errno)))")
        }
    }

    private func waitFor(_ events: Int16, deadline: UInt64) throws -> Bool {
        while true {
            let now = monotonicNanoseconds()
            if now >= deadline { return false }
            var pfd = pollfd(fd: fd, events: events, revents: 0)
            let ms = Int32(min(1000, (deadline - now) / 1_000_000 + 1))
            let n = Glibc.poll(&pfd, 1, ms)
            if n > 0 { return true }
            if n < 0 && errno != EINTR { throw HarnessError("poll: \(String(cString: strerror(errno)))") }
        }
    }
}

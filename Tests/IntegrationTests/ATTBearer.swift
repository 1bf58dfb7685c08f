import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

// What the ATT integration tests share: a client of `garaged --att-socket` written from scratch
// (SOCK_SEQPACKET: one packet is one ATT PDU, as on the kernel's L2CAP ATT channel), PDUs written
// and compared as hex strings so every test reads byte for byte like the Core spec's tables, and a
// way to start the daemon with the seam. Every wait has a deadline; none hopes.

// MARK: - Hex

/// The bytes of a hex string like "0A 03 00" (spaces optional). A malformed literal is a bug in
/// the test, so it traps rather than sending something else.
func attBytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.filter { !$0.isWhitespace })
    precondition(digits.count % 2 == 0, "odd number of hex digits in '\(hex)'")
    return stride(from: 0, to: digits.count, by: 2).map { i in
        guard let b = UInt8(String(digits[i...i + 1]), radix: 16) else { preconditionFailure("bad hex '\(hex)'") }
        return b
    }
}

/// "0B 47 61": how the tests compare PDUs, so a mismatch shows both sides byte for byte.
func attHex(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02X", $0) }.joined(separator: " ")
}

/// Text as hex ("OK" -> "4F 4B"), for values inside an expected PDU.
func attHex(_ text: String) -> String { attHex(Array(text.utf8)) }

/// The UUIDs of the Nordic UART service as they travel in ATT PDUs: 128-bit, little-endian
/// (Core Vol 3 Part F 3.2.1), i.e. the string 6E40000x-B5A3-F393-E0A9-E50E24DCCA9E reversed.
enum NUSWire {
    static let service = "9E CA DC 24 0E E5 A9 E0 93 F3 A3 B5 01 00 40 6E"  // 6E400001
    static let command = "9E CA DC 24 0E E5 A9 E0 93 F3 A3 B5 02 00 40 6E"  // 6E400002, write
    static let reply = "9E CA DC 24 0E E5 A9 E0 93 F3 A3 B5 03 00 40 6E"    // 6E400003, notify
}

// MARK: - The bearer client

/// One ATT bearer on the daemon's `--att-socket`: a non-blocking SOCK_SEQPACKET connection.
final class ATTBearer {
    /// What `next` found: a PDU, or the daemon's end of the bearer (recv returned 0).
    enum Packet: Equatable, CustomStringConvertible {
        case pdu([UInt8])
        case closed
        var description: String {
            switch self {
            case .pdu(let b): return "PDU \(attHex(b))"
            case .closed: return "end of the bearer"
            }
        }
    }

    let fd: Int32
    let path: String

    /// Connects once; throws with errno (ENOENT, ECONNREFUSED, EAGAIN for a full backlog).
    init(path: String) throws {
        self.path = path
        fd = try connectUnixSocket(path, type: Int32(SOCK_SEQPACKET.rawValue))
    }

    deinit { close(fd) }

    /// Sends one PDU as one packet, waiting (with a deadline) while the socket is full. A bearer
    /// the daemon has closed throws with EPIPE or ECONNRESET in `errno`.
    func send(_ pdu: [UInt8], timeout: Duration = .seconds(5)) throws {
        let deadline = monotonicNanoseconds() + timeout.totalNanoseconds
        while true {
            let n = pdu.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n == pdu.count { return }
            if n >= 0 { throw HarnessError("send to \(path): \(n) of \(pdu.count) bytes of one packet") }
            let e = errno
            if e == EINTR { continue }
            guard e == EAGAIN || e == EWOULDBLOCK else {
                throw HarnessError("send to \(path): \(String(cString: strerror(e)))", errno: e)
            }
            guard try wait(Int16(POLLOUT), until: deadline) else {
                throw HarnessError("send to \(path) stalled: the socket stayed full for \(timeout)")
            }
        }
    }

    func send(_ hex: String) throws { try send(attBytes(hex)) }

    /// The next packet, or nil if none arrives within `timeout`.
    func next(within timeout: Duration) throws -> Packet? {
        let deadline = monotonicNanoseconds() + timeout.totalNanoseconds
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n > 0 { return .pdu(Array(buffer[0..<n])) }
            // The daemon never sends an empty PDU, so 0 is the end of the bearer.
            if n == 0 { return .closed }
            let e = errno
            if e == EINTR { continue }
            if e == ECONNRESET { return .closed }
            guard e == EAGAIN || e == EWOULDBLOCK else {
                throw HarnessError("recv from \(path): \(String(cString: strerror(e)))", errno: e)
            }
            guard try wait(Int16(POLLIN), until: deadline) else { return nil }
        }
    }

    /// The next PDU, as hex; throws if the bearer ends or nothing comes within `timeout`.
    func receive(timeout: Duration = .seconds(3)) throws -> String {
        switch try next(within: timeout) {
        case .pdu(let b)?: return attHex(b)
        case .closed?: throw HarnessError("the daemon closed the ATT bearer while a PDU was awaited")
        case nil: throw HarnessError("no PDU on the ATT bearer within \(timeout)")
        }
    }

    /// Sends a request and returns the next PDU (its response: ATT has one request outstanding
    /// per bearer, and the tests never leave a notification unread before a request).
    func exchange(_ hex: String) throws -> String {
        try send(hex)
        return try receive()
    }

    // MARK: The Nordic UART service, as the book's app uses it

    /// Exchange MTU Request with the client's Rx MTU; returns the response.
    func exchangeMTU(_ clientRxMTU: UInt16) throws -> String {
        try exchange("02 " + attHex([UInt8(clientRxMTU & 0xFF), UInt8(clientRxMTU >> 8)]))
    }

    /// Write Request 0x0001 to 6E400003's CCCD (0x000F): notifications on. Returns the response.
    func enableNotifications() throws -> String { try exchange("12 0F 00 01 00") }

    /// Write Command (0x52) of `text` to 6E400002's value (0x000C): no response, ever.
    func writeCommand(_ text: String) throws { try send([0x52, 0x0C, 0x00] + Array(text.utf8)) }

    /// Write Request (0x12) of `text` to 0x000C; returns the response.
    func writeRequest(_ text: String) throws -> String { try exchange("12 0C 00 " + attHex(text)) }

    /// The next PDU, which must be a Handle Value Notification on 0x000E; returns its value as
    /// text (one reply record), or throws saying what came instead.
    func notification(timeout: Duration = .seconds(3)) throws -> String {
        let pdu = attBytes(try receive(timeout: timeout))
        guard pdu.count >= 3, pdu[0] == 0x1B, pdu[1] == 0x0E, pdu[2] == 0x00 else {
            throw HarnessError("expected a Handle Value Notification on 0x000E (1B 0E 00 …), got \(attHex(pdu))")
        }
        return String(decoding: pdu[3...], as: UTF8.self)
    }

    /// Checks that nothing is waiting on the bearer without relying on a time window: a Read of
    /// the Device Name is sent and the very next packet must be its response. Packets on a
    /// SOCK_SEQPACKET bearer arrive in order, so anything the daemon had sent earlier (a stray
    /// notification) would come first.
    func assertNothingPending(_ why: String, file: StaticString = #filePath, line: UInt = #line) throws {
        try send("0A 03 00")
        let first = try receive()
        XCTAssertTrue(first.hasPrefix("0B "), "\(why): expected only the Read Response, got \(first) first",
                      file: file, line: line)
    }

    private func wait(_ events: Int16, until deadline: UInt64) throws -> Bool {
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

// MARK: - The daemon with the seam

extension GaragedTestCase {
    /// Where the tests put the daemon's ATT seam.
    var attSocketPath: String { dir + "/att" }

    /// A fresh table, then garaged with `--att-socket` (and `extra`), waiting until both the
    /// local socket and the ATT socket accept connections.
    func startATTDaemon(_ extra: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws -> GaragedDaemon {
        try initTable()
        let daemon = try startDaemon(["--att-socket", attSocketPath] + extra, file: file, line: line)
        // Both listeners exist before the loop starts, but the ATT one is created just after the
        // local one: wait for it too.
        _ = try connectBearer(daemon)
        return daemon
    }

    /// A new ATT bearer. Retries while the socket is not there yet or its backlog is full (a
    /// burst of connections faster than the daemon accepts); any other failure is thrown.
    func connectBearer(_ daemon: GaragedDaemon) throws -> ATTBearer {
        var bearer: ATTBearer?
        var lastError: Error?
        _ = eventually(within: .seconds(5)) {
            do {
                bearer = try ATTBearer(path: attSocketPath)
                return true
            } catch let e as HarnessError where [ENOENT, ECONNREFUSED, EAGAIN].contains(e.errno ?? 0) {
                lastError = e
                return daemon.process.poll() != nil
            } catch {
                lastError = error
                return true
            }
        }
        if let bearer { return bearer }
        throw lastError ?? HarnessError("connect \(attSocketPath): failed")
    }

    /// Waits until the trace shows one press more than `before` entries hold (its 1 and its 0),
    /// and returns that press.
    func waitForNextPress(_ daemon: GaragedDaemon, after before: Int = 1,
                      file: StaticString = #filePath, line: UInt = #line) throws -> Press? {
        let trace = try waitForTrace(daemon, count: before + 2, file: file, line: line)
        return presses(in: Array(trace.dropFirst(before))).first
    }
}

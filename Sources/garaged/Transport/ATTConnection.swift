import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// One ATT bearer: a SOCK_SEQPACKET socket where one packet is one PDU, from a phone over the
/// kernel's L2CAP ATT channel or from the `--att-socket` test seam, handled the same way. Each
/// has its own ATT server (MTU, notification subscription). Every request it carries counts as
/// remote for the throttle, and a peer that keeps sending garbage is dropped.
final class ATTConnection: Connection {
    /// Protocol errors (ATT Error Responses, ERR FORMAT, ERR CMD) a peer may cause before it is dropped.
    static let maxErrors = 16
    /// Packets waiting for a slow peer before it is dropped.
    static let maxQueuedPackets = 64
    /// PDUs taken per wake-up, so one busy bearer cannot hold up the other connections.
    static let maxPacketsPerTurn = 16

    let fd: Int32
    let source: RequestSource
    var lastHeard: Instant
    private var server: ATTServer
    private var outbox: [[UInt8]] = []
    private var errors = 0
    private(set) var closing = false
    private(set) var closeReason: String?
    private let onClose: (() -> Void)?

    init(fd: Int32, source: RequestSource, gatt: GarageGATT, at now: Instant, onClose: (() -> Void)? = nil) {
        self.fd = fd
        self.source = source
        self.server = ATTServer(gatt: gatt)
        lastHeard = now
        self.onClose = onClose
    }

    var wantsWrite: Bool { !outbox.isEmpty }

    func receive() -> [Incoming]? {
        var incoming: [Incoming] = []
        var buffer = [UInt8](repeating: 0, count: Int(ATTServer.maximumMTU) + 1)
        for _ in 0..<ATTConnection.maxPacketsPerTurn where !closing {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { break }
            if n <= 0 { return incoming.isEmpty ? nil : incoming }
            let output = server.handle(Array(buffer[0..<n]))
            if let response = output.response {
                if response.first == ATTOpcode.errorResponse.rawValue { countError() }
                send(response)
            }
            if let command = output.command { incoming.append(.request(command)) }
        }
        return incoming
    }

    /// Replies go out as notifications on 6E400003, one record each, when the peer subscribed;
    /// a peer that did not (the book's app when it only opens) simply gets none.
    func deliver(_ replies: [Reply]) {
        for reply in replies {
            if case .error(let code) = reply, code == .format || code == .command { countError() }
            guard let pdu = try? server.notification(reply.bytes) else { continue }
            send(pdu)
        }
    }

    func flush() {
        while let packet = outbox.first {
            let n = packet.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if n >= 0 {
                outbox.removeFirst()
            } else if errno == EINTR {
                continue
            } else {
                if errno != EAGAIN && errno != EWOULDBLOCK {
                    closing = true
                    closeReason = "send failed: \(String(cString: strerror(errno)))"
                }
                return
            }
        }
    }

    func close() {
        Glibc.close(fd)
        onClose?()
    }

    private func send(_ packet: [UInt8]) {
        outbox.append(packet)
        flush()
        if outbox.count > ATTConnection.maxQueuedPackets {
            closing = true
            closeReason = "it stopped reading"
        }
    }

    private func countError() {
        errors += 1
        if errors >= ATTConnection.maxErrors {
            closing = true
            closeReason = "it sent \(errors) malformed or refused requests"
        }
    }
}

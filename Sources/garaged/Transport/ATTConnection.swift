import CBluetooth
import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
#endif

/// One ATT bearer: a SOCK_SEQPACKET socket where one packet is one PDU, from a phone over the
/// kernel's L2CAP ATT channel or from the `--att-socket` test seam, handled the same way. Each
/// has its own ATT server (MTU, notification subscription). Every request it carries counts as
/// remote for the throttle, every packet is stamped by the kernel on arrival (a write that
/// waited out a stall is refused, not performed late), and a peer that keeps sending garbage
/// (malformed PDUs, malformed commands) faster than its `ErrorBudget` refills is dropped.
final class ATTConnection: Connection {
    /// Packets waiting for a slow peer before it is dropped.
    static let maxQueuedPackets = 64

    let fd: Int32
    /// Who sends: with `--ble-security paired`, the bonded phone by its label once its link is
    /// secure, so the history says which phone acted.
    private(set) var source: RequestSource
    /// The bonded phones, with `--ble-security paired` (nil: the book's open mode).
    private let bonds: (any PhoneBonds)?
    /// Who sends while the peer is not a bonded phone on a secure link: never an admin.
    private let unpairedSource: RequestSource
    var lastHeard: Instant
    private var server: ATTServer
    private var outbox: [[UInt8]] = []
    /// One read per PDU into this, reused; one byte over the MTU tells an oversized PDU.
    private var buffer = [UInt8](repeating: 0, count: Int(ATTServer.maximumMTU) + 1)
    /// The response to a write whose command is being judged, sent with its replies.
    private var pendingResponse: [UInt8]?
    private var garbage = ErrorBudget()
    private let clock = SystemMonotonicClock()
    private(set) var closing = false
    private(set) var closeReason: String?
    private let onClose: (() -> Void)?
    var arrivals: Arrivals

    init(fd: Int32, source: RequestSource, gatt: GarageGATT, bonds: (any PhoneBonds)?, at now: Instant, arrivals: Arrivals,
         onClose: (() -> Void)? = nil) {
        self.fd = fd
        self.arrivals = arrivals
        self.bonds = bonds
        // In paired mode nobody manages PINs over Bluetooth until known as an admin phone.
        unpairedSource = RequestSource(source.description, channel: source.channel, mayManage: gatt.security == .open)
        self.source = unpairedSource
        self.server = ATTServer(gatt: gatt)
        lastHeard = now
        self.onClose = onClose
    }

    var wantsWrite: Bool { !outbox.isEmpty }

    func receive(hungUp: Bool, polled: Int64) -> Received {
        switch PacketSocket.read(fd, into: &buffer) {
        case .empty:
            arrivals.sawEmpty(at: polled)
            return .empty
        case .closed:
            return .left
        case .packet(let pdu, let stamp, _):
            let receivedAt = arrivals.arrival(of: pdu.count, stamp: stamp)
            if server.needsLinkSecurity, let opcode = pdu.first.flatMap(ATTOpcode.init(rawValue:)),
               opcode == .writeRequest || opcode == .writeCommand { inspectLink() }
            let output = server.answer(pdu)
            if output.malformed { countGarbage("malformed PDUs") }
            guard let command = output.command else {
                if let response = output.response { send(response) }
                return .packet([])
            }
            // The write's response goes out with the command's replies (`answered`), after the
            // command was judged and its press started.
            pendingResponse = output.response
            return .packet([.request(DoorRequest(.line(command), from: source, arrived: nil), receivedAt: receivedAt)])
        }
    }

    /// Replies go out as notifications on 6E400003, one record each, when the peer subscribed;
    /// a peer that did not (the book's app when it only opens) simply gets none. The write's
    /// own response (a Write Request's) comes first.
    func deliver(_ replies: [Reply]) {
        if let response = pendingResponse {
            pendingResponse = nil
            send(response)
        }
        for reply in replies {
            if case .error(let code) = reply, code == .format || code == .command { countGarbage("malformed commands") }
            guard let pdu = try? server.notification(reply.bytes) else { continue }
            send(pdu)
        }
    }

    /// A phone that enabled notifications is told what its view of the snapshot says: each door
    /// whose state changed, and the doors' notices (a warning, a fault, "left open").
    func statusChanged(from old: StatusSnapshot?, to new: StatusSnapshot, at now: Instant) {
        let pushes = new.phonePushes(since: old, at: now)
        if !pushes.isEmpty { push(pushes) }
    }

    /// What every phone that enabled notifications is told unasked (a state change, a
    /// warning, a fault): notifications, which count toward nothing.
    private func push(_ replies: [Reply]) {
        for reply in replies {
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

    /// Asks the kernel how the link is secured and who the peer is now (its identity address
    /// once paired), before a write that may need a paired phone: a phone can pair, encrypt or
    /// be unpaired at any moment of a connection.
    private func inspectLink() {
        var level: Int32 = 0, keySize: Int32 = 0, kind: Int32 = 0
        var octets = [UInt8](repeating: 0, count: 6)
        var phone: BondedPhone?
        let secured = cbt_link_security(fd, &level, &keySize) == 0
        let linkLevel = secured ? LinkSecurity.Level(rawValue: UInt8(clamping: level)) ?? .open : .open
        if cbt_peer_address(fd, &octets, &kind) == 0, let k = LEAddress.Kind(rawValue: UInt8(truncatingIfNeeded: kind)),
           let peer = LEAddress(octets: octets, kind: k) {
            phone = linkLevel == .secureConnections ? bonds?.pairedPhone(at: peer) : bonds?.phone(at: peer)
        }
        server.link = LinkSecurity(level: linkLevel, keySize: UInt8(clamping: keySize), bonded: phone != nil)
        if let phone, server.link.refusalForPairedWrite == nil {
            source = RequestSource("bluetooth \(phone.label) \(phone.address.text)", channel: .remote, mayManage: phone.admin)
            bonds?.touch(phone.address, at: EventRecord.now())
        } else {
            source = unpairedSource
        }
    }

    private func countGarbage(_ what: String) {
        if garbage.charge(at: clock.now()) {
            closing = true
            closeReason = "too many \(what): \(garbage.capacity) with at most one forgiven every \(garbage.refill.secondsRoundedUp) s"
        }
    }
}

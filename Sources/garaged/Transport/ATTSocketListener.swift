import CLinux
import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// `--att-socket PATH`: a Unix SOCK_SEQPACKET socket where each connection is one ATT bearer
/// (one packet, one PDU, MTU 23 until exchanged), served exactly like a phone over Bluetooth:
/// same ATT server, same throttling as a remote channel. It is how the tests, and anyone
/// without a radio, speak GATT to the real daemon.
final class ATTSocketListener: SocketFileListener, @unchecked Sendable {
    let fd: Int32
    let path: String
    let connectTimes: ConnectTimes?
    private let gatt: GarageGATT
    private let bonds: (any PhoneBonds)?

    /// `bonds` with `--ble-security paired`: a Unix socket has no link security, so every
    /// write that needs a paired phone is refused here as it is to a phone that never paired.
    init(path: String, gatt: GarageGATT, bonds: (any PhoneBonds)?) throws(ConfigError) {
        fd = try LocalSocket.listen(path: path, type: Int32(SOCK_SEQPACKET.rawValue), flag: "--att-socket")
        self.path = path
        connectTimes = ConnectTimes(path: path)
        self.gatt = gatt
        self.bonds = bonds
    }

    var description: String { "ATT test socket \(path)" }

    func accept(at now: Instant, emptyMark: Int64) throws(AcceptFailure) -> Connection? {
        guard let client = try accepted(clinux_accept_nonblocking(fd)) else { return nil }
        let uid = LocalSocket.peerUID(client).map { String($0) } ?? "?"
        return ATTConnection(fd: client, source: RequestSource("att-socket uid=\(uid)", channel: .remote),
                             gatt: gatt, bonds: bonds, at: now, arrivals: Arrivals(stamping: client, acceptedAfter: emptyMark))
    }

    func close() {
        Glibc.close(fd)
        unlink(path)
    }
}

import CLinux
import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// `--att-socket PATH`: a Unix SOCK_SEQPACKET socket where each connection is one ATT bearer
/// (one packet, one PDU, MTU 23 until exchanged), served exactly like a phone over Bluetooth:
/// same ATT server, same throttling as a remote channel. It is how the tests, and anyone
/// without a radio, speak GATT to the real daemon.
final class ATTSocketListener: Listener {
    let fd: Int32
    let path: String
    private let gatt: GarageGATT

    init(path: String, gatt: GarageGATT) throws(ConfigError) {
        fd = try LocalSocket.listen(path: path, type: Int32(SOCK_SEQPACKET.rawValue), flag: "--att-socket")
        self.path = path
        self.gatt = gatt
    }

    var description: String { "ATT test socket \(path)" }

    func accept(at now: Instant) -> Connection? {
        let client = clinux_accept_nonblocking(fd)
        guard client >= 0 else { return nil }
        let uid = LocalSocket.peerUID(client).map { String($0) } ?? "?"
        return ATTConnection(fd: client, source: RequestSource("att-socket uid=\(uid)", throttled: true),
                             gatt: gatt, at: now)
    }

    func close() {
        Glibc.close(fd)
        unlink(path)
    }
}

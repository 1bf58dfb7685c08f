import CBluetooth
import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// Phones connecting over LE to the kernel's ATT fixed channel (CID 4) on one adapter. Each
/// connection is an ATT bearer like any other; the peripheral is told when one opens or
/// closes, because the controller stops connectable advertising when a phone connects.
final class L2CAPListener: Listener, @unchecked Sendable {
    let fd: Int32
    let adapter: String
    private let gatt: GarageGATT
    private let bonds: (any PhoneBonds)?
    private let onChange: @Sendable () -> Void

    init(adapter: cbt_adapter, gatt: GarageGATT, bonds: (any PhoneBonds)?, onChange: @escaping @Sendable () -> Void) throws(BluetoothError) {
        var err = [CChar](repeating: 0, count: 256)
        let address = cField(adapter.address)
        let fd = cbt_att_listen(address, &err, err.count)
        guard fd >= 0 else { throw BluetoothError(text(err)) }
        self.fd = fd
        self.adapter = "\(BluetoothPeripheral.name(of: adapter)) \(address)"
        self.gatt = gatt
        self.bonds = bonds
        self.onChange = onChange
    }

    var description: String { "Bluetooth ATT channel on \(adapter)" }

    func accept(at now: Instant, emptyMark: Int64) throws(AcceptFailure) -> Connection? {
        var peer = [CChar](repeating: 0, count: 32)
        guard let client = try accepted(cbt_att_accept(fd, &peer, peer.count)) else { return nil }
        onChange()
        return ATTConnection(fd: client, source: RequestSource("bluetooth \(text(peer))", channel: .remote),
                             gatt: gatt, bonds: bonds, at: now, arrivals: Arrivals(stamping: client, acceptedAfter: emptyMark), onClose: onChange)
    }

    func close() { Glibc.close(fd) }

    /// None: a phone writes its door command after discovery and the CCCD, answered only once accepted (docs/decisions.md).
    func need(at now: Int64, quiet: Bool) -> ListenerNeed { .nothing }
}

/// Why Bluetooth is not serving right now; the daemon keeps serving the local socket.
struct BluetoothError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

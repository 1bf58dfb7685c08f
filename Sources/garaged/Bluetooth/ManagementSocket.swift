import CBluetooth
import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// The kernel's Bluetooth management channel: commands out, events in, one packet each. The
/// pairing agent holds one for garaged's life; every trusted listener on the channel gets the
/// pairing events, so it needs no registration.
final class ManagementSocket {
    let fd: Int32
    private var buffer = [UInt8](repeating: 0, count: 1024)

    init() throws(BluetoothError) {
        let fd = cbt_mgmt_open()
        guard fd >= 0 else {
            throw BluetoothError("cannot open the Bluetooth management channel: \(String(cString: strerror(-fd)))"
                                 + (fd == -EPERM || fd == -EACCES ? " (garaged needs CAP_NET_ADMIN)" : ""))
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Sends one command to adapter `index`; false when the kernel would not take it.
    @discardableResult
    func send(_ command: ManagementCommand, index: UInt16) -> Bool {
        let packet = command.packet(index: index)
        return packet.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == packet.count
    }

    /// The events waiting now (never blocks).
    func events() -> [(index: UInt16, event: ManagementEvent)] {
        var out: [(UInt16, ManagementEvent)] = []
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return out }
            if let e = ManagementEvent.decode(Array(buffer[0..<n])) { out.append(e) }
        }
    }
}

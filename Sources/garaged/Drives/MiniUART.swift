import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// The Raspberry Pi's mini UART, `/dev/ttyS0` (where `/dev/serial0` leads while Bluetooth has
/// the PL011): it has no parity, so it cannot speak Security+ 1.0's 8E1. Refused at start and by
/// `doctor`, naming the PL011 to use instead.
enum MiniUART {
    /// Why `device` cannot carry Security+ 1.0 (it is the mini UART, or a link that leads there),
    /// and what to do, in the words of the setting given (`secplus1:` or `auto:`); nil when it can.
    static func refusal(_ device: String, for kind: OpenerKind = .secPlus1) -> String? {
        guard chain(device).contains(where: { $0.split(separator: "/").last == "ttyS0" }) else { return nil }
        let needs = kind == .auto ? "auto may find Security+ 1.0, which needs even parity" : "Security+ 1.0 needs even parity"
        return "\(device) is the Raspberry Pi's mini UART (ttyS0), which has no parity, and \(needs): "
            + "use the PL011, \(kind.id):/dev/ttyAMA0 (on a Pi 3, 4, 400 or Zero 2 W give it to the GPIO pins with dtoverlay=disable-bt "
            + "or dtoverlay=miniuart-bt in config.txt; on a Pi 5, dtparam=uart0=on), and reboot"
    }

    /// `path` and every path its symbolic links lead through, the last the real one: followed
    /// by hand, so a link to a device this machine does not have still says where it leads.
    static func chain(_ path: String) -> [String] {
        var paths = [path]
        var current = path
        for _ in 0..<40 {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(current, &buffer, buffer.count - 1)
            guard n > 0 else { break }
            let target = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            // A relative link is relative to the directory of the link itself.
            if let slash = current.lastIndex(of: "/"), !target.hasPrefix("/") {
                current = String(current[...slash]) + target
            } else {
                current = target
            }
            paths.append(current)
        }
        if let real = realpath(path, nil) {
            paths.append(String(cString: real))
            free(real)
        }
        return paths
    }
}

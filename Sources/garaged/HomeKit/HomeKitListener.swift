import CLinux
import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// HomeKit's TCP port (51826 unless set): on every address by default, IPv6 and IPv4 alike, or
/// on the one `--homekit-bind` names. Each connection becomes a `HomeKitConnection` the door loop
/// serves like any other.
final class HomeKitListener: Listener, @unchecked Sendable {
    let fd: Int32
    /// The port it listens on (the kernel's choice when 0 was asked for).
    let port: Int
    let address: String
    private let accessory: HomeKitAccessory
    private let clock: any MonotonicClock
    private var nextID = 0

    init(bind: String?, port: Int, accessory: HomeKitAccessory, clock: any MonotonicClock) throws(ConfigError) {
        self.accessory = accessory
        self.clock = clock
        let where_ = bind ?? "::"
        var v6 = sockaddr_in6()
        var v4 = sockaddr_in()
        let isV6: Bool
        if inet_pton(AF_INET6, where_, &v6.sin6_addr) == 1 {
            isV6 = true
        } else if inet_pton(AF_INET, where_, &v4.sin_addr) == 1 {
            isV6 = false
        } else {
            throw ConfigError("--homekit-bind \(where_): not an IPv4 or IPv6 address; give one of this machine's addresses, or leave it out to listen on every address")
        }
        let s = socket(isV6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard s >= 0 else { throw ConfigError("cannot create HomeKit's TCP socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1, zero: Int32 = 0
        setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if isV6 { setsockopt(s, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &zero, socklen_t(MemoryLayout<Int32>.size)) }
        let bound: Int32
        if isV6 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(port).bigEndian)
            bound = withUnsafePointer(to: &v6) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(s, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
        } else {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(port).bigEndian)
            bound = withUnsafePointer(to: &v4) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
        guard bound == 0, Glibc.listen(s, 16) == 0 else {
            let why = String(cString: strerror(errno))
            Glibc.close(s)
            throw ConfigError("cannot listen for HomeKit on \(where_) port \(port): \(why); choose another --homekit-port, or stop what uses it")
        }
        fd = s
        address = where_
        var actual = sockaddr_in6()
        var len = socklen_t(MemoryLayout<sockaddr_in6>.size)
        _ = withUnsafeMutablePointer(to: &actual) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(s, $0, &len) } }
        // sin_port and sin6_port sit at the same offset.
        self.port = Int(UInt16(bigEndian: actual.sin6_port))
    }

    var description: String { "homekit tcp \(address.contains(":") ? "[\(address)]" : address):\(port)" }

    func accept(at now: Instant, emptyMark: Int64) throws(AcceptFailure) -> Connection? {
        var peer = sockaddr_in6()
        var len = socklen_t(MemoryLayout<sockaddr_in6>.size)
        let client = withUnsafeMutablePointer(to: &peer) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { clinux_accept_peer(fd, $0, &len) }
        }
        guard let client = try accepted(client) else { return nil }
        var one: Int32 = 1
        setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(client, SOL_SOCKET, SO_KEEPALIVE, &one, socklen_t(MemoryLayout<Int32>.size))
        nextID += 1
        return HomeKitConnection(fd: client, id: nextID, peer: HomeKitListener.describe(peer), accessory: accessory, clock: clock,
                                 arrivals: Arrivals(acceptedAfter: emptyMark, unstamped: 0))
    }

    func close() { Glibc.close(fd) }

    /// Looks only while unpaired: then `POST /identify` may come first; once paired, pair-verify does (docs/decisions.md).
    func need(at now: Int64, quiet: Bool) -> ListenerNeed { accessory.state.isPaired ? .nothing : .looks }

    /// The peer's address and port, for the log.
    static func describe(_ a: sockaddr_in6) -> String {
        var copy = a
        var textBuffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        if Int32(a.sin6_family) == AF_INET {
            return withUnsafePointer(to: &copy) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { p in
                    var addr = p.pointee.sin_addr
                    inet_ntop(AF_INET, &addr, &textBuffer, socklen_t(textBuffer.count))
                    return text(textBuffer) + ":" + String(UInt16(bigEndian: p.pointee.sin_port))
                }
            }
        }
        inet_ntop(AF_INET6, &copy.sin6_addr, &textBuffer, socklen_t(textBuffer.count))
        var s = text(textBuffer)
        if s.hasPrefix("::ffff:") { s.removeFirst(7) } else { s = "[\(s)]" }
        return s + ":" + String(UInt16(bigEndian: a.sin6_port))
    }
}

import CLinux
import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// Reading whole packets (SOCK_SEQPACKET: the local socket, ATT bearers), or what a stream has
/// (HomeKit's TCP), with the kernel's receive stamp, so the loop can tell how long a request waited before it was judged, however
/// long the daemon itself was stalled.
enum PacketSocket {
    /// What one read found.
    enum Read {
        /// One packet (or, on a stream, what one read took); `stamp` is the kernel's receive
        /// stamp (ns since the epoch), nil when it gave none (`Arrivals` decides what counts).
        case packet(ArraySlice<UInt8>, stamp: Int64?, truncated: Bool)
        /// Nothing waiting. The caller marks the socket empty with a time it read before this
        /// read (the loop's wait: `Connection.receive`), so no clock is read per packet.
        case empty
        /// The peer left (or the socket failed).
        case closed
    }

    /// Turns the kernel's receive stamps on for a new connection; false when it failed, and
    /// requests are then counted from the socket's empty mark (`Arrivals`).
    static func enableStamps(_ fd: Int32) -> Bool { clinux_enable_rx_timestamps(fd) == 0 }

    /// Reads one packet into `buffer`, never blocking.
    static func read(_ fd: Int32, into buffer: inout [UInt8]) -> Read {
        while true {
            var stamp: Int64 = -1
            var truncated: Int32 = 0
            let n = buffer.withUnsafeMutableBytes { clinux_recv_stamped(fd, $0.baseAddress, $0.count, &stamp, &truncated) }
            if n > 0 { return .packet(buffer[0..<n], stamp: stamp >= 0 ? stamp : nil, truncated: truncated != 0) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return .empty }
            return .closed
        }
    }

    /// CLOCK_REALTIME now, in ns since the epoch: the clock the kernel stamps packets with.
    static func realtimeNow() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// How long a packet stamped `receivedAt` has waited (never negative: a clock stepped back
    /// makes a request look new, not old).
    static func age(of receivedAt: Int64) -> Duration {
        .nanoseconds(max(0, realtimeNow() - receivedAt))
    }
}

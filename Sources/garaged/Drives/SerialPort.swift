import CLinux
import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// A serial device (or a pty) opened for an opener's wire: raw, 8 data bits, one stop bit, the
/// line's speed and parity (Security+ 2.0: 9600, none; 1.0: 1200, even), exclusive, non-blocking. Owned by the
/// loop's thread once the start has handed it over (or by `doctor`).
final class SerialPort: @unchecked Sendable, CustomStringConvertible {
    let path: String
    private(set) var fd: Int32

    /// Opens and sets up the device; the error names it and says what to check.
    init(path: String, line: OpenerLine = OpenerLine(baud: 9600, evenParity: false, breakBefore: nil)) throws(RelayError) {
        self.path = path
        let rc = clinux_serial_open(path, Int32(line.baud), line.evenParity ? 1 : 0)
        guard rc >= 0 else {
            let why = String(cString: strerror(-rc))
            let hint = -rc == EBUSY ? "another program holds it (a getty on the serial console? ModemManager?)"
                : -rc == EACCES ? "garaged's user needs to be in the dialout group"
                : "check the device (ls -l \(path)) and that the serial port is enabled (enable_uart=1, console off)"
            throw RelayError("cannot open the opener's serial device \(path): \(why); \(hint)")
        }
        fd = rc
    }

    var description: String { path }

    /// Sets the line again without closing the device (`auto` trying another wire's speed): a
    /// pty's other end keeps it open. Nil when done, otherwise the error.
    func set(_ line: OpenerLine) -> String? {
        let rc = clinux_serial_set(fd, Int32(line.baud), line.evenParity ? 1 : 0)
        return rc == 0 ? nil : String(cString: strerror(-rc))
    }

    /// Whatever is waiting, up to 256 bytes; empty when nothing is; nil once the device is gone.
    func readAvailable() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if n > 0 { return Array(buffer[0..<n]) }
        if n < 0 && (errno == EAGAIN || errno == EINTR) { return [] }
        // End of file (a pty whose other end closed, a USB adapter unplugged) leaves errno as
        // it was: say so, not the last call's error.
        if n == 0 { errno = 0 }
        return nil
    }

    /// How many written bytes have not left yet (0 when it cannot say).
    func unsent() -> Int { max(0, Int(clinux_serial_unsent(fd))) }

    /// The start signal: the line held active about `length`.
    func sendBreak(_ length: Duration) -> Int32 { clinux_serial_break(fd, Int64(length.nanoseconds)) }

    /// Writes all the bytes, and with `drain` waits until they have left (tcdrain); false with
    /// errno set. The drive does not drain: the loop's thread writes, and 19 bytes at 9600 baud
    /// leave the UART's buffer in 20 ms whatever it does meanwhile.
    func writeAll(_ bytes: [UInt8], drain: Bool = true) -> Bool {
        var done = 0
        while done < bytes.count {
            let n = bytes[done...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n > 0 { done += n; continue }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && errno == EAGAIN {
                var fds = [pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)]
                _ = clinux_ppoll(&fds, 1, 100_000_000)
                continue
            }
            return false
        }
        if drain { _ = tcdrain(fd) }
        return true
    }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }
}

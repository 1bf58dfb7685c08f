import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
#endif

/// A relay line with no hardware, for demos, tests and benchmarks. At start and at every
/// transition it appends `<CLOCK_MONOTONIC ns> <0|1>` (the logical level, 1 = energised) to its
/// trace file, written straight to the kernel so a reader sees it at once. Like a real GPIO
/// line it has one holder: a second process on the same trace file is refused as busy.
final class SimulatedRelay: RelayLine, @unchecked Sendable {
    private let fd: Int32
    private let path: String
    private let clock: any MonotonicClock
    private var active = false  // touched only by the pulse thread after start-up

    init(path: String, clock: any MonotonicClock) throws(RelayError) {
        // Never through a link (a planted one could aim the appends at any file); a regular
        // file or a character device (/dev/null for a demo without a trace) only.
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o644)
        guard fd >= 0 else {
            let why = errno == ELOOP ? "it is a symbolic link; name the file itself" : String(cString: strerror(errno))
            throw RelayError("cannot open the simulated relay's trace file \(path): \(why)")
        }
        var st = stat()
        let kind = fstat(fd, &st) == 0 ? st.st_mode & S_IFMT : 0
        guard kind == S_IFREG || kind == S_IFCHR else {
            Glibc.close(fd)
            throw RelayError("the simulated relay's trace file \(path) is not a regular file; name a file (or a path that does not exist yet)")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            Glibc.close(fd)
            throw RelayError("simulated line \(path) is busy: another garaged holds it; stop that one or use another trace file")
        }
        self.fd = fd
        self.path = path
        self.clock = clock
        try record(false)
    }

    var description: String { "sim:\(path) (simulated line)" }

    func setActive(_ value: Bool) throws(RelayError) {
        try record(value)
    }

    func close() {
        if active { try? record(false) }
        Glibc.close(fd)
    }

    private func record(_ value: Bool) throws(RelayError) {
        // On the stack, digit by digit: this stands between the gate's permit and the line
        // changing, where a String would cost more than the write, unlike a real line's ioctl.
        let written = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: SimulatedRelay.maxLine) { buffer in
            let count = SimulatedRelay.traceLine(clock.now().nanoseconds, value, into: buffer)
            return (write(fd, buffer.baseAddress, count), count)
        }
        guard written.0 == written.1 else {
            throw RelayError("cannot write the simulated relay's trace file \(path): \(String(cString: strerror(errno)))")
        }
        active = value
    }

    /// The longest trace line: 20 digits, a space, the level, a newline.
    static let maxLine = 23

    /// Writes `<ns> <0|1>\n` at the start of `buffer` (at least `maxLine` bytes); returns its length.
    static func traceLine(_ nanoseconds: UInt64, _ value: Bool, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var digits = 0, rest = nanoseconds
        repeat { digits += 1; rest /= 10 } while rest > 0
        rest = nanoseconds
        for i in stride(from: digits - 1, through: 0, by: -1) {
            buffer[i] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
        buffer[digits] = UInt8(ascii: " ")
        buffer[digits + 1] = value ? UInt8(ascii: "1") : UInt8(ascii: "0")
        buffer[digits + 2] = UInt8(ascii: "\n")
        return digits + 3
    }
}

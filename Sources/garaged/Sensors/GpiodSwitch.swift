import CGpio
import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// A limit switch on a real input line through libgpiod (v1 or v2): the kernel reports each
/// edge with its own timestamp, so nothing is polled and a busy loop does not blur the timing.
final class GpiodSwitch: SwitchInput {
    let which: DoorSwitch
    let description: String
    let fd: Int32
    private let handle: OpaquePointer

    init(_ which: DoorSwitch, chip: String, line: String, activeLow: Bool) throws(RelayError) {
        var err = [CChar](repeating: 0, count: 512)
        guard let h = cgpio_input_open(chip, line, activeLow ? 1 : 0, "garaged-\(which.rawValue)", &err, err.count) else {
            let message = String(decoding: err.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw RelayError(message.isEmpty ? "cannot claim GPIO line \(chip):\(line) for the \(which.rawValue) switch" : message)
        }
        handle = h
        self.which = which
        fd = cgpio_input_fd(h)
        description = "\(chip):\(line)\(activeLow ? " active-low" : "") (libgpiod \(String(cString: cgpio_api_version())))"
    }

    func level() throws(RelayError) -> Bool {
        let v = cgpio_input_value(handle)
        guard v >= 0 else { throw RelayError("cannot read the \(which.rawValue) switch \(description): \(String(cString: strerror(-v)))") }
        return v == 1
    }

    func edges() -> [(active: Bool, at: Instant)] {
        var buffer = [cgpio_edge](repeating: cgpio_edge(), count: 16)
        var out: [(active: Bool, at: Instant)] = []
        while true {
            let n = cgpio_input_read_edges(handle, &buffer, Int32(buffer.count))
            guard n > 0 else { break }
            out += buffer[0..<Int(n)].map { ($0.active != 0, Instant(nanoseconds: $0.timestamp_ns)) }
            if n < buffer.count { break }
        }
        return out
    }

    func close() { cgpio_input_close(handle) }
}

import CGpio
import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// A real relay line through libgpiod (v1 or v2, whichever CGpio was built against). The line
/// is requested as an output at its inactive level in the same request, so claiming it never
/// twitches the relay, and active-low boards are handled by the kernel's flag.
final class GpiodRelay: RelayLine, @unchecked Sendable {
    private let handle: OpaquePointer
    private let name: String

    init(chip: String, line: String, activeLow: Bool) throws(RelayError) {
        var err = [CChar](repeating: 0, count: 512)
        guard let h = cgpio_output_open(chip, line, activeLow ? 1 : 0, "garaged", &err, err.count) else {
            let message = String(decoding: err.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw RelayError(message.isEmpty ? "cannot claim GPIO line \(chip):\(line)" : message)
        }
        handle = h
        name = "\(chip):\(line)\(activeLow ? " active-low" : "") (libgpiod \(String(cString: cgpio_api_version())))"
    }

    var description: String { name }

    func setActive(_ active: Bool) throws(RelayError) {
        let rc = cgpio_output_set(handle, active ? 1 : 0)
        guard rc == 0 else {
            throw RelayError("cannot set GPIO line \(name) to \(active ? 1 : 0): \(String(cString: strerror(-rc)))")
        }
    }

    func close() { cgpio_output_close(handle) }
}

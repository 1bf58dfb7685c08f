import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
#endif

/// This machine as a Raspberry Pi: its model (from the device tree) and its config.txt, read
/// under a root (the tests' stand-in for /), so that garaged and `garaged doctor` can tell
/// which UART an opener's device is (`PiSerial` decides, purely).
enum RaspberryPi {
    /// Where the model's name is: the device tree's, so it says the board, not the OS. The
    /// second for the packaged unit, whose ProcSubset=pid hides /proc/device-tree.
    static let modelPaths = ["/proc/device-tree/model", "/sys/firmware/devicetree/base/model"]
    /// The config.txt the firmware reads: Raspberry Pi OS bookworm and later keep it in
    /// /boot/firmware, older releases in /boot (where bookworm leaves a note saying it moved).
    static let configPaths = ["/boot/firmware/config.txt", "/boot/config.txt"]

    /// The Pi under `root` (its model and the first config.txt there, with the files it
    /// includes from the same folder); nil when the machine is not a Raspberry Pi.
    static func serial(root: String = "") -> PiSerial? {
        guard let model = modelPaths.lazy.compactMap({ text(root + $0) }).first else { return nil }
        for path in configPaths {
            guard let config = text(root + path) else { continue }
            let folder = AtomicFile.directory(of: path)
            return PiSerial(model: model, configFile: path, config: config) { name in
                name.contains("/") ? nil : text(root + folder + "/" + name)
            }
        }
        return PiSerial(model: model, configFile: nil, config: nil)
    }

    /// The file's text; nil when it is missing, unreadable or not a small regular file.
    private static func text(_ path: String) -> String? {
        guard let bytes = (try? AtomicFile.read(path, limit: 256 << 10)) ?? nil else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The device's name in /dev after its links (`/dev/serial1` → `ttyAMA0`). A link that
    /// leads nowhere is followed as far as it goes, so a name is found even where the device
    /// is not there yet.
    static func deviceName(_ path: String) -> String {
        if let real = realpath(path, nil) {
            defer { free(real) }
            return lastComponent(String(cString: real))
        }
        var current = path
        for _ in 0..<8 {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(current, &buffer, buffer.count - 1)
            guard n > 0 else { break }
            let target = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = target.hasPrefix("/") ? target : AtomicFile.directory(of: current) + "/" + target
        }
        return lastComponent(current)
    }

    private static func lastComponent(_ path: String) -> String { path.split(separator: "/").last.map(String.init) ?? path }
}

extension Settings {
    /// Refuses an opener on the UART a Pi's Bluetooth controller holds (`PiSerial.refusal`): it
    /// never reaches the opener's wire, and garaged's own Bluetooth needs it. `pi` is nil off a
    /// Raspberry Pi, where nothing is refused.
    func checkOpenerUARTs(on pi: PiSerial?) throws(ConfigError) {
        guard let pi else { return }
        for door in doors {
            guard case .secPlus2(let device)? = door.opener else { continue }
            if let why = pi.refusal(device: device, resolved: RaspberryPi.deviceName(device), ble: values.ble) {
                throw ConfigError("\(door.values.origin(of: \.opener)): \(why)")
            }
        }
    }
}

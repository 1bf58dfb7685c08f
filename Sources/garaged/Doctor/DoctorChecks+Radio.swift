import CBluetooth
import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
#endif

/// Bluetooth (the adapter there and powered, bluetoothd out of the way, the capabilities to
/// advertise) and MQTT (the CA readable, the broker answering).
extension DoctorChecks {
    func bluetooth(into report: inout DoctorReport) {
        guard settings.ble else {
            report.add(.ok, "bluetooth", "off (--no-ble): phones cannot reach the garage, garage-pins and MQTT still can")
            return
        }
        var adapter = cbt_adapter()
        let rc = cbt_adapter_find(settings.bleAdapter ?? "", &adapter)
        if rc == -ENODEV {
            report.add(.fail, "bluetooth", "no adapter \(settings.bleAdapter ?? "at all") (see: btmgmt info); phones cannot reach the garage until there is one (garaged waits for it), or set --no-ble")
        } else if rc == -EAFNOSUPPORT {
            report.add(.fail, "bluetooth", "this kernel has no Bluetooth; set --no-ble (ble = off in the config), or use a kernel with Bluetooth")
        } else if rc != 0 {
            report.add(.fail, "bluetooth", "cannot query the adapters: \(DoctorChecks.errnoText(-rc))")
        } else {
            let name = BluetoothPeripheral.name(of: adapter)
            report.add(adapter.up != 0 ? .ok : .warn, "bluetooth", adapter.up != 0
                ? "\(name) \(cField(adapter.address)) is powered"
                : "\(name) is powered off; garaged powers it on when it first sees it (by hand: sudo btmgmt -i \(name) power on)")
        }
        // BlueZ's daemon holds every adapter: garaged would share the ATT channel with its own
        // GATT database (open mode) or not serve at all (paired mode).
        if let pid = BluetoothPeripheral.bluetoothdPID(proc: root + "/proc") {
            report.add(.fail, "bluetooth", "bluetoothd is running (pid \(pid)): "
                + (settings.bleSecurity == .paired ? "--ble-security paired does not serve beside it (it is the pairing agent and key store itself)" : BluetoothPeripheral.bluetoothdProblem)
                + "; \(BluetoothPeripheral.bluetoothdFix)")
        }
        if settings.bleSecurity == .paired {
            let bonds = BondsFile(tablePath: settings.pins)
            do throws(StoreError) {
                let phones = try bonds.load()
                report.add(.ok, "bluetooth", "paired mode: \(phones.phones.count) phone(s) paired in \(bonds.path)" + (phones.phones.isEmpty ? "; pair one with garage-pins pair --label NAME" : ""))
            } catch {
                report.add(.fail, "bluetooth", "paired mode cannot read its bonded phones: \(error.description); fix or remove that file")
            }
        }
        if geteuid() != 0 && !DoctorChecks.hasEffectiveCapabilities([12, 13]) {
            report.add(.warn, "bluetooth", "this user lacks CAP_NET_ADMIN and CAP_NET_RAW, which advertising needs; the packaged service grants them (AmbientCapabilities=), by hand run garaged as root")
        }
    }

    func mqtt(into report: inout DoctorReport) {
        guard let m = settings.mqtt else {
            report.add(.ok, "mqtt", "off (no --mqtt)")
            return
        }
        do { try m.checkCA() } catch { report.add(.fail, "mqtt", error.description) }
        if let problem = DoctorChecks.tcpProblem(host: m.host, port: m.port, timeout: 2000) {
            report.add(.warn, "mqtt", "\(m.url): \(problem); garaged keeps retrying, the door works meanwhile")
        } else {
            report.add(.ok, "mqtt", "\(m.url) accepts connections" + (m.commands ? "; commands on: keep the command topic to Home Assistant with the broker's ACL" : ""))
        }
    }

    /// Whether every capability (by number: CAP_NET_ADMIN is 12) is in this process's
    /// effective set, from /proc/self/status.
    static func hasEffectiveCapabilities(_ caps: [Int]) -> Bool {
        guard let f = fopen("/proc/self/status", "r") else { return false }
        defer { fclose(f) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), f) != nil {
            let s = text(line)
            guard s.hasPrefix("CapEff:") else { continue }
            let bits = UInt64(String(s.dropFirst(7).filter(\.isHexDigit)), radix: 16) ?? 0
            return caps.allSatisfy { bits & (1 << UInt64($0)) != 0 }
        }
        return false
    }

    /// Why a TCP connection to host:port fails within `timeout` ms, or nil when it succeeds.
    static func tcpProblem(host: String, port: Int, timeout: Int32) -> String? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else { return "cannot resolve \(host): \(String(cString: gai_strerror(rc)))" }
        defer { freeaddrinfo(list) }
        var problem = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let a = entry {
            defer { entry = a.pointee.ai_next }
            let fd = Glibc.socket(a.pointee.ai_family, a.pointee.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), a.pointee.ai_protocol)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            if Glibc.connect(fd, a.pointee.ai_addr, a.pointee.ai_addrlen) == 0 { return nil }
            guard errno == EINPROGRESS else { problem = errnoText(); continue }
            var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            guard poll(&pfd, 1, timeout) == 1 else { problem = "no answer within \(timeout) ms"; continue }
            var err: Int32 = 0
            var len = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len)
            if err == 0 { return nil }
            problem = errnoText(err)
        }
        return problem
    }
}

import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
#endif

/// The files garaged reads or appends to, checked before it claims any line (and by `doctor`,
/// with the same messages): each must be a regular file (a FIFO would block a thread forever,
/// `/dev/zero` would never end), the TLS CA must hold a certificate, and a secret must not be
/// readable by other users.
extension Settings {
    /// Every file that must be right for garaged to start; throws the first that is not.
    func checkFiles() throws(ConfigError) {
        if let m = mqtt { try m.checkCA() }
        for path in eventFiles {
            do { try AtomicFile.requireRegularOrMissing(path) } catch {
                throw ConfigError("--events: \(error.description)")
            }
        }
    }

    /// The history's files: the kept part and the attempts, each with its older half.
    var eventFiles: [String] {
        let attempts = EventHistoryFile.attemptsPath(forEvents: eventsPath)
        return [eventsPath, eventsPath + ".1", attempts, attempts + ".1"]
    }

    /// The files that hold secrets (PINs, the MQTT password, Bluetooth keys, HomeKit's setup
    /// code and accessory key), by setting.
    var secretFiles: [(what: String, path: String)] {
        var files = [("the PIN table", values.pins), ("the bonded phones' keys", BondsFile(tablePath: values.pins).path),
                     ("HomeKit's setup code and accessory key", HomeKitFile(tablePath: values.pins).path)]
        if let p = values.mqttPasswordFile { files.append(("--mqtt-password-file", p)) }
        return files
    }

    /// What is wrong with a secret file's mode, nil when only its owner can read it (or it
    /// does not exist).
    static func exposure(of path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        let mode = st.st_mode & 0o777
        guard mode & 0o077 != 0 else { return nil }
        return "\(path) has mode \(String(mode, radix: 8)): other users can read it; sudo chmod 600 \(path)"
    }
}

extension MQTTSettings {
    /// Where OpenSSL finds the system's CAs when no `--mqtt-ca` is given.
    static let systemCAFolder = "/etc/ssl/certs"
    /// A CA file larger than this is not a CA file.
    static let maxCABytes = 1 << 20

    /// An `mqtts://` broker needs a CA that can be read: a regular PEM file holding a
    /// certificate, or the system's folder. TLS is never given up for plain text, so a CA that
    /// cannot be used stops garaged at start, naming it.
    func checkCA() throws(ConfigError) {
        guard tls else { return }
        guard let path = caFile else {
            var st = stat()
            guard stat(MQTTSettings.systemCAFolder, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else {
                throw ConfigError("--mqtt \(url): TLS needs the system's CAs in \(MQTTSettings.systemCAFolder), which is missing; install ca-certificates or give --mqtt-ca FILE")
            }
            return
        }
        let hidden = path.hasPrefix("/home/") || path.hasPrefix("/root/") ? " (the packaged unit hides /home and /root: ProtectHome=yes; keep the CA under /etc/garaged)" : ""
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            throw ConfigError("--mqtt-ca \(path): cannot be read (\(String(cString: strerror(errno))))\(hidden); TLS needs it, and garaged never falls back to plain text")
        }
        defer { close(fd) }
        var st = stat()
        fstat(fd, &st)
        guard st.st_mode & S_IFMT == S_IFREG else {
            throw ConfigError("--mqtt-ca \(path): not a regular file; give the CA certificate file (PEM) that signed the broker's")
        }
        guard Int(st.st_size) <= MQTTSettings.maxCABytes else {
            throw ConfigError("--mqtt-ca \(path): \(st.st_size) bytes is too large for a CA certificate file; is it the right file?")
        }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
        let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0, String(decoding: bytes.prefix(n), as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
            throw ConfigError("--mqtt-ca \(path): holds no PEM certificate (-----BEGIN CERTIFICATE-----); give the CA that signed the broker's certificate")
        }
    }

    /// A topic prefix is one or more levels with no MQTT wildcard (`+`, `#`) and none empty:
    /// anything else would subscribe to other topics or never match at all.
    static func checkTopicPrefix(_ prefix: String, key: String) throws(ConfigError) {
        let levels = prefix.split(separator: "/", omittingEmptySubsequences: false)
        if prefix.contains("+") || prefix.contains("#") {
            throw ConfigError("--\(key) \(prefix): a topic prefix cannot hold the MQTT wildcards + or #; give plain levels, e.g. garaged or home/garage")
        }
        if levels.contains(where: \.isEmpty) {
            throw ConfigError("--\(key) \(prefix): a topic prefix cannot have an empty level (a leading, trailing or double /); give e.g. garaged or home/garage")
        }
        if prefix.utf8.contains(0) { throw ConfigError("--\(key): a topic cannot contain a NUL byte") }
    }
}

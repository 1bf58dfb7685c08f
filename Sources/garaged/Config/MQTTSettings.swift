import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
#endif

/// Where the MQTT broker is and how garaged logs in, checked at start: the URL, the TLS CA,
/// the password read from its file (never from the command line, never logged).
struct MQTTSettings: Sendable {
    var host: String
    var port: Int
    var tls: Bool
    var caFile: String?
    var user: String?
    var password: String?
    var clientID: String
    var prefix: String
    var discoveryPrefix: String
    var commands: Bool

    /// The broker as the log and the status show it (never the password).
    var url: String { "\(tls ? "mqtts" : "mqtt")://\(host):\(port)" }

    /// Nil when `--mqtt` is not set (MQTT is off).
    init?(_ values: SettingValues) throws(ConfigError) {
        guard let url = values.mqtt else { return nil }
        let (scheme, rest): (String, Substring)
        if url.hasPrefix("mqtt://") { (scheme, rest) = ("mqtt", url.dropFirst(7)) }
        else if url.hasPrefix("mqtts://") { (scheme, rest) = ("mqtts", url.dropFirst(8)) }
        else { throw ConfigError("--mqtt \(url): give mqtt://HOST[:PORT] or mqtts://HOST[:PORT]") }
        tls = scheme == "mqtts"
        let hostPort = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        if let colon = hostPort.lastIndex(of: ":"), !hostPort.hasSuffix("]") {
            host = String(hostPort[..<colon])
            guard let p = Int(hostPort[hostPort.index(after: colon)...]), (1...65535).contains(p) else {
                throw ConfigError("--mqtt \(url): the port must be a number from 1 to 65535")
            }
            port = p
        } else {
            host = hostPort
            port = tls ? 8883 : 1883
        }
        host = host.trimmingBrackets
        guard !host.isEmpty else { throw ConfigError("--mqtt \(url): no host; give mqtt://HOST[:PORT]") }
        caFile = values.mqttCA
        if caFile != nil && !tls { throw ConfigError("--mqtt-ca needs an mqtts:// broker (TLS)") }
        user = values.mqttUser
        if let path = values.mqttPasswordFile {
            let text: String
            do {
                guard let bytes = try AtomicFile.read(path, limit: 4096) else {
                    throw ConfigError("--mqtt-password-file \(path) does not exist")
                }
                text = String(decoding: bytes, as: UTF8.self)
            } catch let e as ConfigError {
                throw e
            } catch {
                throw ConfigError("--mqtt-password-file: \(error)")
            }
            password = text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        }
        clientID = values.mqttClientID ?? "garaged-" + MQTTSettings.machineID()
        prefix = values.mqttPrefix
        discoveryPrefix = values.mqttDiscoveryPrefix
        try MQTTSettings.checkTopicPrefix(prefix, key: "mqtt-prefix")
        try MQTTSettings.checkTopicPrefix(discoveryPrefix, key: "mqtt-discovery-prefix")
        commands = values.mqttCommands
    }

    /// The first 8 characters of /etc/machine-id, or the host name.
    static func machineID() -> String {
        if let bytes = try? AtomicFile.read("/etc/machine-id", limit: 128), bytes.count >= 8 {
            return String(decoding: bytes.prefix(8), as: UTF8.self)
        }
        var name = [CChar](repeating: 0, count: 256)
        gethostname(&name, name.count)
        return text(name)
    }
}

private extension String {
    var trimmingBrackets: String { hasPrefix("[") && hasSuffix("]") ? String(dropFirst().dropLast()) : self }
}

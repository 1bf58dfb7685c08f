import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A real mosquitto broker the test starts on a free loopback port, and mosquitto's own
/// clients (mosquitto_sub, mosquitto_pub) as the independent other side: nothing of the
/// daemon's code is used to check the daemon.
final class MQTTBroker {
    let port: Int
    let dir: String
    private let test: GaragedTestCase
    private let extra: String
    private(set) var process: ChildProcess?

    /// Starts a broker; `extra` is added to its configuration (a password file, TLS).
    init(_ test: GaragedTestCase, extra: String = "allow_anonymous true\n") throws {
        self.test = test
        self.extra = extra
        dir = test.dir
        var lastError: Error = HarnessError("no free port")
        for _ in 0..<20 {
            let candidate = Int.random(in: 20_000...40_000)
            do {
                process = try MQTTBroker.start(test, port: candidate, extra: extra)
                port = candidate
                return
            } catch { lastError = error }
        }
        throw lastError
    }

    private static func start(_ test: GaragedTestCase, port: Int, extra: String) throws -> ChildProcess {
        let conf = "\(test.dir)/mosquitto-\(port).conf"
        // Run as root, mosquitto drops to its own user, which cannot read the test's 0700 folder.
        let user = getuid() == 0 ? "user root\n" : ""
        try test.write(Array("listener \(port) 127.0.0.1\n\(extra)\(user)log_type all\npersistence false\n".utf8), to: conf)
        // Debian puts the broker in /usr/sbin, which a user's PATH may lack.
        let broker = access("/usr/sbin/mosquitto", X_OK) == 0 ? "/usr/sbin/mosquitto" : try Binaries.system("mosquitto", package: "mosquitto")
        let p = try test.spawn(broker, ["-c", conf], name: "mosquitto-\(port)")
        // Up when its port accepts a TCP connection; a port in use ends the broker instead.
        var exited = false
        let up = eventually(within: .seconds(5)) {
            if p.poll() != nil { exited = true; return true }
            return MQTTBroker.accepts(port)
        }
        guard up, !exited else { throw HarnessError("mosquitto did not start on port \(port): \(p.stderr)") }
        return p
    }

    static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    var url: String { "mqtt://127.0.0.1:\(port)" }

    /// Kills the broker (SIGKILL: it says goodbye to nobody).
    func kill() {
        process?.signal(SIGKILL)
        _ = process?.waitForExit(timeout: .seconds(5))
        process = nil
    }

    /// Starts it again on the same port.
    func restart() throws {
        var started: ChildProcess?
        waitUntil("mosquitto to start again on \(port)", timeout: .seconds(10)) {
            started = try? MQTTBroker.start(test, port: port, extra: extra)
            return started != nil
        }
        process = started
    }

    /// Every message on `topics` until `count` arrived or `seconds` passed, as (topic, payload,
    /// retained) — mosquitto_sub's own output.
    func receive(_ topics: [String], count: Int, seconds: Int = 10, options: [String] = []) throws -> [(topic: String, payload: String, retained: Bool)] {
        let sub = try Binaries.system("mosquitto_sub", package: "mosquitto-clients")
        let args = ["-h", "127.0.0.1", "-p", String(port), "-C", String(count), "-W", String(seconds), "-F", "%r\t%t\t%p"]
            + options + topics.flatMap { ["-t", $0] }
        let p = try test.spawn(sub, args, name: "sub-\(UUID().uuidString.prefix(8))")
        _ = p.waitForExit(timeout: .seconds(seconds + 5))
        return p.stdout.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3 else { return nil }
            return (String(parts[1]), String(parts[2]), parts[0] == "1")
        }
    }

    /// A subscriber that runs in the background, writing `retained<TAB>topic<TAB>payload` lines;
    /// returns once the broker has acknowledged its subscription (mosquitto_sub -d says
    /// "received SUBACK", line-buffered by stdbuf), so nothing published after this call can be
    /// missed.
    func follow(_ topics: [String], options: [String] = []) throws -> ChildProcess {
        let sub = try Binaries.system("mosquitto_sub", package: "mosquitto-clients")
        let stdbuf = try Binaries.system("stdbuf", package: "coreutils")
        let p = try test.spawn(stdbuf, ["-oL", sub, "-d", "-h", "127.0.0.1", "-p", String(port), "-F", "%r\t%t\t%p"] + options
                                   + topics.flatMap { ["-t", $0] },
                               name: "follow-\(UUID().uuidString.prefix(8))")
        waitUntil("mosquitto_sub to be subscribed", timeout: .seconds(10)) { p.stdout.contains("received SUBACK") }
        return p
    }

    /// What the broker holds retained on `topics` at this moment, topic → payload. The broker
    /// queues a subscription's retained messages as it answers the SUBSCRIBE; a message published
    /// on a mark topic of our own after the SUBACK therefore comes behind all of them, and
    /// mosquitto_sub (`--retained-only`) stops at it. A message garaged publishes meanwhile stops
    /// it early: `waitForRetained` polls, so that only delays the answer.
    func retained(_ topics: [String]) throws -> [String: String] {
        let mark = "garaged-test/mark/\(UUID().uuidString)"
        let p = try follow(topics + [mark], options: ["--retained-only"])
        try publish(mark, "end")
        _ = p.waitForExit(timeout: .seconds(10))
        return Dictionary(messages(p).filter(\.retained).map { ($0.topic, $0.payload) }, uniquingKeysWith: { _, b in b })
    }

    /// Waits until what the broker holds retained on `topics` satisfies `done`, and returns it.
    /// garaged logs `mqtt-connected` before it publishes, so a test waits for the values
    /// themselves, never for the log line.
    @discardableResult
    func waitForRetained(_ topics: [String], _ what: String, timeout: Duration = .seconds(15),
                         file: StaticString = #filePath, line: UInt = #line,
                         until done: ([String: String]) -> Bool) -> [String: String] {
        var last: [String: String] = [:]
        let held = eventually(within: timeout) {
            last = (try? retained(topics)) ?? [:]
            return done(last)
        }
        if !held { XCTFail("timed out waiting for the broker to hold \(what); it holds \(last)", file: file, line: line) }
        return last
    }

    /// Waits until the broker has acknowledged `client`'s subscription to `topic` (its own log
    /// says so): only then does a message published there reach the client. `times`: the
    /// how-manyth subscription of that client id, when an earlier process used the same id on
    /// this broker (its line is in the log too).
    func waitForSubscription(of client: String, to topic: String, times: Int = 1, timeout: Duration = .seconds(10)) {
        waitUntil("\(client) subscribed to \(topic) (\(times) times)", timeout: timeout) {
            let log = process?.stderr ?? ""
            return log.components(separatedBy: "\(client) 1 \(topic)").count - 1
                + log.components(separatedBy: "\(client) 0 \(topic)").count - 1 >= times
        }
    }

    func publish(_ topic: String, _ payload: String, retain: Bool = false, options: [String] = []) throws {
        let pub = try Binaries.system("mosquitto_pub", package: "mosquitto-clients")
        let p = try test.spawn(pub, ["-h", "127.0.0.1", "-p", String(port), "-t", topic, "-m", payload, "-q", "1"]
                               + (retain ? ["-r"] : []) + options, name: "pub-\(UUID().uuidString.prefix(8))")
        guard p.waitForExit(timeout: .seconds(10)) == .exited(0) else { throw HarnessError("mosquitto_pub failed: \(p.stderr)") }
    }
}

/// Lines of a background mosquitto_sub, parsed.
func messages(_ follower: ChildProcess) -> [(topic: String, payload: String, retained: Bool)] {
    follower.stdout.split(separator: "\n").compactMap { line in
        let parts = line.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
        return parts.count == 3 ? (String(parts[1]), String(parts[2]), parts[0] == "1") : nil
    }
}

/// Certificates made with openssl for a TLS broker on 127.0.0.1: a CA, the broker's certificate
/// and key signed by it, and another CA that signed nothing of the broker's.
struct TestCertificates {
    var ca: String
    var serverCert: String
    var serverKey: String
    var otherCA: String

    /// The broker configuration lines that serve TLS with these.
    var brokerTLS: String { "cafile \(ca)\ncertfile \(serverCert)\nkeyfile \(serverKey)\n" }
}

extension GaragedTestCase {
    func makeCertificates() throws -> TestCertificates {
        let openssl = try Binaries.system("openssl", package: "openssl")
        func run(_ args: [String]) throws {
            let p = try spawn(openssl, args, name: "openssl-\(UUID().uuidString.prefix(6))")
            guard p.waitForExit(timeout: .seconds(30)) == .exited(0) else { throw HarnessError("openssl \(args.first ?? ""): \(p.stderr)") }
        }
        let d = dir
        try run(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=garaged test CA",
                 "-keyout", "\(d)/ca.key", "-out", "\(d)/ca.pem"])
        try run(["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", "\(d)/server.key", "-out", "\(d)/server.csr"])
        try write(Array("subjectAltName=IP:127.0.0.1,DNS:localhost\n".utf8), to: "\(d)/san.ext")
        try run(["x509", "-req", "-in", "\(d)/server.csr", "-CA", "\(d)/ca.pem", "-CAkey", "\(d)/ca.key", "-CAcreateserial",
                 "-days", "2", "-extfile", "\(d)/san.ext", "-out", "\(d)/server.pem"])
        try run(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=another CA",
                 "-keyout", "\(d)/other.key", "-out", "\(d)/other.pem"])
        return TestCertificates(ca: "\(d)/ca.pem", serverCert: "\(d)/server.pem", serverKey: "\(d)/server.key", otherCA: "\(d)/other.pem")
    }
}

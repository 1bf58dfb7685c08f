import DoorSystem
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// HomeKit's discovery through a real avahi-daemon (issue 21): `_hap._tcp` as an iPhone browses
/// for it, with the record's port and TXT values; the warning while avahi is not there and the
/// record once it comes; published again after avahi-daemon restarts; a name another service has
/// replaced by avahi's next; `sf` following the pairings. Each test has a network and mount
/// namespace of its own (`unshare`), with its own system D-Bus, avahi-daemon and `/run`, so
/// nothing reaches the host's network or daemons; every process in it is entered with `nsenter`.
/// `scripts/test.sh` installs avahi-daemon, avahi-utils and dbus.
final class HomeKitDiscoveryTests: GaragedTestCase {
    static let name = "Test Garage"

    /// The namespaces' first process: the system D-Bus they share.
    private var bus: ChildProcess?
    private var avahi: ChildProcess?
    private var spawned = 0

    private func tool(_ name: String, _ package: String) throws -> String {
        for folder in ["/usr/sbin", "/usr/bin", "/sbin", "/bin"] where access("\(folder)/\(name)", X_OK) == 0 {
            return "\(folder)/\(name)"
        }
        throw XCTSkip("\(name) is not installed (\(package)): scripts/deps.sh avahi-daemon avahi-utils dbus, as scripts/test.sh does")
    }

    /// Runs `command` inside the test's namespaces.
    private func inside(_ command: [String], name: String) throws -> ChildProcess {
        guard let bus else { throw HarnessError("the namespaces are not made yet") }
        spawned += 1
        // --root, --wd: the holder's own root and folder (entering a mount namespace resets them to
        // the namespace's, outside the chroot scripts/debian-swift.sh runs the tests in).
        return try spawn(try tool("nsenter", "util-linux"), ["--target", String(bus.pid), "--net", "--mount", "--root", "--wd", "--"] + command,
                         name: "\(name)\(spawned)")
    }

    /// A new network and mount namespace: a private `/run` (tmpfs) whose `dbus` and
    /// `avahi-daemon` folders are the test's own, no static services from `/etc/avahi/services`,
    /// `lo` up and multicast (avahi needs one multicast interface), and the system D-Bus.
    private func makeNamespaces() throws {
        let unshare = try tool("unshare", "util-linux")
        let dbus = try tool("dbus-daemon", "dbus"), ip = try tool("ip", "iproute2")
        _ = try tool("avahi-daemon", "avahi-daemon")
        _ = try tool("avahi-browse", "avahi-utils")
        for folder in ["dbus", "avahi", "services"] { try FileManager.default.createDirectory(atPath: "\(dir)/\(folder)", withIntermediateDirectories: false) }
        try write(Array("""
            [server]
            use-ipv4=yes
            use-ipv6=no
            enable-dbus=yes
            [wide-area]
            enable-wide-area=no
            [publish]
            publish-hinfo=no
            publish-workstation=no

            """.utf8), to: "\(dir)/avahi.conf")
        let script = """
            set -e
            mount -t tmpfs -o mode=0755 garaged-test /run
            mkdir /run/dbus /run/avahi-daemon
            mount --bind \(dir)/dbus /run/dbus
            mount --bind \(dir)/avahi /run/avahi-daemon
            mount --bind \(dir)/services /etc/avahi/services
            \(ip) link set lo up
            \(ip) link set lo multicast on
            exec \(dbus) --system --nofork --nopidfile
            """
        let holder = try spawn(unshare, ["--net", "--mount", "--propagation", "private", "--", "/bin/sh", "-c", script], name: "namespaces")
        var ended: Termination?
        let ready = eventually(within: .seconds(5)) {
            ended = holder.poll()
            return ended != nil || fileExists("\(dir)/dbus/system_bus_socket")
        }
        if let ended {
            throw XCTSkip("cannot make a network and mount namespace with a D-Bus here (\(ended)): \(holder.stderr)")
        }
        guard ready else { throw HarnessError("the namespaces' system D-Bus did not start within 5 s: \(holder.stderr)") }
        bus = holder
    }

    /// Starts avahi-daemon in the namespaces (as root, no chroot: it is the test's own) and
    /// waits until it has made its socket.
    private func startAvahi() throws {
        let daemon = try inside([try tool("avahi-daemon", "avahi-daemon"), "-f", "\(dir)/avahi.conf", "--no-chroot", "--no-drop-root", "--no-rlimits"],
                                name: "avahi")
        var ended: Termination?
        let ready = eventually(within: .seconds(5)) {
            ended = daemon.poll()
            return ended != nil || fileExists("\(dir)/avahi/socket")
        }
        guard ended == nil, ready else { throw HarnessError("avahi-daemon did not start (\(ended.map(\.description) ?? "no socket within 5 s")): \(daemon.stderr)") }
        avahi = daemon
    }

    /// garaged with HomeKit on in the namespaces, once its socket answers.
    private func startGaraged() throws -> GaragedDaemon {
        if !fileExists(pinsPath) { try initTable() }
        let process = try inside([try Binaries.path(of: "garaged"), "--pins", pinsPath, "--socket", socketPath, "--relay", "sim:\(tracePath)",
                                  "--no-ble", "--auto-close-s", "0", "--homekit", "--homekit-port", "0", "--homekit-bind", "127.0.0.1",
                                  "--homekit-name", HomeKitDiscoveryTests.name], name: "garaged")
        let daemon = GaragedDaemon(process: process, pinsPath: pinsPath, socketPath: socketPath, tracePath: tracePath)
        try waitForSocket(daemon)
        return daemon
    }

    /// A service as `avahi-browse -r` resolved it.
    struct Resolved: Equatable {
        var port: String
        var txt: [String: String]
    }

    /// Every `_hap._tcp` service avahi resolves in the namespaces now, by name.
    private func browse() throws -> [String: Resolved] {
        let browser = try inside([try tool("avahi-browse", "avahi-utils"), "--resolve", "--parsable", "--terminate", "_hap._tcp"], name: "browse")
        guard browser.waitForExit(timeout: .seconds(10)) != nil else {
            browser.terminate(grace: .milliseconds(100))
            throw HarnessError("avahi-browse did not finish within 10 s")
        }
        var found: [String: Resolved] = [:]
        // =;lo;IPv4;Test\032Garage;_hap._tcp;local;host.local;127.0.0.1;PORT;"c#=1" "ff=0" ...
        // and -;lo;IPv4;Test\032Garage;_hap._tcp;local for one withdrawn while it browsed.
        for line in browser.stdout.split(separator: "\n") {
            let fields = line.split(separator: ";", maxSplits: 9, omittingEmptySubsequences: false).map(String.init)
            if fields.count >= 4, fields[0] == "-" { found[HomeKitDiscoveryTests.unescape(fields[3])] = nil }
            guard fields.count == 10, fields[0] == "=" else { continue }
            var txt: [String: String] = [:]
            for entry in fields[9].split(separator: "\" \"").map({ $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }) {
                let kv = entry.split(separator: "=", maxSplits: 1).map(String.init)
                if kv.count == 2 { txt[kv[0]] = kv[1] }
            }
            found[HomeKitDiscoveryTests.unescape(fields[3])] = Resolved(port: fields[8], txt: txt)
        }
        return found
    }

    /// avahi-browse writes a name's special characters as `\DDD` (decimal): "Test\032Garage".
    static func unescape(_ s: String) -> String {
        var out = [UInt8](), bytes = Array(s.utf8), i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "\\"), i + 3 < bytes.count, let v = UInt8(String(decoding: bytes[(i + 1)...(i + 3)], as: UTF8.self)) {
                out.append(v)
                i += 4
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Browses until `name` is found and satisfies `match` (at most `timeout`); the last record seen.
    @discardableResult
    private func waitForRecord(_ name: String, _ what: String, timeout: Duration = .seconds(10),
                               file: StaticString = #filePath, line: UInt = #line,
                               _ match: (Resolved) -> Bool = { _ in true }) throws -> Resolved? {
        var last: [String: Resolved] = [:]
        waitUntil("\(what) (last browse: \(last))", timeout: timeout, file: file, line: line) {
            last = (try? browse()) ?? [:]
            return last[name].map(match) ?? false
        }
        return last[name]
    }

    /// What the record must say of this accessory: its id, `sh` from its setup id (SHA-512 by
    /// OpenSSL, base64 by Foundation), category 4 (one door), HAP 1.1.
    private func assertRecord(_ r: Resolved?, of daemon: GaragedDaemon, sf: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let info = try homekitInfo(daemon)
        let id = try XCTUnwrap(info["id"] as? String), setupID = try XCTUnwrap(info["setup_id"] as? String)
        let sh = Data(LibCrypto().sha512(Array((setupID + id).utf8)).prefix(4)).base64EncodedString()
        let r = try XCTUnwrap(r, file: file, line: line)
        XCTAssertEqual(r.port, try homekitPort(daemon), "the record's port is HomeKit's", file: file, line: line)
        XCTAssertEqual(r.txt, ["c#": "1", "ff": "0", "id": id, "md": "garaged", "pv": "1.1", "s#": "1", "sf": sf, "ci": "4", "sh": sh],
                       file: file, line: line)
    }

    private func count(_ event: String, in log: String) -> Int {
        log.split(separator: "\n").filter { $0.contains(" \(event) ") || $0.hasSuffix(" \(event)") }.count
    }

    /// garaged starting before avahi-daemon warns once and keeps serving; the record appears
    /// when avahi comes, with the port and TXT values a controller checks, and comes back after
    /// avahi-daemon restarts (without a second warning: a restart is not an outage), and is
    /// withdrawn when garaged stops. The doctor finds avahi answering.
    func testPublishedWhenAvahiComesAndAgainAfterItRestarts() throws {
        try makeNamespaces()
        let daemon = try startGaraged()
        waitUntil("the warning that avahi is not there", timeout: .seconds(5)) { self.count("homekit-mdns-unavailable", in: daemon.log) == 1 }
        let warning = daemon.log.split(separator: "\n").first { $0.contains("homekit-mdns-unavailable") }.map(String.init) ?? ""
        XCTAssertTrue(warning.contains("WARN") && warning.contains("avahi-daemon is not running"), warning)
        XCTAssertTrue(warning.contains("HomeKit still serves on port \(try homekitPort(daemon))"), warning)
        XCTAssertTrue(warning.contains("systemctl enable --now avahi-daemon"), warning)
        XCTAssertNotNil(try homekitInfo(daemon)["id"], "HomeKit's side still answers")

        try startAvahi()
        try assertRecord(try waitForRecord(HomeKitDiscoveryTests.name, "the record once avahi-daemon runs"), of: daemon, sf: "1")
        waitUntil("the published line", timeout: .seconds(5)) { self.count("homekit-mdns", in: daemon.log) == 1 }

        let doctor = try inside([try Binaries.path(of: "garaged"), "doctor", "--pins", pinsPath, "--socket", socketPath,
                                 "--relay", "sim:\(tracePath)", "--no-ble", "--homekit"], name: "doctor")
        XCTAssertNotNil(doctor.waitForExit(timeout: .seconds(15)), "doctor finished")
        XCTAssertTrue(doctor.stdout.split(separator: "\n").contains { $0.hasPrefix("ok    homekit: avahi ") && $0.contains("answers") }, doctor.stdout)

        // A restart: the old daemon gone (its records with it), a new one with an empty cache.
        let old = try XCTUnwrap(avahi)
        old.signal(SIGTERM)
        XCTAssertNotNil(old.waitForExit(timeout: .seconds(5)), "avahi-daemon stopped")
        waitUntil("garaged to notice avahi-daemon went", timeout: .seconds(5)) { self.count("homekit-mdns-lost", in: daemon.log) == 1 }
        try startAvahi()
        try assertRecord(try waitForRecord(HomeKitDiscoveryTests.name, "the record again after avahi-daemon restarted"), of: daemon, sf: "1")
        waitUntil("the published line again", timeout: .seconds(5)) { self.count("homekit-mdns", in: daemon.log) == 2 }
        XCTAssertEqual(count("homekit-mdns-unavailable", in: daemon.log), 1, "a restart is not warned about: " + daemon.log)

        // Stopping garaged withdraws the record: iPhones do not keep offering a door that is gone.
        XCTAssertEqual(daemon.stop(), .exited(0))
        waitUntil("the record withdrawn", timeout: .seconds(10)) { (try? self.browse())?[HomeKitDiscoveryTests.name] == nil }
    }

    /// A name another service has already is replaced by avahi's next ("Test Garage #2"); pairing
    /// turns `sf` to 0 in the published record and removing the pairing turns it back to 1.
    func testATakenNameIsReplacedAndSfFollowsThePairing() throws {
        let python = try python()
        try makeNamespaces()
        try startAvahi()
        let other = try inside([try tool("avahi-publish", "avahi-utils"), "--service", HomeKitDiscoveryTests.name, "_hap._tcp", "9"], name: "publish")
        waitUntil("the other service established", timeout: .seconds(5)) { other.stderr.contains("Established") || other.stdout.contains("Established") }
        let daemon = try startGaraged()
        let renamed = HomeKitDiscoveryTests.name + " #2"
        try assertRecord(try waitForRecord(renamed, "garaged's record under the next name"), of: daemon, sf: "1")
        XCTAssertTrue(daemon.log.contains("homekit-mdns-renamed from=\"\(HomeKitDiscoveryTests.name)\" to=\"\(renamed)\""), daemon.log)

        let info = try homekitInfo(daemon)
        let port = try homekitPort(daemon)
        let pair = try inside([python, hapctl, "pair", "--host", "127.0.0.1", "--port", port, "--code", info["setup_code"] as? String ?? "",
                               "--id", info["id"] as? String ?? "", "--pairing", pairingFile], name: "pair")
        XCTAssertEqual(pair.waitForExit(timeout: .seconds(40)), .exited(0), pair.stdout + pair.stderr)
        try assertRecord(try waitForRecord(renamed, "sf=0 once paired") { $0.txt["sf"] == "0" }, of: daemon, sf: "0")

        let unpair = try inside([python, hapctl, "unpair", "--pairing", pairingFile, "--port", port], name: "unpair")
        XCTAssertEqual(unpair.waitForExit(timeout: .seconds(40)), .exited(0), unpair.stdout + unpair.stderr)
        try assertRecord(try waitForRecord(renamed, "sf=1 once the pairing is gone") { $0.txt["sf"] == "1" }, of: daemon, sf: "1")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }
}

import DoorSystem
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// HomeKit's discovery through a real avahi-daemon (issue 21): `_hap._tcp` as an iPhone browses
/// for it, with the record's port and TXT values; the warning while avahi is not there and the
/// record once it comes; published again after avahi-daemon restarts; a name another service has
/// replaced by avahi's next; `sf` following the pairings; with `--homekit-bind`, only on the
/// interface holding the address (a second interface, `hk1`, beside `lo`). Each test has a
/// network and mount namespace of its own (`unshare`), with its own system D-Bus, avahi-daemon
/// and `/run`, so nothing reaches the host's network or daemons; every process in it is entered
/// with `nsenter`.
/// `scripts/test.sh` installs avahi-daemon, avahi-utils and dbus.
final class HomeKitDiscoveryTests: GaragedTestCase {
    static let name = "Test Garage"
    /// The second interface `addInterface` makes, and its address.
    static let second = "hk1", secondAddress = "10.77.0.1"

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

    /// Runs `ip` in the namespaces to completion; it must succeed.
    private func ip(_ arguments: [String]) throws {
        let step = try inside([try tool("ip", "iproute2")] + arguments, name: "ip")
        let end = step.waitForExit(timeout: .seconds(5))
        guard end == .exited(0) else {
            throw HarnessError("ip \(arguments.joined(separator: " ")): \(end.map(\.description) ?? "did not finish within 5 s"): \(step.stderr)")
        }
    }

    /// A second multicast interface beside `lo`, `hk1` with 10.77.0.1/24, made before avahi-daemon
    /// starts so it is there from avahi's first look. A veth pair (its peer up, with no IPv4
    /// address, so avahi leaves it alone): kernels without the dummy module have veth.
    private func addInterface() throws {
        let name = HomeKitDiscoveryTests.second
        try ip(["link", "add", name, "type", "veth", "peer", "name", "\(name)p"])
        try ip(["addr", "add", "\(HomeKitDiscoveryTests.secondAddress)/24", "dev", name])
        try ip(["link", "set", "\(name)p", "up"])
        try ip(["link", "set", name, "multicast", "on", "up"])
    }

    /// garaged with HomeKit on in the namespaces, listening on `bind` (nil: every address), once
    /// its socket answers.
    private func startGaraged(bind: String? = "127.0.0.1") throws -> GaragedDaemon {
        if !fileExists(pinsPath) { try initTable() }
        let process = try inside([try Binaries.path(of: "garaged"), "--pins", pinsPath, "--socket", socketPath, "--relay", "sim:\(tracePath)",
                                  "--no-ble", "--auto-close-s", "0", "--homekit", "--homekit-port", "0"]
                                 + (bind.map { ["--homekit-bind", $0] } ?? [])
                                 + ["--homekit-name", HomeKitDiscoveryTests.name], name: "garaged")
        let daemon = GaragedDaemon(process: process, pinsPath: pinsPath, socketPath: socketPath, tracePath: tracePath)
        try waitForSocket(daemon)
        return daemon
    }

    /// A service as `avahi-browse -r` resolved it.
    struct Resolved: Equatable {
        var address: String
        var port: String
        var txt: [String: String]
    }

    /// Every `_hap._tcp` service avahi resolves in the namespaces now, by name (as resolved on
    /// the first interface by name: every test but the interface ones has only `lo`).
    private func browse() throws -> [String: Resolved] {
        try browseByInterface().compactMapValues { $0.min { $0.key < $1.key }?.value }
    }

    /// Every `_hap._tcp` service avahi resolves in the namespaces now, by name and then by the
    /// interface it was resolved on (what a controller on that interface finds).
    private func browseByInterface() throws -> [String: [String: Resolved]] {
        let browser = try inside([try tool("avahi-browse", "avahi-utils"), "--resolve", "--parsable", "--terminate", "_hap._tcp"], name: "browse")
        guard browser.waitForExit(timeout: .seconds(10)) != nil else {
            browser.terminate(grace: .milliseconds(100))
            throw HarnessError("avahi-browse did not finish within 10 s")
        }
        var found: [String: [String: Resolved]] = [:]
        // =;lo;IPv4;Test\032Garage;_hap._tcp;local;host.local;127.0.0.1;PORT;"c#=1" "ff=0" ...
        // and -;lo;IPv4;Test\032Garage;_hap._tcp;local for one withdrawn while it browsed.
        for line in browser.stdout.split(separator: "\n") {
            let fields = line.split(separator: ";", maxSplits: 9, omittingEmptySubsequences: false).map(String.init)
            if fields.count >= 4, fields[0] == "-" {
                let name = HomeKitDiscoveryTests.unescape(fields[3])
                found[name]?[fields[1]] = nil
                if found[name]?.isEmpty == true { found[name] = nil }
            }
            guard fields.count == 10, fields[0] == "=" else { continue }
            var txt: [String: String] = [:]
            for entry in fields[9].split(separator: "\" \"").map({ $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }) {
                let kv = entry.split(separator: "=", maxSplits: 1).map(String.init)
                if kv.count == 2 { txt[kv[0]] = kv[1] }
            }
            found[HomeKitDiscoveryTests.unescape(fields[3]), default: [:]][fields[1]] = Resolved(address: fields[7], port: fields[8], txt: txt)
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

    /// Browses until `match` holds of what `browseByInterface` finds (at most `timeout`); the last browse.
    @discardableResult
    private func waitForInterfaces(_ what: String, timeout: Duration = .seconds(10), file: StaticString = #filePath, line: UInt = #line,
                                   _ match: ([String: [String: Resolved]]) -> Bool) -> [String: [String: Resolved]] {
        var last: [String: [String: Resolved]] = [:]
        waitUntil("\(what) (last browse: \(last))", timeout: timeout, file: file, line: line) {
            last = (try? browseByInterface()) ?? [:]
            return match(last)
        }
        return last
    }

    /// The interfaces `name` was resolved on in `browse`.
    private func interfaces(of name: String, in browse: [String: [String: Resolved]]) -> Set<String> {
        Set(browse[name].map { Array($0.keys) } ?? [])
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
        // Updated in place: the TXT update names the interface and family the record was published on.
        waitUntil("the record updated in place", timeout: .seconds(5)) { daemon.log.contains("homekit-mdns-updated name=\"\(renamed)\" sf=0") }

        let unpair = try inside([python, hapctl, "unpair", "--pairing", pairingFile, "--port", port], name: "unpair")
        XCTAssertEqual(unpair.waitForExit(timeout: .seconds(40)), .exited(0), unpair.stdout + unpair.stderr)
        try assertRecord(try waitForRecord(renamed, "sf=1 once the pairing is gone") { $0.txt["sf"] == "1" }, of: daemon, sf: "1")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// With `--homekit-bind` on one interface's address the record is published on that
    /// interface only: a controller on another (here `lo`) does not find an accessory it cannot
    /// reach. A service avahi-publish puts on every interface proves, in the same browse, that
    /// `lo` was browsed; avahi adds a service's records on all its interfaces at once.
    func testABoundAddressIsPublishedOnlyOnItsInterface() throws {
        try makeNamespaces()
        try addInterface()
        try startAvahi()
        let name = HomeKitDiscoveryTests.name, hk1 = HomeKitDiscoveryTests.second, everywhere = "Every Interface"
        _ = try inside([try tool("avahi-publish", "avahi-utils"), "--service", everywhere, "_hap._tcp", "9"], name: "publish")
        let daemon = try startGaraged(bind: HomeKitDiscoveryTests.secondAddress)
        let seen = waitForInterfaces("garaged's record on \(hk1), and the other service on lo and \(hk1)") {
            self.interfaces(of: everywhere, in: $0) == ["lo", hk1] && $0[name]?[hk1] != nil
        }
        XCTAssertEqual(interfaces(of: name, in: seen), [hk1], "only on the bound address's interface: \(seen)")
        XCTAssertEqual(seen[name]?[hk1]?.address, HomeKitDiscoveryTests.secondAddress)
        try assertRecord(seen[name]?[hk1], of: daemon, sf: "1")
        waitUntil("the published line naming the interface", timeout: .seconds(5)) {
            daemon.log.contains("homekit-mdns name=\"\(name)\"") && daemon.log.contains("on=\"\(hk1) (IPv4)\"")
        }
        // Once avahi has said it is established, still nowhere else.
        let after = waitForInterfaces("the other service on lo and \(hk1) again") { self.interfaces(of: everywhere, in: $0) == ["lo", hk1] }
        XCTAssertEqual(interfaces(of: name, in: after), [hk1], "only on the bound address's interface: \(after)")
        XCTAssertEqual(count("homekit-mdns-interface-unknown", in: daemon.log), 0, daemon.log)
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// Without `--homekit-bind` HomeKit listens on every address, and the record is on every
    /// interface, `lo` and `hk1` alike.
    func testWithoutABindAddressItIsPublishedOnEveryInterface() throws {
        try makeNamespaces()
        try addInterface()
        try startAvahi()
        let name = HomeKitDiscoveryTests.name, hk1 = HomeKitDiscoveryTests.second
        let daemon = try startGaraged(bind: nil)
        let seen = waitForInterfaces("garaged's record on lo and \(hk1)") { self.interfaces(of: name, in: $0) == ["lo", hk1] }
        try assertRecord(seen[name]?["lo"], of: daemon, sf: "1")
        try assertRecord(seen[name]?[hk1], of: daemon, sf: "1")
        XCTAssertEqual(seen[name]?[hk1]?.address, HomeKitDiscoveryTests.secondAddress)
        waitUntil("the published line", timeout: .seconds(5)) { daemon.log.contains("on=\"every interface\"") }
        XCTAssertEqual(count("homekit-mdns-interface-unknown", in: daemon.log), 0, daemon.log)
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// A bound address no interface holds by the time avahi-daemon comes (taken off `hk1` after
    /// garaged bound it; `hk1` keeps another) is said once, with what it means, and the record
    /// goes on every interface rather than nowhere.
    func testABoundAddressOnNoInterfaceIsWarnedAndPublishedEverywhere() throws {
        try makeNamespaces()
        try addInterface()
        let hk1 = HomeKitDiscoveryTests.second
        // Another subnet: deleting a subnet's first address would delete the others in it too.
        try ip(["addr", "add", "10.78.0.1/24", "dev", hk1])
        let daemon = try startGaraged(bind: HomeKitDiscoveryTests.secondAddress)
        try ip(["addr", "del", "\(HomeKitDiscoveryTests.secondAddress)/24", "dev", hk1])
        try startAvahi()
        let name = HomeKitDiscoveryTests.name
        let seen = waitForInterfaces("garaged's record on lo and \(hk1)") { self.interfaces(of: name, in: $0) == ["lo", hk1] }
        try assertRecord(seen[name]?["lo"], of: daemon, sf: "1")
        try assertRecord(seen[name]?[hk1], of: daemon, sf: "1")
        waitUntil("the warning", timeout: .seconds(5)) { self.count("homekit-mdns-interface-unknown", in: daemon.log) == 1 }
        let warning = daemon.log.split(separator: "\n").first { $0.contains("homekit-mdns-interface-unknown") }.map(String.init) ?? ""
        XCTAssertTrue(warning.contains("WARN"), warning)
        XCTAssertTrue(warning.contains("no interface has the address \(HomeKitDiscoveryTests.secondAddress)"), warning)
        XCTAssertTrue(warning.contains("published on every interface"), warning)
        waitUntil("the published line", timeout: .seconds(5)) { daemon.log.contains("on=\"every interface\"") }
        XCTAssertEqual(daemon.stop(), .exited(0))
    }
}

import Foundation
import XCTest

/// Driving garaged's HomeKit side as a controller would, with aiohomekit (Home Assistant's
/// HomeKit controller) through `Tests/homekit/hapctl.py`, and with raw sockets through
/// `Tests/homekit/hapraw.py`. `scripts/test.sh` installs aiohomekit and says where
/// (GARAGED_HAPCTL_PYTHON).
extension GaragedTestCase {
    var pairingFile: String { dir + "/controller.json" }

    func python() throws -> String {
        guard let p = ProcessInfo.processInfo.environment["GARAGED_HAPCTL_PYTHON"], FileManager.default.isExecutableFile(atPath: p) else {
            throw XCTSkip("GARAGED_HAPCTL_PYTHON is not set: run scripts/test.sh, which installs aiohomekit")
        }
        return p
    }

    var hapctl: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("homekit/hapctl.py").path
    }

    /// Runs hapctl to completion; its stdout (JSON) and how it ended.
    func hap(_ args: [String], timeout: Duration = .seconds(40)) throws -> CommandResult {
        let child = try spawn(try python(), [hapctl] + args, name: "hapctl-\(args[0])-\(UUID().uuidString.prefix(6))")
        guard let end = child.waitForExit(timeout: timeout) else {
            child.terminate(grace: .milliseconds(100))
            throw HarnessError("hapctl \(args.joined(separator: " ")) did not finish within \(timeout)")
        }
        return CommandResult(termination: end, stdout: child.stdout, stderr: child.stderr)
    }

    /// The daemon's HomeKit port (asked as 0: the kernel's choice), from its start line.
    func homekitPort(_ daemon: GaragedDaemon) throws -> String {
        var found: String?
        waitUntil("the homekit start line", timeout: .seconds(5)) {
            found = daemon.log.split(separator: "\n").first { $0.contains("INFO homekit ") }
                .flatMap { $0.split(separator: " ").first { $0.hasPrefix("port=") } }.map { String($0.dropFirst(5)) }
            return found != nil
        }
        return try XCTUnwrap(found)
    }

    /// `Lhomekit`'s record, as the owner's tools read it.
    func homekitInfo(_ daemon: GaragedDaemon) throws -> [String: Any] {
        let line = try daemon.connect().request("12345Lhomekit").first ?? ""
        return try XCTUnwrap(json(line) as? [String: Any], line)
    }

    func homekitPair(_ daemon: GaragedDaemon, code: String? = nil) throws -> CommandResult {
        let i = try homekitInfo(daemon)
        return try hap(["pair", "--host", "127.0.0.1", "--port", try homekitPort(daemon), "--code", code ?? (i["setup_code"] as? String ?? ""),
                        "--id", i["id"] as? String ?? "", "--pairing", pairingFile])
    }

    func homekitValues(_ result: CommandResult) -> [String: Int] {
        let doc = json(result.stdout) as? [String: Any]
        var out: [String: Int] = [:]
        for c in doc?["characteristics"] as? [[String: Any]] ?? [] {
            if let aid = c["aid"] as? Int, let iid = c["iid"] as? Int {
                out["\(aid).\(iid)"] = (c["value"] as? Int) ?? (c["value"] as? Bool).map { $0 ? 1 : 0 }
            }
        }
        return out
    }

    func homekitDaemon(_ extra: [String] = [], sensed: Bool = false) throws -> GaragedDaemon {
        _ = try python()  // skipped, not failed, without aiohomekit
        let flags = ["--homekit", "--homekit-port", "0", "--homekit-bind", "127.0.0.1"] + extra
        if sensed { return try startSensed(flags) }
        if !fileExists(pinsPath) { try initTable() }
        return try startDaemon(flags + ["--auto-close-s", "0"])
    }

    /// The raw-socket probe (standard library only).
    var hapraw: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("homekit/hapraw.py").path
    }
}

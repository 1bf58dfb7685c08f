import Foundation
import XCTest

/// One packet the fake opener received, as it logged it: one line of its JSON log.
struct OpenerPacket: Decodable {
    let t: Double
    let rolling: UInt32?
    let client: UInt32?
    let name: String?
    let nibble: Int?
    let byte1: Int?
    let accepted: Bool?
    let refused: String?
    /// When the read that brought the packet's first byte happened, and when its last byte went back.
    let start: Double?
    let echoed: Double?
    /// How many times the fake wrote between garaged's previous packet's echo and this one's start.
    let writes_between: Int?
    /// The longest pause in what the fake wrote between garaged's previous packet and this one.
    let longest_quiet: Double?
    let during_busy: Bool?
}

/// The fake Security+ 2.0 opener (Tests/secplus/fakeopener.py) on a pty and garaged driving it,
/// shared by every test of an opener's door (its wire, door, remotes, HomeKit and MQTT).
extension GaragedTestCase {
    /// The repository's root, where the test scripts are.
    var repoRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }

    /// The default opener's pty, its log of received packets and the FIFO that takes its commands.
    var openerLink: String { dir + "/opener-tty" }
    var openerLog: String { dir + "/opener.jsonl" }
    var openerControl: String { dir + "/opener-control" }

    /// Starts a fake opener and waits for its pty: `named` "opener" is the default one
    /// (`openerLink`, `openerLog`, `openerControl`); another name puts its pty at dir/NAME-tty,
    /// its log at dir/NAME.jsonl. `muted` is an opener unplugged (SIGUSR1 plugs it in).
    @discardableResult
    func startOpener(state: String = "closed", muted: Bool = false, _ extra: [String] = [], named: String = "opener") throws -> ChildProcess {
        let python = try Binaries.system("python3", package: "python3")
        let link = "\(dir)/\(named)-tty"
        let fake = try spawn(python, [repoRoot + "/Tests/secplus/fakeopener.py", "--log", "\(dir)/\(named).jsonl", "--link", link,
                                      "--travel-s", "1", "--state", state, "--control", "\(dir)/\(named)-control"]
                                 + (muted ? ["--mute"] : []) + extra,
                             name: "fakeopener-\(named)")
        _ = waitUntil("the fake opener's pty at \(link)", timeout: .seconds(10)) { FileManager.default.fileExists(atPath: link) }
        return fake
    }

    /// Starts the fake Security+ 1.0 opener (Tests/secplus/fakeopener1.py) at `link`, its door at
    /// `state`, a wall panel polling it with `panel`, and waits for its pty.
    @discardableResult
    func startOpener1(link: String, log: String, control: String, state: String = "closed", panel: Bool = false, travel: Double = 4) throws -> ChildProcess {
        let python = try Binaries.system("python3", package: "python3")
        let fake = try spawn(python, [repoRoot + "/Tests/secplus/fakeopener1.py", "--log", log, "--link", link, "--travel-s", String(travel),
                                      "--state", state, "--control", control] + (panel ? ["--panel"] : []), name: "fakeopener1")
        _ = waitUntil("the fake opener's pty at \(link)", timeout: .seconds(10)) { FileManager.default.fileExists(atPath: link) }
        return fake
    }

    /// garaged with the default opener and no relay, once its socket answers; `spec` the
    /// opener's protocol (`secplus2`, `auto`).
    func startGaragedWithOpener(_ extra: [String] = [], name: String = "garaged-opener", spec: String = "secplus2", link: String? = nil) throws -> GaragedDaemon {
        let process = try spawn(try Binaries.path(of: "garaged"),
                                ["--pins", pinsPath, "--socket", socketPath, "--no-ble", "--auto-close-s", "0",
                                 "--opener", "\(spec):\(link ?? openerLink)"] + extra, name: name)
        let daemon = GaragedDaemon(process: process, pinsPath: pinsPath, socketPath: socketPath, tracePath: tracePath)
        try waitForSocket(daemon)
        return daemon
    }

    /// The door's status record as the master PIN reads it ("" when the ask failed).
    func doorStatus(_ daemon: GaragedDaemon) -> String { (try? daemon.ask("12345Lstatus")) ?? "" }

    /// Asserts the door's status record comes to say `state` within `timeout` (`what` names the wait).
    func assertDoor(_ daemon: GaragedDaemon, becomes state: String, _ what: String, within timeout: Duration = .seconds(5),
                    file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(waitUntil(what, timeout: timeout) { doorStatus(daemon).hasPrefix(#"{"door":"\#(state)""#) }, doorStatus(daemon),
                      file: file, line: line)
    }

    /// Starts garaged with `flag value` beside the opener and asserts it refuses, naming both.
    func assertRefusedBesideTheOpener(_ flag: String, _ value: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let process = try spawn(try Binaries.path(of: "garaged"),
                                ["--pins", pinsPath, "--socket", socketPath, "--no-ble", flag, value, "--opener", "secplus2:\(openerLink)"],
                                name: "garaged-both")
        XCTAssertEqual(process.waitForExit(timeout: .seconds(5)), .exited(1), file: file, line: line)
        XCTAssertTrue(process.stderr.contains("\(flag) \(value) and --opener secplus2:\(openerLink)"), process.stderr, file: file, line: line)
    }

    /// Tells the default fake opener something happened at it (motion, obstruct, clear, button, garbage).
    func tell(_ line: String) throws {
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: openerControl))
        handle.write(Data((line + "\n").utf8))
        try handle.close()
    }

    /// Every packet a fake opener has received so far (the default one's unless `log` says).
    /// A line the fake is still writing is not JSON yet: it shows on a later read.
    func openerPackets(_ log: String? = nil) -> [OpenerPacket] {
        readText(log ?? openerLog).split(separator: "\n").compactMap { try? JSONDecoder().decode(OpenerPacket.self, from: Data($0.utf8)) }
    }
}

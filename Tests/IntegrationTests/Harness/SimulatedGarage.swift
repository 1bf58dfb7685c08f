import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The garage around a daemon under test: simulated limit switches (`sim:FILE`, watched with
/// inotify), a warning output and a light (simulated lines with traces), the status record,
/// and a stall of the whole process (SIGSTOP).
extension GaragedTestCase {
    var closedSwitch: String { dir + "/closed" }
    var openSwitch: String { dir + "/open" }
    var warnTrace: String { dir + "/warn" }
    var lightTrace: String { dir + "/light" }

    /// Sets a simulated switch the way the docs say: a temporary file renamed over it.
    func setSwitch(_ path: String, _ active: Bool) throws {
        try write(Array((active ? "1\n" : "0\n").utf8), to: path + ".new")
        guard rename(path + ".new", path) == 0 else { throw HarnessError("rename: \(String(cString: strerror(errno)))") }
    }

    /// The door, as the opener would move it: off one end, then at the other.
    func move(open: Bool) throws {
        try setSwitch(open ? closedSwitch : openSwitch, false)
        try setSwitch(open ? openSwitch : closedSwitch, true)
    }

    /// A daemon with both switches (set to `closed` and `open`), a warning output and a light,
    /// debounce 20 ms, travel 3 s, auto-close 2 s, warning 1 s; a flag in `extra` replaces its
    /// default (a flag given twice is refused), and `without` drops one.
    func startSensed(_ extra: [String] = [], closed: Bool = true, open: Bool = false, without: [String] = [],
                     initTable makeTable: Bool = true) throws -> GaragedDaemon {
        if makeTable { try initTable() }
        try setSwitch(closedSwitch, closed)
        try setSwitch(openSwitch, open)
        var args = ["--sensor-closed": "sim:" + closedSwitch, "--sensor-open": "sim:" + openSwitch,
                    "--warn": "sim:" + warnTrace, "--light": "sim:" + lightTrace, "--sensor-debounce-ms": "20",
                    "--travel-s": "3", "--auto-close-s": "2", "--warn-s": "1"]
        for flag in without { args[flag] = nil }
        var rest: [String] = []
        var i = 0
        while i < extra.count {
            if args[extra[i]] != nil, i + 1 < extra.count { args[extra[i]] = extra[i + 1]; i += 2 } else { rest.append(extra[i]); i += 1 }
        }
        return try startDaemon(args.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] } + rest)
    }

    /// The daemon's status record (`Lstatus`).
    func status(_ daemon: GaragedDaemon) throws -> [String: Any] {
        let line = try daemon.connect().request("12345Lstatus").first ?? ""
        return json(line) as? [String: Any] ?? [:]
    }

    func waitForDoor(_ daemon: GaragedDaemon, _ state: String, timeout: Duration = .seconds(5)) throws {
        _ = try waitForStatus(daemon, state, timeout: timeout) { $0 == "S \(state)" || $0.hasPrefix("S \(state) ") }
    }

    /// Stops every thread of the daemon (SIGSTOP), runs `body`, keeps it stopped `seconds` in
    /// all (the stall is the condition under test, not a guess at how long something takes),
    /// and lets it go on.
    func stalled(_ daemon: GaragedDaemon, for seconds: TimeInterval = 2.5, while body: () throws -> Void) throws {
        daemon.process.signal(SIGSTOP)
        // kill() returns before a thread running on another core has stopped: wait until every
        // thread of the daemon is in state T, so nothing sent below can be read before the stall.
        waitUntil("every thread of pid \(daemon.pid) stopped", timeout: .seconds(5)) {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.pid)/task")) ?? []
            return !tasks.isEmpty && tasks.allSatisfy { tid in
                let stat = readText("/proc/\(daemon.pid)/task/\(tid)/stat")
                return stat.split(separator: ")").last?.split(separator: " ").first == "T"
            }
        }
        let stopped = Date()
        try body()
        let left = seconds - Date().timeIntervalSince(stopped)
        if left > 0 { Thread.sleep(forTimeInterval: left) }
        daemon.process.signal(SIGCONT)
    }
}

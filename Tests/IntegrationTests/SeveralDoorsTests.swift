import Foundation
import XCTest

/// Several doors from one garaged (issue 20): each door presses on its own relay without
/// waiting for another, the book's requests act on the first door and `<PIN>@<door>:` on any,
/// and the status, the pushes and the history say which door they are about.
final class SeveralDoorsTests: GaragedTestCase {
    private var leftTrace: String { dir + "/left.trace" }
    private var gateTrace: String { dir + "/gate.trace" }

    /// garaged with two doors: `left` (300 ms presses) and `gate` (500 ms, named "Front gate"),
    /// travel 1 s, no auto-close; `extra` lines go into the gate's section.
    private func startTwoDoors(gate extra: String = "", flags: [String] = [], environment: [String: String] = [:]) throws -> GaragedDaemon {
        if !fileExists(pinsPath) { try initTable() }
        let config = "\(dir)/doors.conf"
        try write(Array("""
            [door left]
            relay = sim:\(leftTrace)
            travel-s = 1
            auto-close-s = 0
            [door gate]
            name = Front gate
            relay = sim:\(gateTrace)
            pulse-ms = 500
            travel-s = 1
            auto-close-s = 0
            \(extra)
            """.utf8), to: config)
        let process = try spawn(try Binaries.path(of: "garaged"),
                                ["--pins", pinsPath, "--socket", socketPath, "--no-ble", "--config", config] + flags,
                                environment: environment, name: "garaged-doors")
        let daemon = GaragedDaemon(process: process, pinsPath: pinsPath, socketPath: socketPath, tracePath: leftTrace)
        try waitForSocket(daemon)
        return daemon
    }

    /// Every record of an answer whose records are JSON objects, up to its final `OK...`.
    private func answer(_ client: SocketClient, _ request: String) throws -> [String] {
        try client.sendLine(Array(request.utf8))
        var records: [String] = []
        while records.last.map({ $0.hasPrefix("{") }) ?? true { records.append(try client.readRecord()) }
        return records
    }

    private func pressesIn(_ path: String, count: Int) throws -> [Press] {
        var found: [Press] = []
        waitUntil("\(count) press(es) in \(path)", timeout: .seconds(5)) {
            found = presses(in: (try? readTrace(path)) ?? [])
            return found.count >= count
        }
        return found
    }

    /// Two requests for two doors sent together: both presses start at once, each lasts its own
    /// door's pulse, and neither door waits for the other's relay.
    func testTwoDoorsPressAtOnceEachForItsOwnPulse() throws {
        let daemon = try startTwoDoors()
        let one = try daemon.connect(), two = try daemon.connect()
        try one.sendLine(Array("12345O=1".utf8))
        try two.sendLine(Array("12345@gate:O=1".utf8))
        XCTAssertEqual(try one.readRecord(), "OK")
        XCTAssertEqual(try two.readRecord(), "OK")
        let left = try XCTUnwrap(try pressesIn(leftTrace, count: 1).first)
        let gate = try XCTUnwrap(try pressesIn(gateTrace, count: 1).first)
        assertWidth(left, 300, "door left")
        assertWidth(gate, 500, "door gate")
        // Had the gate waited for the left door's relay, it would start 300 ms later.
        let apart = abs(Double(Int64(gate.start) - Int64(left.start))) / 1e6
        XCTAssertLessThan(apart, 100, "the two presses started \(apart) ms apart")
        print("two doors: the presses started \(String(format: "%.3f", apart)) ms apart")
        XCTAssertEqual(daemon.stop(), .exited(0))
        XCTAssertEqual(try readTrace(leftTrace).map(\.level), [0, 1, 0], "one press on the left door")
        XCTAssertEqual(try readTrace(gateTrace).map(\.level), [0, 1, 0], "one press on the gate")
    }

    /// The book's `O=1` and `S` are the first door's, byte for byte; `@<number>:` and
    /// `@<name>:` reach the others; a door nobody has is `ERR DOOR`, told only to a good PIN.
    func testTheBookRequestsActOnTheFirstDoorAndTheExtensionOnAny() throws {
        let daemon = try startTwoDoors()
        XCTAssertEqual(try daemon.ask("12345@2:S"), "S CLOSED")
        XCTAssertEqual(try daemon.ask("12345O=1"), "OK")
        XCTAssertEqual(try pressesIn(leftTrace, count: 1).count, 1)
        XCTAssertEqual(try daemon.ask("12345S"), "S OPENING")
        XCTAssertEqual(try daemon.ask("12345@1:S"), "S OPENING")
        XCTAssertEqual(try daemon.ask("12345@gate:S"), "S CLOSED", "the gate did not move")
        XCTAssertEqual(try daemon.ask("12345@2:O=1"), "OK")
        XCTAssertEqual(try pressesIn(gateTrace, count: 1).count, 1)
        XCTAssertEqual(try daemon.ask("12345@9:S"), "ERR DOOR")
        XCTAssertEqual(try daemon.ask("12345@shed:O=1"), "ERR DOOR")
        XCTAssertEqual(try daemon.ask("99999@9:S"), "ERR PIN", "which doors there are is no one's business without a PIN")
        XCTAssertEqual(try daemon.ask("12345@2:P"), "ERR FORMAT", "the table is not a door's")
        XCTAssertEqual(try daemon.ask("12345@Gate:S"), "ERR FORMAT")
        XCTAssertEqual(try daemon.ask("12345@2S"), "ERR FORMAT")
        XCTAssertEqual(daemon.stop(), .exited(0))
        XCTAssertEqual(presses(in: try readTrace(leftTrace)).count, 1)
        XCTAssertEqual(presses(in: try readTrace(gateTrace)).count, 1)
    }

    /// A door whose switches contradict each other is refused (`ERR FAULT`); the other door
    /// opens as if nothing were wrong.
    func testAFaultedDoorNeverHoldsBackAnother() throws {
        let closed = dir + "/closed", open = dir + "/open"
        try write(Array("1\n".utf8), to: closed)
        try write(Array("1\n".utf8), to: open)
        let daemon = try startTwoDoors(gate: "sensor-closed = sim:\(closed)\nsensor-open = sim:\(open)\nsensor-debounce-ms = 0")
        XCTAssertEqual(try daemon.ask("12345@gate:O=1"), "ERR FAULT")
        XCTAssertEqual(try daemon.ask("12345O=1"), "OK")
        XCTAssertEqual(try pressesIn(leftTrace, count: 1).count, 1)
        XCTAssertEqual(daemon.stop(), .exited(0))
        XCTAssertEqual(presses(in: try readTrace(gateTrace)).count, 0, "the faulted gate never pressed")
    }

    /// `Lstatus` answers a record per door, each with its id and name; phones are pushed
    /// `@2:S <STATE>`; the history names the door of every event about one.
    func testStatusPushesAndHistoryNameTheDoor() throws {
        let daemon = try startTwoDoors(flags: ["--att-socket", attSocketPath])
        let phone = try connectBearer(daemon)
        XCTAssertEqual(try phone.enableNotifications(), "13")
        let owner = try daemon.connect()
        XCTAssertEqual(try owner.ask("12345@gate:O=1"), "OK")
        XCTAssertEqual(try phone.notification(), "@2:S OPENING")
        let records = try answer(owner, "12345Lstatus")
        guard records.count == 3 else { return XCTFail("\(records)") }
        XCTAssertTrue(records[0].hasPrefix(#"{"id":"left","name":"left","number":1,"door":"CLOSED""#), records[0])
        XCTAssertTrue(records[1].hasPrefix(#"{"id":"gate","name":"Front gate","number":2,"door":"OPENING""#), records[1])
        XCTAssertEqual(records.last, "OK")
        var log: [String] = []
        waitUntil("the gate's open in the history", timeout: .seconds(5)) {
            log = (try? self.answer(owner, "12345Llog")) ?? []
            return log.contains { $0.contains(#""kind":"open""#) && $0.contains(#""door":"gate""#) }
        }
        XCTAssertFalse(log.contains { $0.contains(#""kind":"open""#) && !$0.contains(#""door":"#) }, "\(log)")
        // The log has its own thread: its lines arrive a moment after the answers do.
        waitUntil("the request and the press in the log", timeout: .seconds(5)) {
            daemon.log.contains("command=\"open @gate\"") && daemon.log.contains("press door=gate reason=open pulse_ms=500")
        }
        XCTAssertTrue(daemon.log.contains("command=\"open @gate\""), daemon.log)
        XCTAssertTrue(daemon.log.contains("press door=gate reason=open pulse_ms=500"), daemon.log)
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// `garage-pins open|hold --door` reach that door (no `--door`: the first); `status` shows
    /// every door under its heading; `log` and `who` name the door; a door that is not there
    /// is refused with the daemon's reason.
    func testGaragePinsReachesEachDoorAndNamesThem() throws {
        let daemon = try startTwoDoors()
        assertExit(try pins(daemon, ["open", "--door", "gate"]), 0)
        XCTAssertEqual(try pressesIn(gateTrace, count: 1).count, 1)
        XCTAssertEqual(presses(in: try readTrace(leftTrace)).count, 0, "--door gate is not the first door")
        assertExit(try pins(daemon, ["open"]), 0)
        XCTAssertEqual(try pressesIn(leftTrace, count: 1).count, 1)
        let hold = try pins(daemon, ["hold", "5", "--door", "2"])
        assertExit(hold, 0)
        XCTAssertEqual(hold.stdout, "held open for 5 min (door 2)\n")
        let missing = try pins(daemon, ["open", "--door", "shed"])
        assertExit(missing, 1)
        XCTAssertTrue(missing.stderr.contains("ERR DOOR") && missing.stderr.contains("garage-pins status lists the doors"), missing.stderr)
        let bad = try pins(daemon, ["open", "--door", "Gate"])
        XCTAssertNotEqual(bad.termination, .exited(0))
        XCTAssertTrue(bad.stderr.contains("--door Gate"), bad.stderr)
        let status = try pins(daemon, ["status"])
        assertExit(status, 0)
        XCTAssertTrue(status.stdout.contains("door 1: left\n") && status.stdout.contains("door 2: gate (Front gate)\n"), status.stdout)
        XCTAssertTrue(squeezed(status.stdout).contains("hold held open for"), status.stdout)
        let log = try pins(daemon, ["log"])
        XCTAssertTrue(squeezed(log.stdout).contains("TIME DOOR EVENT WHO SOURCE DETAIL"), log.stdout)
        XCTAssertTrue(squeezed(log.stdout).contains("gate open master local uid=0 pressed"), log.stdout)
        XCTAssertTrue(squeezed(log.stdout).contains("- open master local uid=0 ERR DOOR"), "a door nobody has is no door's: \(log.stdout)")
        let who = try pins(daemon, ["who"])
        XCTAssertTrue(squeezed(who.stdout).contains("master 0 2 gate,left"), who.stdout)
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// A guest's PIN limited to the left door (`garage-pins add --doors`): it opens that door and
    /// is refused the gate (`ERR DENIED`, nothing pressed, never a wrong PIN), across a restart;
    /// `list` shows it; a door garaged does not drive is refused before anything is stored; a
    /// file that cannot be read leaves guests no named door while the master opens every one.
    func testAPINLimitedToSomeDoors() throws {
        var daemon = try startTwoDoors()
        let added = try pins(daemon, ["add", "24680", "--label", "Guest", "--doors", "left"])
        assertExit(added, 0)
        XCTAssertEqual(added.stdout, "stored in slot 1 (Guest) for left\n")
        let unknown = try pins(daemon, ["add", "11111", "--doors", "shed"])
        assertExit(unknown, 2)
        XCTAssertTrue(unknown.stderr.contains("garaged has no door shed (its doors: left, gate)"), unknown.stderr)
        let list = try pins(daemon, ["list"])
        XCTAssertEqual(squeezed(list.stdout), "SLOT PIN LABEL DOORS\n1 24680 Guest left\n", "11111 was never stored")
        XCTAssertEqual(readText(pinsPath + ".doors").split(separator: "\n").last, "1\tleft")
        XCTAssertEqual(daemon.stop(), .exited(0))

        daemon = try startTwoDoors()
        for _ in 0..<8 { XCTAssertEqual(try daemon.ask("24680@gate:O=1"), "ERR DENIED") }
        XCTAssertEqual(try daemon.ask("24680O=1"), "OK", "eight refusals are no lockout: the PIN is good")
        XCTAssertEqual(try pressesIn(leftTrace, count: 1).count, 1)
        XCTAssertEqual(try daemon.ask("12345@gate:O=1"), "OK", "the master reaches every door")
        XCTAssertEqual(try pressesIn(gateTrace, count: 1).count, 1)
        assertExit(try pins(daemon, ["edit", "1", "--doors", "all"]), 0)
        XCTAssertEqual(try daemon.ask("24680@gate:S"), "S OPENING")
        XCTAssertEqual(daemon.stop(), .exited(0))
        XCTAssertEqual(presses(in: try readTrace(gateTrace)).count, 1, "the guest never pressed the gate")

        try write(Array("1\tleft\n1 gate\n".utf8), to: pinsPath + ".doors")
        daemon = try startTwoDoors()
        waitUntil("the unreadable file in the log", timeout: .seconds(5)) { daemon.log.contains("door-access-unreadable") }
        XCTAssertEqual(try daemon.ask("24680O=1"), "ERR DENIED", "an unreadable file: no guest gains a named door")
        XCTAssertEqual(try daemon.ask("12345O=1"), "OK")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// W7 (issue 29): `export` and `import` dropped the door limits, so after the README's backup
    /// and restore the guest limited to the garage opened the gate. The backup (version 2) now
    /// carries each slot's doors and `import` restores them. An old backup (version 1, no
    /// limits) still imports onto a table without limits, and is refused where it would lift
    /// one; a limits file that cannot be read is never exported as "no limits".
    func testABackupAndRestoreKeepTheDoorLimits() throws {
        var daemon = try startTwoDoors()
        assertExit(try pins(daemon, ["add", "24680", "--label", "Guest", "--doors", "left"]), 0)
        assertExit(try pins(daemon, ["add", "13579"]), 0)
        let export = try garagePins(["export", "--pins", pinsPath])
        assertExit(export, 0)
        let doc = json(export.stdout) as? [String: Any]
        XCTAssertEqual(doc?["version"] as? Int, 2)
        let entries = doc?["pins"] as? [[String: Any]] ?? []
        XCTAssertEqual(entries.map { $0["doors"] as? [String] }, [["left"], nil], export.stdout)
        XCTAssertEqual(daemon.stop(), .exited(0))

        // A new Pi: the table and the files beside it are gone, the backup is restored.
        let backup = dir + "/backup.json", limits = readText(pinsPath + ".doors")
        try write(Array(export.stdout.utf8), to: backup)
        for file in [pinsPath, pinsPath + ".labels", pinsPath + ".doors"] { unlink(file) }
        assertExit(try garagePins(["import", backup, "--pins", pinsPath]), 0)
        XCTAssertEqual(readText(pinsPath + ".doors"), limits)
        daemon = try startTwoDoors()
        XCTAssertEqual(try daemon.ask("24680@gate:O=1"), "ERR DENIED", "the guest still does not open the gate")
        XCTAssertEqual(try daemon.ask("24680O=1"), "OK")
        XCTAssertEqual(try daemon.ask("13579@gate:O=1"), "OK")
        XCTAssertEqual(daemon.stop(), .exited(0))

        // A version 1 backup has no limits: refused over a table that has some, taken where none are.
        let old = dir + "/old.json"
        try write(Array(#"{"format":"garaged-pins","version":1,"slots":16,"master":"12345","pins":[{"slot":1,"pin":"24680","label":"Guest"},{"slot":2,"pin":"13579"}]}"#.utf8), to: old)
        let table = readBytes(pinsPath)
        let refused = try garagePins(["import", old, "--pins", pinsPath, "--force"])
        assertExit(refused, 1)
        XCTAssertTrue(refused.stderr.contains("version 1") && refused.stderr.contains("slot 1") && refused.stderr.contains("--doors all"), refused.stderr)
        XCTAssertEqual(readBytes(pinsPath), table)
        XCTAssertEqual(readText(pinsPath + ".doors"), limits)
        assertExit(try garagePins(["import", old, "--pins", dir + "/fresh"]), 0)
        XCTAssertFalse(fileExists(dir + "/fresh.doors"))

        // Limits that cannot be read are not exported as none.
        try write(Array("1 left\n".utf8), to: pinsPath + ".doors")
        let unreadable = try garagePins(["export", "--pins", pinsPath])
        assertExit(unreadable, 1)
        XCTAssertTrue(unreadable.stderr.contains("\(pinsPath).doors") && unreadable.stdout.isEmpty, unreadable.stderr)
    }

    /// A PIN limited to one door saw every door in `Lstatus` and `Lfollow status` (issue 29):
    /// the gate's guest saw the garage, and who opened it. Now it sees only its doors, under
    /// their own numbers; the master PIN sees every door.
    func testALimitedPINSeesOnlyItsDoorsInTheStatus() throws {
        let daemon = try startTwoDoors()
        assertExit(try pins(daemon, ["add", "24680", "--label", "Guest", "--doors", "gate"]), 0)
        let guest = try answer(try daemon.connect(), "24680Lstatus")
        XCTAssertEqual(guest.count, 2, "the gate's record and OK: \(guest)")
        XCTAssertTrue(guest.first?.hasPrefix(#"{"id":"gate","name":"Front gate","number":2,"#) == true, "\(guest)")
        XCTAssertEqual(try answer(try daemon.connect(), "12345Lstatus").count, 3, "the master sees both doors")
        let status = try pins(daemon, ["status"], pin: "24680")
        assertExit(status, 0)
        XCTAssertTrue(status.stdout.hasPrefix("door 2: gate (Front gate)\n") && !status.stdout.contains("left"), status.stdout)

        let follower = try spawn(try Binaries.path(of: "garage-pins"), ["status", "--follow", "--socket", daemon.socketPath],
                                 environment: ["GARAGE_PIN": "24680"], name: "guest-follower")
        waitUntil("the guest's first status line", timeout: .seconds(5)) { follower.stdout.contains("[gate] door CLOSED") }
        // The left door moves first: once the gate's change reaches the guest, the left one's
        // would have been pushed before it.
        XCTAssertEqual(try daemon.ask("12345O=1"), "OK")
        XCTAssertEqual(try pressesIn(leftTrace, count: 1).count, 1)
        XCTAssertEqual(try daemon.ask("12345@gate:O=1"), "OK")
        waitUntil("the gate's change pushed to the guest", timeout: .seconds(5)) { follower.stdout.contains("[gate] door OPENING") }
        XCTAssertFalse(follower.stdout.contains("[left]"), "the guest was told about the left door: \(follower.stdout)")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// systemd's status line names each door; the app's `C=` is per door, kept in a file of
    /// the door's own (the first door keeps today's `pins.autoclose`).
    func testTheStatusLineAndTheClosingIntervalArePerDoor() throws {
        let notify = try NotifySocket(path: dir + "/notify")
        let daemon = try startTwoDoors(environment: ["NOTIFY_SOCKET": notify.path])
        guard let ready = notify.wait(for: { $0.contains("READY=1") }) else { return XCTFail("no READY=1: \(notify.messages.map(\.text))") }
        XCTAssertTrue(NotifySocket.value("STATUS", in: ready.text)?
            .hasPrefix("doors left CLOSED (believed: no sensors); gate CLOSED (believed: no sensors); lockout none") == true, ready.text)
        XCTAssertEqual(try daemon.ask("12345@gate:O=1"), "OK")
        XCTAssertNotNil(notify.wait(for: { NotifySocket.value("STATUS", in: $0)?.hasPrefix("doors left CLOSED (believed: no sensors); gate OPENING") == true },
                                    after: ready.index), "\(notify.messages.map(\.text))")
        XCTAssertEqual(try daemon.ask("12345@gate:C=60"), "OK")
        XCTAssertEqual(readText(pinsPath + ".gate.autoclose"), "60\n")
        XCTAssertFalse(fileExists(pinsPath + ".autoclose"), "the first door's interval is untouched")
        XCTAssertEqual(try daemon.ask("12345C=30"), "OK", "the book's C= sets the first door")
        XCTAssertEqual(readText(pinsPath + ".autoclose"), "30\n")
        XCTAssertEqual(daemon.stop(), .exited(0))
        // Both kept across a restart, each for its door.
        let again = try startTwoDoors()
        let records = try answer(try again.connect(), "12345Lstatus")
        XCTAssertTrue(records[0].contains(#""auto_close_interval_s":30"#) && records[1].contains(#""auto_close_interval_s":60"#), "\(records)")
        XCTAssertEqual(again.stop(), .exited(0))
    }
}

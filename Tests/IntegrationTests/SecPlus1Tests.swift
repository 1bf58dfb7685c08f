import Foundation
import XCTest

/// One byte on the fake Security+ 1.0 opener's wire, as it logged it (Tests/secplus/fakeopener1.py).
struct WireByte: Decodable {
    let t: Double
    /// garaged, panel, opener (or remote, for its radio remote: no byte).
    let who: String
    let byte: Int?
    /// The fake's door when the byte was on the wire.
    let state: String
    /// How far from the nearest byte of the other side before it, in ms (under 9: a collision).
    let near_ms: Double?
    /// The speed garaged's side of the pty was set to, on garaged's first byte.
    let baud: Int?
}

/// garaged driving a Security+ 1.0 opener (issue 38) on a pty, against Tests/secplus/fakeopener1.py:
/// the wire from the notes, its echo, a wall panel polling it, its radio remote, its photo-eye.
/// A pty carries no parity (the kernel clears PARENB on ptys): a real UART drops a byte with bad
/// parity before garaged reads it, so here a garbage byte stands in for it, and is refused.
final class SecPlus1Tests: GaragedTestCase {
    private var link: String { dir + "/opener1-tty" }
    private var wireLog: String { dir + "/opener1.jsonl" }
    private var control: String { dir + "/opener1-control" }
    /// The fake stamps a byte when its loop reads it, a few ms late on a loaded machine, and the
    /// flash's read may be later than the toggle's: slack far under one flash (500 ms), so a
    /// warning one flash short still fails.
    static let readSlack = 0.05

    /// Starts the fake 1.0 opener with its door at `state` (a wall panel polling it with `panel`).
    @discardableResult
    private func startOpener1(state: String = "closed", panel: Bool = false, travel: Double = 4) throws -> ChildProcess {
        try startOpener1(link: link, log: wireLog, control: control, state: state, panel: panel, travel: travel)
    }

    /// garaged with the fake 1.0 opener, listening 1 s for a panel, once its socket answers.
    private func startGaraged1(_ extra: [String] = [], listen: Int = 1) throws -> GaragedDaemon {
        let process = try spawn(try Binaries.path(of: "garaged"),
                                ["--pins", pinsPath, "--socket", socketPath, "--no-ble", "--auto-close-s", "0",
                                 "--opener", "secplus1:\(link)", "--opener-listen-s", String(listen)] + extra, name: "garaged-secplus1")
        let daemon = GaragedDaemon(process: process, pinsPath: pinsPath, socketPath: socketPath, tracePath: tracePath)
        try waitForSocket(daemon)
        return daemon
    }

    /// Every byte on the fake's wire so far.
    private func wire() -> [WireByte] {
        readText(wireLog).split(separator: "\n").compactMap { try? JSONDecoder().decode(WireByte.self, from: Data($0.utf8)) }
    }

    /// garaged's door presses (0x30), with the fake's door when each reached it.
    private func doorPresses() -> [String] { wire().filter { $0.who == "garaged" && $0.byte == 0x30 }.map(\.state) }

    private func tell1(_ line: String) throws {
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: control))
        handle.write(Data((line + "\n").utf8))
        try handle.close()
    }

    /// The door connected and at `state` in the status record.
    private func awaitDoor(_ daemon: GaragedDaemon, _ state: String, within: Duration = .seconds(10), file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(waitUntil("the door \(state), the opener connected", timeout: within) {
            let s = doorStatus(daemon)
            return s.hasPrefix(#"{"door":"\#(state)""#) && s.contains(#""state":"connected""#)
        }, doorStatus(daemon), file: file, line: line)
    }

    /// With no panel it stands in for one at 1200 baud: ratgdo's start, then the three questions;
    /// the status record says secplus1, connected, where the door is; and no button is pressed.
    func testItStandsInForAPanelAt1200BaudAndReportsTheDoor() throws {
        try initTable()
        try startOpener1()
        let daemon = try startGaraged1()
        awaitDoor(daemon, "CLOSED")
        XCTAssertTrue(doorStatus(daemon).contains(#""opener":{"protocol":"secplus1","device":"\#(link)","state":"connected""#), doorStatus(daemon))
        let mine = wire().filter { $0.who == "garaged" }
        XCTAssertEqual(mine.first?.baud, 1200, "the pty carries the speed garaged set")
        XCTAssertEqual(Array(mine.compactMap(\.byte).prefix(13)), [0x35, 0x35, 0x35, 0x35, 0x33, 0x33, 0x53, 0x53, 0x38, 0x3A, 0x3A, 0x3A, 0x39])
        XCTAssertFalse(mine.contains { $0.byte == 0x30 || $0.byte == 0x32 || $0.byte == 0x34 }, "no button pressed unasked")
        // The log is written from its own thread: waited for, not read once.
        XCTAssertTrue(waitUntil("the log line", timeout: .seconds(5)) { daemon.log.contains("opener-standing-in") }, daemon.log)
        XCTAssertFalse(daemon.log.contains("opener-panel-heard"), "its own echo is no panel: \(daemon.log)")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// An open from CLOSED is one toggle at once; a close is the light flashing (no warn output)
    /// for the whole warning, then one toggle; the door goes where it was asked, by garaged.
    func testAnOpenIsOneToggleAndACloseIsWarnedByTheLightFirst() throws {
        try initTable()
        try startOpener1(travel: 3)
        let daemon = try startGaraged1()
        awaitDoor(daemon, "CLOSED")
        XCTAssertEqual(try daemon.ask("12345O=1"), "OK")
        XCTAssertTrue(waitUntil("one toggle, from CLOSED", timeout: .seconds(5)) { doorPresses() == ["closed"] }, "\(doorPresses())")
        XCTAssertFalse(wire().contains { $0.who == "garaged" && $0.byte == 0x32 }, "an open from CLOSED is not warned")
        awaitDoor(daemon, "OPEN")
        // The log is written from its own thread: waited for, not read once.
        XCTAssertTrue(waitUntil("the log line", timeout: .seconds(5)) { daemon.log.contains("press reason=open action=open") }, daemon.log)

        let before = wire().count
        XCTAssertEqual(try daemon.ask("12345O=0"), "OK")
        XCTAssertTrue(waitUntil("the toggle from OPEN", timeout: .seconds(10)) { doorPresses() == ["closed", "open"] }, "\(doorPresses())")
        let after = Array(wire().dropFirst(before))
        guard let flash = after.first(where: { $0.who == "garaged" && $0.byte == 0x32 }),
              let toggle = after.first(where: { $0.who == "garaged" && $0.byte == 0x30 }) else { return XCTFail("\(after)") }
        XCTAssertGreaterThanOrEqual(toggle.t - flash.t, 5.0 - Self.readSlack, "the whole warning from the first flash")
        XCTAssertGreaterThanOrEqual(after.filter { $0.who == "garaged" && $0.byte == 0x32 && $0.t < toggle.t }.count, 8, "flashing every 500 ms")
        awaitDoor(daemon, "CLOSED")
        XCTAssertFalse(daemon.log.contains("someone else"), daemon.log)
        XCTAssertFalse(daemon.log.contains("door-fault"), daemon.log)
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// STOP (from Home Assistant) while opening is one toggle; an open from STOPPED is warned and
    /// then two toggles: down first, up as soon as the opener says it closes; a close from
    /// STOPPED is one toggle. Every toggle that may send the door down came after the warning.
    func testStopAndTheDoorFromStoppedAreWarnedToggles() throws {
        try initTable()
        let broker = try MQTTBroker(self)
        try startOpener1(travel: 30)
        let node = "sp1door"
        let daemon = try startGaraged1(["--mqtt", broker.url, "--mqtt-client-id", node, "--mqtt-commands"])
        awaitDoor(daemon, "CLOSED")
        XCTAssertEqual(try daemon.ask("12345O=1"), "OK")
        awaitDoor(daemon, "OPENING")
        broker.waitForSubscription(of: node, to: "garaged/\(node)/command")
        try broker.publish("garaged/\(node)/command", "STOP")
        XCTAssertTrue(waitUntil("the stop's toggle, after its warning", timeout: .seconds(12)) { doorPresses() == ["closed", "opening"] }, "\(doorPresses())")
        awaitDoor(daemon, "STOPPED")
        // The door reads STOPPED from the stop's press on; the press is over once the opener says so.
        XCTAssertTrue(waitUntil("the stop's toggles done", timeout: .seconds(5)) { daemon.log.contains("opener-toggles-done reason=stop toggles=1 door=stopped") },
                      daemon.log)

        XCTAssertEqual(try daemon.ask("12345O=1"), "OK")
        XCTAssertTrue(waitUntil("down, then up", timeout: .seconds(15)) { doorPresses() == ["closed", "opening", "stopped", "closing"] }, "\(doorPresses())")
        awaitDoor(daemon, "OPENING")
        let presses = wire().filter { $0.who == "garaged" && $0.byte == 0x30 }
        let flashes = wire().filter { $0.who == "garaged" && $0.byte == 0x32 }
        for down in presses where down.state != "closed" && down.state != "closing" {
            let warnedAt = flashes.last { $0.t < down.t && down.t - $0.t < 1.0 }
            XCTAssertNotNil(warnedAt, "the light still flashing at the toggle from \(down.state)")
            // The flashing that runs up to the toggle: back from it while flashes are under 0.8 s apart.
            var start = down.t
            for flash in flashes.filter({ $0.t < down.t }).reversed() where start - flash.t < 0.8 { start = flash.t }
            XCTAssertGreaterThanOrEqual(down.t - start, 5.0 - Self.readSlack, "a whole warning of flashing before the toggle from \(down.state)")
        }
        guard presses.count == 4 else { return XCTFail("\(doorPresses())") }
        XCTAssertLessThan(presses[3].t - presses[2].t, 4.0, "the second toggle as soon as CLOSING is confirmed")
        XCTAssertTrue(waitUntil("the open's toggles done", timeout: .seconds(5)) {
            daemon.log.contains("opener-toggles-done reason=open toggles=2 door=opening")
        }, daemon.log)
        try broker.publish("garaged/\(node)/command", "STOP")
        awaitDoor(daemon, "STOPPED", within: .seconds(15))
        XCTAssertTrue(waitUntil("the second stop's toggles done", timeout: .seconds(5)) {
            daemon.log.components(separatedBy: "opener-toggles-done reason=stop toggles=1 door=stopped").count == 3
        }, daemon.log)
        XCTAssertEqual(try daemon.ask("12345O=0"), "OK")
        XCTAssertTrue(waitUntil("a close from STOPPED: one toggle", timeout: .seconds(15)) { doorPresses().count == 6 }, "\(doorPresses())")
        XCTAssertEqual(doorPresses().last, "stopped")
        awaitDoor(daemon, "CLOSING")
        XCTAssertFalse(daemon.log.contains("someone else"), "garaged's own toggles are garaged's: \(daemon.log)")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// With a wall panel polling, garaged asks nothing, learns the door from the panel, and puts
    /// its buttons only in the gaps: no byte of its meets the panel's or the opener's. A press of
    /// the panel's door button is seen, and the movement is someone else's.
    func testWithAPanelItAsksNothingAndNeverCollides() throws {
        try initTable()
        try startOpener1(panel: true, travel: 3)
        let daemon = try startGaraged1(listen: 15)
        awaitDoor(daemon, "CLOSED", within: .seconds(5))
        // The log is written from its own thread: waited for, not read once.
        XCTAssertTrue(waitUntil("the log line", timeout: .seconds(5)) { daemon.log.contains("opener-panel-heard") }, daemon.log)
        XCTAssertEqual(try daemon.ask("12345O=1"), "OK")
        awaitDoor(daemon, "OPEN")
        XCTAssertEqual(try daemon.ask("12345L=1"), "OK")
        XCTAssertTrue(waitUntil("the light on", timeout: .seconds(5)) { doorStatus(daemon).contains(#""light":true"#) }, doorStatus(daemon))
        XCTAssertEqual(try daemon.ask("12345O=0"), "OK")
        awaitDoor(daemon, "CLOSED", within: .seconds(15))
        let all = wire()
        let mine = all.filter { $0.who == "garaged" }
        XCTAssertFalse(mine.isEmpty)
        XCTAssertTrue(mine.allSatisfy { [0x30, 0x31, 0x32, 0x33].contains($0.byte ?? 0) }, "buttons only: \(mine.map(\.byte))")
        let collisions = all.filter { $0.who != "remote" && $0.near_ms.map { $0 < 9 } ?? false }
        XCTAssertEqual(collisions.count, 0, "every byte in a gap: \(collisions)")
        for (a, b) in zip(mine, mine.dropFirst()) { XCTAssertGreaterThanOrEqual(b.t - a.t, 0.19, "200 ms between garaged's own") }

        try tell1("panel-press")
        XCTAssertTrue(waitUntil("the panel's press seen, the door moved by the wall button", timeout: .seconds(8)) {
            daemon.log.contains("opener-panel-press") && daemon.log.contains(#"by="the wall button""#)
        }, daemon.log)
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// The light is a toggle pressed only while it differs; the lock of the opener's remotes is
    /// the master PIN's only, held 3.5 s; both in the status as the opener says.
    func testTheLightAndTheRemotesLock() throws {
        try initTable()
        try startOpener1()
        let daemon = try startGaraged1()
        awaitDoor(daemon, "CLOSED")
        XCTAssertTrue(doorStatus(daemon).contains(#""light":false"#), doorStatus(daemon))
        XCTAssertEqual(try daemon.ask("12345L=1"), "OK")
        // The opener's answers to 0x3A after garaged's light press: bit 2, its light.
        func lightAnswers() -> [Int] {
            let all = wire()
            guard let press = all.firstIndex(where: { $0.who == "garaged" && $0.byte == 0x32 }) else { return [] }
            return zip(all[press...], all[press...].dropFirst()).filter { $0.0.who == "garaged" && $0.0.byte == 0x3A && $0.1.who == "opener" }
                .compactMap { $0.1.byte.map { $0 & 0x04 } }
        }
        XCTAssertTrue(waitUntil("the opener's light on, twice in a row", timeout: .seconds(5)) { lightAnswers().suffix(2) == [4, 4] }, "\(lightAnswers())")
        XCTAssertTrue(doorStatus(daemon).contains(#""light":true"#), doorStatus(daemon))
        XCTAssertEqual(try daemon.ask("12345L=1"), "OK")
        XCTAssertTrue(waitUntil("two more answers", timeout: .seconds(5)) { lightAnswers().count >= 4 }, "\(lightAnswers())")
        XCTAssertEqual(wire().filter { $0.who == "garaged" && $0.byte == 0x32 }.count, 1, "already on: no second press")

        let lock = try pins(daemon, ["remotes", "lock"])
        assertExit(lock, 0, "remotes lock")
        XCTAssertTrue(waitUntil("the remotes locked, as the opener says", timeout: .seconds(10)) {
            doorStatus(daemon).contains(#""remotes_locked":true"#)
        }, doorStatus(daemon))
        let mine = wire().filter { $0.who == "garaged" }
        if let press = mine.first(where: { $0.byte == 0x34 }), let release = mine.last(where: { $0.byte == 0x35 }) {
            XCTAssertGreaterThanOrEqual(release.t - press.t, 3.4, "held 3.5 s")
        } else {
            XCTFail("\(mine.map(\.byte))")
        }
        XCTAssertEqual(try daemon.ask("12345A24680"), "OK 1")
        let other = try pins(daemon, ["remotes", "unlock"], pin: "24680")
        assertExit(other, 1, "remotes unlock with a user's PIN")
        XCTAssertEqual(quotedRecord(other.stderr), "ERR PIN", other.stderr)
        XCTAssertEqual(wire().filter { $0.who == "garaged" && $0.byte == 0x34 }.count, 1, "nothing more asked of the opener")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// The opener's photo-eye refuses a close and is in the status; its radio remote moves the
    /// door with nothing on the wire, and that is someone else.
    func testThePhotoEyeAndTheRemote() throws {
        try initTable()
        try startOpener1(state: "open", travel: 3)
        let daemon = try startGaraged1()
        awaitDoor(daemon, "OPEN")
        try tell1("obstruct")
        XCTAssertTrue(waitUntil("obstructed", timeout: .seconds(5)) { doorStatus(daemon).contains(#""obstruction":true"#) }, doorStatus(daemon))
        XCTAssertEqual(try daemon.ask("12345O=0"), "ERR OBSTRUCTED")
        try tell1("clear")
        XCTAssertTrue(waitUntil("clear", timeout: .seconds(5)) { doorStatus(daemon).contains(#""obstruction":false"#) }, doorStatus(daemon))
        XCTAssertEqual(doorPresses(), [], "nothing pressed")
        try tell1("remote")
        awaitDoor(daemon, "CLOSED")
        // The log is written from its own thread: waited for, not read once.
        XCTAssertTrue(waitUntil("the log line", timeout: .seconds(5)) { daemon.log.contains(#"by="a remote or keypad""#) }, "nothing on the wire: a remote: \(daemon.log)")
        XCTAssertEqual(doorPresses(), [])
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// Unanswered questions make it silent (no press taken) until it answers again; a byte no
    /// question awaited (what a parity error would be on a real UART, where the kernel drops it)
    /// is refused and said once a minute.
    func testSilenceAndGarbage() throws {
        try initTable()
        try startOpener1()
        let daemon = try startGaraged1()
        awaitDoor(daemon, "CLOSED")
        for _ in 0..<3 { try tell1("garbage") }
        XCTAssertTrue(waitUntil("the garbage refused", timeout: .seconds(5)) { daemon.log.contains("opener-byte-refused") }, daemon.log)
        XCTAssertEqual(daemon.log.components(separatedBy: "opener-byte-refused").count - 1, 1, "once a minute: \(daemon.log)")
        XCTAssertTrue(daemon.log.contains("byte=9c"), daemon.log)
        awaitDoor(daemon, "CLOSED")

        try tell1("mute")
        XCTAssertTrue(waitUntil("silent", timeout: .seconds(10)) { doorStatus(daemon).contains(#""state":"silent""#) }, doorStatus(daemon))
        // The log is written from its own thread: waited for, not read once.
        XCTAssertTrue(waitUntil("the log line", timeout: .seconds(5)) { daemon.log.contains("opener-silent") }, daemon.log)
        XCTAssertEqual(try daemon.ask("12345O=1"), "ERR FAULT")
        try tell1("unmute")
        awaitDoor(daemon, "CLOSED")
        XCTAssertEqual(doorPresses(), [])
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// The Pi's mini UART has no parity: refused at start (a link to it too), naming the PL011;
    /// doctor says so too, and finds the 1.0 opener on a good device.
    func testTheMiniUARTIsRefusedAndDoctorFindsTheOpener() throws {
        try initTable()
        let serial0 = dir + "/serial0"
        try FileManager.default.createSymbolicLink(atPath: serial0, withDestinationPath: "/dev/ttyS0")
        let refused = try spawn(try Binaries.path(of: "garaged"),
                                ["--pins", pinsPath, "--socket", socketPath, "--no-ble", "--opener", "secplus1:\(serial0)"], name: "garaged-ttyS0")
        XCTAssertEqual(refused.waitForExit(timeout: .seconds(5)), .exited(1))
        XCTAssertTrue(refused.stderr.contains("\(serial0) is the Raspberry Pi's mini UART (ttyS0), which has no parity"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("secplus1:/dev/ttyAMA0"), refused.stderr)

        let bad = try spawn(try Binaries.path(of: "garaged"), ["doctor", "--pins", pinsPath, "--socket", socketPath, "--no-ble",
                                                              "--opener", "secplus1:\(serial0)"], name: "doctor-ttyS0")
        _ = bad.waitForExit(timeout: .seconds(15))
        XCTAssertTrue(bad.stdout.contains("FAIL  opener: \(serial0) is the Raspberry Pi's mini UART"), bad.stdout)

        try startOpener1()
        let ok = try spawn(try Binaries.path(of: "garaged"), ["doctor", "--pins", pinsPath, "--socket", socketPath, "--no-ble",
                                                             "--opener", "secplus1:\(link)"], name: "doctor-secplus1")
        XCTAssertEqual(ok.waitForExit(timeout: .seconds(15)), .exited(0), ok.stdout)
        XCTAssertTrue(ok.stdout.contains("the Security+ 1.0 opener answered (door closed; no wall panel heard"), ok.stdout)
        XCTAssertEqual(doorPresses(), [], "doctor presses nothing")
    }
}

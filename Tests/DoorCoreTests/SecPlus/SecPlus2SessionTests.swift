import XCTest
@testable import DoorCore

/// Rolling codes in memory: blocks of 64 reserved ahead, a save that can fail like a full disk,
/// and every save kept, as `SecPlus2Codes` keeps them on disk.
final class MemoryCodes: SecPlus2CodeSource {
    var client = SecPlus2ClientID(0x1234_5539)
    var next: UInt32 = 1
    var reservedBelow: UInt32 = 1
    var failing = false
    var saves: [(client: SecPlus2ClientID, below: UInt32)] = []

    var reservedAhead: UInt32 { reservedBelow > next ? reservedBelow - next : 0 }

    func take() throws(StoreError) -> UInt32 {
        if next >= reservedBelow { try reserve() }
        defer { next += 1 }
        return next
    }

    func reserve() throws(StoreError) {
        if failing { throw .io(path: "codes", action: "save", errno: 28) }
        reservedBelow = max(next, reservedBelow) + 64
        saves.append((client, reservedBelow))
    }

    func skip(past rolling: UInt32) throws(StoreError) -> Bool {
        if failing { throw .io(path: "codes", action: "save", errno: 28) }
        if UInt64(rolling) + 65 < UInt64(SecPlus2Packet.rollingLimit) {
            next = rolling + 1
            reservedBelow = rolling + 65
            saves.append((client, reservedBelow))
            return false
        }
        client = SecPlus2ClientID(0x7777_7539)
        next = 1
        reservedBelow = 65
        saves.append((client, reservedBelow))
        return true
    }
}

/// The Security+ 2.0 conversation without a wire: what it writes and when, and what the door is
/// told, replayed at chosen instants. Each of the fourth review's findings on the wire (issue 37:
/// H2, H3, H5, H6, H7, W3, W6) is replayed here; the real binary's tests are in
/// `FourthAttackReviewTests`.
final class SecPlus2SessionTests: XCTestCase {
    private let opener = SecPlus2ClientID(0x0AAD_8002)
    private let panel = SecPlus2ClientID(0x0123_4567)

    private func session(_ codes: MemoryCodes = MemoryCodes()) -> SecPlus2Session {
        SecPlus2Session(device: "/dev/ttyAMA0", codes: codes, at: t(0))
    }

    /// A packet from `client` on the wire.
    private func packet(_ command: SecPlus2Command, nibble: UInt8 = 0, byte1: UInt8 = 0, byte2: UInt8 = 0,
                        from client: SecPlus2ClientID, rolling: UInt32 = 500) -> [UInt8] {
        try! SecPlus2Fields(command: command, nibble: nibble, byte1: byte1, byte2: byte2, client: client).packet(rolling: rolling).encoded
    }

    /// The opener's STATUS: `state`'s nibble, the beam clear, the light as given.
    private func status(_ state: OpenerDoorState, light: Bool = false, from client: SecPlus2ClientID? = nil, rolling: UInt32 = 500) -> [UInt8] {
        packet(.status, nibble: state.rawValue, byte1: 0x40, byte2: light ? 2 : 0, from: client ?? opener, rolling: rolling)
    }

    /// What a written packet says, decoded.
    private func fields(_ bytes: [UInt8]) -> SecPlus2Fields { SecPlus2Fields(try! SecPlus2Packet(decoding: bytes)) }

    /// Writes whatever is due at `at` (confirming each write), returning what was written and told.
    @discardableResult
    private func run(_ s: inout SecPlus2Session, at: Instant, ok: Bool = true) -> (written: [SecPlus2Fields], events: [OpenerEvent]) {
        var written: [SecPlus2Fields] = [], events: [OpenerEvent] = []
        for _ in 0..<8 {
            let step = s.due(at: at)
            events += step.events
            guard let bytes = step.write else { break }
            written.append(fields(bytes))
            events += s.wrote(ok: ok, at: at)
        }
        return (written, events)
    }

    /// A door (its opener answered: closed) and the permit its open makes.
    private func openPermit(number: Int = 1) -> PressPermit {
        var door = Door(timing: DoorTiming(pulse: .milliseconds(300), travel: .seconds(10), autoClose: nil, warning: nil),
                        sensing: .reported(by: "test"), at: t(0))
        _ = door.openerReported(.closed, obstructed: false, at: t(0))
        var permit: PressPermit?
        for n in 1...number {
            let events = door.request(open: n % 2 == 1, at: t(n * 1_000)).events
            permit = events.compactMap { if case .press(let p) = $0 { return p } else { return nil } }.first
            _ = door.pressEnded(at: t(n * 1_000 + 300))
            _ = door.openerReported(n % 2 == 1 ? .open : .closed, obstructed: false, at: t(n * 1_000 + 500))
        }
        return permit!
    }

    /// Starts a session whose opener answered: status asked and answered (closed), openings too,
    /// and its backup battery asked (at 35 ms, code 3; an opener without one never answers).
    private func answered(_ codes: MemoryCodes = MemoryCodes()) -> SecPlus2Session {
        var s = session(codes)
        let first = run(&s, at: t(0))
        XCTAssertEqual(first.written.map(\.command), [.getStatus], "the status first; the next waits for a quiet line")
        _ = s.received(status(.closed), at: t(10))
        XCTAssertEqual(run(&s, at: t(20)).written.map(\.command), [.getOpenings])
        _ = s.received(packet(.openings, byte2: 7, from: opener), at: t(30))
        XCTAssertEqual(run(&s, at: t(35)).written.map(\.command), [.getBattery], "then the battery")
        return s
    }

    func testItAsksTheStatusThenTheOpeningsEachOnAQuietLine() {
        var s = session()
        XCTAssertEqual(run(&s, at: t(0)).written.map(\.command), [.getStatus])
        // A byte at 0.5 ms: the line is busy until 1.3 ms after it.
        _ = s.received([0xAA], at: Instant(nanoseconds: t(0).nanoseconds + 500_000))
        XCTAssertEqual(run(&s, at: Instant(nanoseconds: t(0).nanoseconds + 1_000_000)).written, [], "not yet quiet")
        XCTAssertEqual(run(&s, at: t(2)).written.map(\.command), [.getOpenings])
    }

    /// H7: a STATUS naming no state answers nothing; the status is asked again until one does.
    func testAStatusNamingNoStateKeepsTheAsking() {
        var s = session()
        run(&s, at: t(0))
        XCTAssertEqual(s.received(status(.unknown), at: t(10)), [], "not an answer: the door is told nothing")
        let again = run(&s, at: t(5_000)).written + run(&s, at: t(5_002)).written
        XCTAssertEqual(again.map(\.command).filter { $0 == .getStatus }, [.getStatus], "asked again 5 s on")
        _ = s.received(status(.closed), at: t(5_010))
        let later = run(&s, at: t(10_000)).written + run(&s, at: t(10_002)).written
        XCTAssertEqual(later.map(\.command).filter { $0 == .getStatus }, [], "answered: no more asks")
    }

    /// W6: the opener is the client that answered GET_STATUS; a wall panel's packets neither
    /// keep it "answering" nor say where the door is.
    func testAChattyPanelNeitherAnswersForTheOpenerNorReportsTheDoor() {
        var s = answered()
        XCTAssertEqual(s.openerID, opener)
        let fromPanel = s.received(status(.open, from: panel), at: t(100))
        XCTAssertEqual(fromPanel, [], "another id's STATUS says nothing of the door")
        // Quiet for 6 minutes but for the panel: asked again, and silent 5 s later.
        var silent = false
        var at = 100
        while at < 372_000 {
            at += 250
            _ = s.received(packet(.ping, from: panel, rolling: UInt32(600 + at)), at: t(at))
            silent = silent || run(&s, at: t(at + 5)).events.contains(.answering(false))
        }
        XCTAssertTrue(silent, "the opener went silent though the panel chattered")
    }

    /// W6: before the opener answered an ask, an unasked STATUS is nobody's answer.
    func testAnUnaskedStatusBeforeTheFirstAskIsNotTheOpener() {
        var s = session()
        XCTAssertEqual(s.received(status(.open, from: panel), at: t(0)), [])
        XCTAssertNil(s.openerID)
    }

    /// Issue 38: the backup battery is asked (GET_BATTERY, nibble 5) once the opener first
    /// answered and then every hour; its BATTERY, asked or not, is the door's (6 charging, 8
    /// full, anything else not known), and a change is said once in the log.
    func testTheBatteryIsAskedHourlyAndItsAnswerIsTheDoors() {
        var s = answered()
        let ask = run(&s, at: t(35)).written
        XCTAssertEqual(ask, [], "asked once at 35 ms, not again at once")
        var charging = s.received(packet(.battery, byte1: 6, from: opener, rolling: 501), at: t(50))
        XCTAssertEqual(charging.popLast(), .battery(.charging))
        XCTAssertEqual(charging.map { if case .note(let n) = $0 { n.event } else { "" } }, ["opener-battery"])
        XCTAssertEqual(s.received(packet(.battery, byte1: 6, from: opener, rolling: 502), at: t(60)), [.battery(.charging)],
                       "the same again: no second log line")
        XCTAssertEqual(s.received(packet(.battery, byte1: 6, from: panel, rolling: 503), at: t(70)), [], "another device's says nothing")
        XCTAssertEqual(s.received(packet(.battery, byte1: 8, from: opener, rolling: 504), at: t(80)).last, .battery(.full),
                       "unasked: the opener may say it by itself")
        XCTAssertEqual(s.received(packet(.battery, byte1: 0, from: opener, rolling: 505), at: t(90)), [.battery(nil)],
                       "0: it does not know; a change within the minute is not said again (anyone on the wire can make it flap)")
        let unknown = s.received(packet(.battery, byte1: 0, from: opener, rolling: 506), at: t(60_050))
        XCTAssertEqual(unknown.last, .battery(nil))
        XCTAssertTrue(unknown.contains { if case .note(let n) = $0 { n.level == .warning } else { false } }, "said a minute on: \(unknown)")

        let halfAnHour = run(&s, at: t(1_800_000)).written + run(&s, at: t(1_800_005)).written
        XCTAssertEqual(halfAnHour.filter { $0.command == .getBattery }, [], "not before the hour")
        // An hour on: asked again (the status is asked again too after six minutes of quiet).
        _ = s.received(status(.closed), at: t(3_599_000))
        let hourly = run(&s, at: t(3_600_035)).written + run(&s, at: t(3_600_040)).written
        XCTAssertEqual(hourly.filter { $0.command == .getBattery }.map(\.nibble), [5], "\(hourly.map(\.command))")
    }

    /// H2: a packet with garaged's id is its echo only if it carries a code garaged just wrote.
    func testAnEchoIsOnlyACodeJustWritten() {
        let codes = MemoryCodes()
        var s = answered(codes)
        // The echo of the GET_OPENINGS written at 20 ms (code 2) says nothing.
        XCTAssertEqual(s.received(packet(.getOpenings, from: codes.client, rolling: 2), at: t(40)), [])
        XCTAssertEqual(codes.next, 4)
    }

    /// H2: another device's packet with garaged's id and a code above garaged's: the opener would
    /// ignore every lower code, so garaged's codes move past it and say so loudly.
    func testAForgedCodeWithOurIdMovesOurCodesPastIt() {
        let codes = MemoryCodes()
        var s = answered(codes)
        let told = s.received(packet(.getStatus, from: codes.client, rolling: 100_000), at: t(100))
        XCTAssertEqual(told.compactMap { if case .note(let n) = $0 { return n.event } else { return nil } },
                       ["opener-identity-forged", "opener-codes-moved"])
        XCTAssertEqual(codes.next, 100_001)
        XCTAssertNil(s.carryOut(openPermit(), deadline: t(3_000), at: t(1_000)))
        XCTAssertEqual(s.due(at: t(1_000)).write.map { try! SecPlus2Packet(decoding: $0).rolling }, 100_001, "the press's code is past the forged one")
    }

    /// H2: at 2^28-2 there is no room to move past: a new client id, said.
    func testAForgedCodeAtTheEndTakesANewClientID() {
        let codes = MemoryCodes()
        var s = answered(codes)
        let old = codes.client
        let told = s.received(packet(.getStatus, from: old, rolling: SecPlus2Packet.rollingLimit - 2), at: t(100))
        XCTAssertTrue(told.contains { if case .note(let n) = $0 { return n.event == "opener-new-identity" } else { return false } })
        XCTAssertNotEqual(codes.client, old)
        XCTAssertNil(s.carryOut(openPermit(), deadline: t(3_000), at: t(1_000)))
        XCTAssertEqual(run(&s, at: t(1_000)).written.first?.client, codes.client, "the press speaks with the new id")
    }

    /// H3: a press waits for a quiet line, but never past its deadline: then it is not sent,
    /// and the door is told so.
    func testAPressNotOnTheWireByItsDeadlineIsNeverSent() {
        var s = answered()
        let permit = openPermit()
        XCTAssertNil(s.carryOut(permit, deadline: t(3_000), at: t(1_000)))
        var told: [OpenerEvent] = []
        var written: [SecPlus2Fields] = []
        // The line busy (a byte every millisecond) from 1 s to 3.5 s.
        for ms in stride(from: 1_000, to: 3_500, by: 1) {
            _ = s.received([0xAA], at: t(ms))
            let r = run(&s, at: t(ms))
            told += r.events
            written += r.written
        }
        XCTAssertEqual(written.map(\.command).filter { $0 == .doorAction }, [], "never sent late")
        XCTAssertTrue(told.contains(.pressNotSent(permit, why: "the line was busy until past the request's deadline: the press was not sent")))
        XCTAssertEqual(run(&s, at: t(4_000)).written.filter { $0.command == .doorAction }, [])
    }

    /// Codes go out in ascending order whatever jumps the queue: the opener ignores a code below
    /// the last it took from us, so a press written before a queued light must not leave the
    /// light with a lower code; and nothing goes between a press and its release.
    func testAPressThatJumpsTheQueueNeverLeavesALowerCodeBehind() {
        var s = answered()
        _ = s.received([0xAA], at: t(1_000))
        XCTAssertTrue(s.ask(.light(true), at: t(1_000)))
        XCTAssertNil(s.carryOut(openPermit(), deadline: t(3_000), at: t(1_000)))
        var rolling: [(SecPlus2Command, UInt32)] = []
        for ms in stride(from: 1_002, to: 1_200, by: 2) {
            while true {
                let step = s.due(at: t(ms))
                guard let bytes = step.write else { break }
                let packet = try! SecPlus2Packet(decoding: bytes)
                rolling.append((SecPlus2Fields(packet).command, packet.rolling))
                _ = s.wrote(ok: true, at: t(ms))
            }
        }
        XCTAssertEqual(rolling.map(\.0), [.doorAction, .doorAction, .light], "the press, its release, then the light")
        XCTAssertEqual(rolling[1].1, rolling[0].1, "the release carries the press's code")
        XCTAssertTrue(rolling[0].1 < rolling[2].1, "\(rolling)")
    }

    /// H3: the press and its release 150 ms later; the door hears the press is over only when
    /// the release was written.
    func testThePressIsOverWhenItsReleaseIsWritten() {
        var s = answered()
        let permit = openPermit()
        XCTAssertNil(s.carryOut(permit, deadline: t(3_000), at: t(1_000)))
        let press = run(&s, at: t(1_000))
        XCTAssertEqual(press.written.map(\.byte1), [1])
        XCTAssertFalse(press.events.contains(.pressOver(permit)))
        XCTAssertEqual(s.nextWake, t(1_150))
        XCTAssertEqual(run(&s, at: t(1_100)).written, [])
        let release = run(&s, at: t(1_150))
        XCTAssertEqual(release.written.map(\.byte1), [0])
        XCTAssertTrue(release.events.contains(.pressOver(permit)))
        XCTAssertEqual(s.carryOut(permit, deadline: t(3_000), at: t(1_200)), "permit 1 was already carried out (a replay)")
    }

    /// H3: the warning counts from the first flash written, not from when it was asked.
    func testTheWarningIsShownWhenItsFirstFlashIsWritten() {
        var s = answered()
        XCTAssertTrue(s.ask(.flashing(true), at: t(1_000)))
        var shown: Instant?
        for ms in stride(from: 1_000, to: 2_600, by: 1) {
            if ms < 2_500 { _ = s.received([0xAA], at: t(ms)) }
            for case .warningShown(let at) in run(&s, at: t(ms)).events { shown = at }
        }
        XCTAssertEqual(shown, t(2_501), "shown at the first LIGHT written, once the line was quiet")
    }

    /// H3: a flash that cannot be written within 2 s: nobody was warned, the loop is told.
    func testAWarningNeverWrittenFails() {
        var s = answered()
        XCTAssertTrue(s.ask(.flashing(true), at: t(1_000)))
        var failed = false
        for ms in stride(from: 1_000, to: 3_100, by: 1) {
            _ = s.received([0xAA], at: t(ms))
            failed = failed || run(&s, at: t(ms)).events.contains { if case .warningFailed = $0 { return true } else { return false } }
        }
        XCTAssertTrue(failed)
    }

    /// W3: a light switched in the same write as a close ("Goodnight") is what the flashing
    /// leaves, though no STATUS confirmed it yet.
    func testTheLightAskedBeforeTheWarningIsWhatItLeaves() {
        var s = answered()
        _ = s.received(status(.open, light: true, rolling: 501), at: t(500))
        XCTAssertTrue(s.ask(.light(false), at: t(1_000)))
        XCTAssertTrue(s.ask(.flashing(true), at: t(1_000)))
        run(&s, at: t(1_000))
        run(&s, at: t(1_010))
        XCTAssertTrue(s.ask(.flashing(false), at: t(4_000)))
        let written = stride(from: 4_000, to: 4_020, by: 2).flatMap { run(&s, at: t($0)).written }
        let last = written.last { $0.command == .light }
        XCTAssertEqual(last?.nibble, 0, "left off, as last asked: \(written)")
    }

    /// H5: codes are reserved ahead of every press; when none can be, garaged stops speaking
    /// (the door takes no press it could not send) and starts again once one can.
    func testNoCodeReservedMeansNoPressIsTaken() {
        let codes = MemoryCodes()
        var s = answered(codes)
        // Spend the block down to the margin, with a full disk.
        codes.failing = true
        codes.next = codes.reservedBelow - 7
        let told = run(&s, at: t(100)).events
        XCTAssertTrue(told.contains(.answering(false)), "\(told)")
        XCTAssertFalse(s.canSpeak)
        XCTAssertNotNil(s.carryOut(openPermit(), deadline: t(3_000), at: t(1_000)))
        codes.failing = false
        let again = run(&s, at: t(6_000))
        XCTAssertTrue(s.canSpeak)
        XCTAssertEqual(again.written.first?.command, .getStatus, "asked again")
    }

    /// H6: the device goes: a waiting press is not sent, the opener cannot answer; back, it is asked.
    func testADeviceThatGoesIsAFaultUntilItIsBack() {
        var s = answered()
        let permit = openPermit()
        _ = s.received([0xAA], at: t(1_000))
        XCTAssertNil(s.carryOut(permit, deadline: t(3_000), at: t(1_000)))
        let gone = s.deviceGone("Input/output error", at: t(1_000))
        XCTAssertTrue(gone.contains(.answering(false)))
        XCTAssertTrue(gone.contains { if case .pressNotSent(permit, _) = $0 { return true } else { return false } })
        XCTAssertNotNil(s.carryOut(openPermit(number: 2), deadline: t(4_000), at: t(2_000)))
        XCTAssertEqual(run(&s, at: t(2_000)).written, [])
        _ = s.deviceBack(at: t(5_000))
        XCTAssertEqual(run(&s, at: t(5_000)).written.map(\.command), [.getStatus])
        XCTAssertTrue(s.received(status(.closed, rolling: 900), at: t(5_010)).contains(.answering(true)))
    }
}

import XCTest
@testable import DoorCore

/// `opener = auto`: the search on an in-memory wire that, like a real one, carries bytes intact
/// only at its own speed. A 2.0 opener at 1200 baud hears garbage (nothing) and is heard as
/// garbage; a 1.0 opener (and its panel) at 9600 likewise.
final class OpenerSearchTests: XCTestCase {
    private let openerID = SecPlus2ClientID(0x0AAD_8002)

    /// The wire under test: a 2.0 opener (that may also speak unasked), a 1.0 one, or nothing.
    private enum Wire {
        case secPlus2(chatty: Bool)
        case secPlus1(WireOpener)
        case silent
    }

    private var wire: Wire = .silent
    private var search: OpenerSearch!
    private var now = t(0)
    private var told: [OpenerEvent] = []
    /// What the search wrote: the bytes and the speed the line was at.
    private var written: [(bytes: [UInt8], baud: Int)] = []
    private var toGaraged: [(at: Instant, bytes: [UInt8])] = []
    private let codes = MemoryCodes()

    private func start(_ wire: Wire, kept: (kind: OpenerKind, how: String)? = nil) {
        self.wire = wire
        var timing = OpenerSearch.Timing()
        timing.probe1For = .seconds(12)
        var timing1 = SecPlus1Session.Timing()
        timing1.listenFor = .seconds(2)
        let codes = self.codes
        search = OpenerSearch(device: "/dev/ttyAMA0", kept: kept, timing: timing, at: now) { kind, at -> any OpenerSession in
            kind == .secPlus1 ? SecPlus1Session(device: "/dev/ttyAMA0", timing: timing1, at: at) : SecPlus2Session(device: "/dev/ttyAMA0", codes: codes, at: at)
        }
        if case .secPlus2(chatty: true) = wire {
            toGaraged.append((t(500), status(.closed, rolling: 400)))
        }
    }

    private func status(_ state: OpenerDoorState, rolling: UInt32 = 500) -> [UInt8] {
        try! SecPlus2Fields(command: .status, nibble: state.rawValue, byte1: 0x40, byte2: 0, client: openerID).packet(rolling: rolling).encoded
    }

    /// The search's bytes reach the opener only at its speed; its answers reach garaged intact
    /// only at that speed too (otherwise as one garbage byte).
    private func put(_ bytes: [UInt8]) {
        let baud = search.line.baud
        written.append((bytes, baud))
        switch wire {
        case .secPlus2:
            guard baud == 9600, let packet = try? SecPlus2Packet(decoding: bytes) else { return }
            let fields = SecPlus2Fields(packet)
            if fields.command == .getStatus { toGaraged.append((now + .milliseconds(10), status(.closed, rolling: 600 + UInt32(written.count)))) }
        case .secPlus1(var opener):
            if baud == 1200 { for byte in bytes { opener.garagedWrote(byte, at: now) } }
            wire = .secPlus1(opener)
        case .silent:
            break
        }
    }

    private func arriving() -> [UInt8] {
        var bytes = toGaraged.filter { $0.at <= now }.flatMap(\.bytes)
        toGaraged.removeAll { $0.at <= now }
        if case .secPlus1(var opener) = wire {
            opener.advance(to: now)
            bytes += opener.arriving(by: now)
            wire = .secPlus1(opener)
            return search.line.baud == 1200 ? bytes : bytes.map { _ in 0x00 }
        }
        return search.line.baud == 9600 ? bytes : bytes.isEmpty ? [] : [0xFF]
    }

    private func serve() {
        for _ in 0..<4 {
            let step = search.due(at: now)
            told += step.events
            guard let bytes = step.write else { break }
            put(bytes)
            told += search.wrote(ok: true, unsent: 0, error: nil, at: now)
        }
    }

    private func run(until end: Instant) {
        while now <= end {
            let bytes = arriving()
            if !bytes.isEmpty { told += search.received(bytes, at: now) }
            serve()
            var next = end + .nanoseconds(1)
            var candidates = [search.nextWake] + toGaraged.map { Optional($0.at) }
            if case .secPlus1(let opener) = wire { candidates.append(opener.nextEvent) }
            for c in candidates { if let c, c > now, c < next { next = c } }
            if let wake = search.nextWake, wake <= now { next = min(next, now + .milliseconds(1)) }
            now = next
        }
        now = end
    }

    private var identities: [OpenerIdentity] { told.compactMap { if case .identified(let i) = $0 { return i } else { return nil } } }
    private var found: OpenerIdentity? { identities.last { $0.kind != nil } }
    private func notes(_ event: String) -> [OpenerNote] { told.compactMap { if case .note(let n) = $0, n.event == event { return n } else { return nil } } }
    /// The door buttons of Security+ 1.0 written at 1200 baud: a door, light or lock press.
    private var presses1: [UInt8] { written.filter { $0.baud == 1200 }.flatMap(\.bytes).filter { [0x30, 0x32, 0x34].contains($0) } }

    func testAQuiet2WireIsListenedToThenAskedGetStatusAndFound() {
        start(.secPlus2(chatty: false))
        run(until: t(1_900))
        XCTAssertTrue(written.isEmpty, "it listens before asking")
        XCTAssertTrue(search.searching)
        XCTAssertEqual(identities.first?.kind, nil, "the status says it searches from the start")
        run(until: t(3_000))
        XCTAssertEqual(found?.kind, .secPlus2)
        XCTAssertEqual(found?.how, "an answer to GET_STATUS")
        XCTAssertFalse(search.searching)
        XCTAssertTrue(told.contains(.answering(true)), "the door is told the opener answers")
        XCTAssertTrue(written.allSatisfy { $0.baud == 9600 }, "never tried 1.0")
        let commands = written.compactMap { try? SecPlus2Packet(decoding: $0.bytes) }.map { SecPlus2Fields($0).command }
        XCTAssertTrue(commands.allSatisfy { [.getStatus, .getOpenings, .getBattery].contains($0) }, "questions only: \(commands)")
    }

    func testA2OpenersOwnPacketWhileListeningNamesTheWire() {
        start(.secPlus2(chatty: true))
        run(until: t(499))
        XCTAssertTrue(written.isEmpty)
        run(until: t(500))
        XCTAssertEqual(found?.kind, .secPlus2)
        XCTAssertEqual(found?.how, "its packets (a Security+ 2.0 packet heard on the wire)")
        let commands = written.compactMap { try? SecPlus2Packet(decoding: $0.bytes) }.map { SecPlus2Fields($0).command }
        XCTAssertEqual(commands, [.getStatus], "found without a byte written; then the 2.0 session asks as it does")
    }

    func testA1WireWithAPanelIsFoundByThePanelsPollsAndNothingIsPressed() {
        var opener = WireOpener(.closed, at: t(0))
        opener.panelEvery = .milliseconds(250)
        start(.secPlus1(opener))
        run(until: t(30_000))
        XCTAssertEqual(found?.kind, .secPlus1)
        XCTAssertEqual(found?.how, "a wall panel's polls, and the opener's answers")
        XCTAssertEqual(search.line, SecPlus1Session.line)
        XCTAssertTrue(written.filter { $0.baud == 9600 }.count >= 1, "2.0 was asked first")
        XCTAssertEqual(written.filter { $0.baud == 1200 }.count, 0, "with a panel polling, garaged says nothing at 1200")
        XCTAssertTrue(told.contains(.status(.closed, obstructed: false, light: false, locked: false)), "\(told)")
    }

    func testA1WireWithoutAPanelIsFoundByItsAnswerTo0x38() {
        start(.secPlus1(WireOpener(.open, at: t(0))))
        run(until: t(40_000))
        XCTAssertEqual(found?.kind, .secPlus1)
        XCTAssertEqual(found?.how, "the opener's answer to 0x38")
        XCTAssertEqual(presses1, [], "no door, light or lock press")
        let first = written.filter { $0.baud == 1200 }.flatMap(\.bytes).first { SecPlus1Wire.isQuestion($0) }
        XCTAssertEqual(first, 0x38, "its first question is the door's")
        XCTAssertTrue(told.contains { if case .status(.open, _, _, _) = $0 { return true } else { return false } }, "\(told)")
    }

    func testAPressWhileSearchingIsRefusedNamingTheSearchAndNeverCarriedOutLater() throws {
        start(.secPlus1(WireOpener(.closed, at: t(0))))
        run(until: t(3_000))
        // A permit as a door whose opener answered makes one (this search's door has none yet).
        var door = Door(timing: DoorTiming(pulse: .milliseconds(300), travel: .seconds(10), autoClose: nil, warning: nil),
                        sensing: .reported(by: "test"), at: now)
        _ = door.openerReported(.closed, obstructed: false, at: now)
        let permit = try XCTUnwrap(door.request(open: true, at: now).events.compactMap { if case .press(let p) = $0 { return p } else { return nil } }.first)
        let why = try XCTUnwrap(search.carryOut(permit, deadline: now + Door.maxRequestAge, at: now))
        XCTAssertTrue(why.contains("searching") && why.contains("/dev/ttyAMA0"), why)
        XCTAssertFalse(search.ask(.light(true), at: now), "no setting either")
        run(until: t(40_000))
        XCTAssertEqual(found?.kind, .secPlus1)
        XCTAssertEqual(presses1, [], "the refused press never reached the wire")
        XCTAssertFalse(told.contains { if case .pressOver = $0 { return true } else { return false } })
    }

    func testAKeptResultIsSpokenAtOnceWithoutASearch() {
        start(.secPlus2(chatty: false), kept: (.secPlus2, "an answer to GET_STATUS"))
        run(until: t(100))
        XCTAssertEqual(identities.first, OpenerIdentity(kind: .secPlus2, how: "an answer to GET_STATUS", device: "/dev/ttyAMA0", kept: true))
        XCTAssertFalse(search.searching)
        XCTAssertTrue(told.contains(.answering(true)), "asked at once, no listening first")
        run(until: t(60_000))
        XCTAssertEqual(identities.count, 1, "never searched")
    }

    func testAKeptWireThatStaysSilentIsSearchedAgainAndTheRightOneFound() {
        start(.secPlus2(chatty: false), kept: (.secPlus1, "the opener's answer to 0x38"))
        XCTAssertEqual(search.line, SecPlus1Session.line)
        run(until: t(60_000))
        XCTAssertEqual(notes("opener-search-again").count, 1, "\(told)")
        XCTAssertEqual(found?.kind, .secPlus2)
        XCTAssertFalse(found?.kept ?? true)
        XCTAssertEqual(presses1, [])
    }

    func testNothingAnsweringIsSaidEachRoundAndTheNextRoundListensLonger() {
        start(.silent)
        while notes("opener-search-nothing").isEmpty && now < t(30_000) { run(until: now + .milliseconds(100)) }
        XCTAssertEqual(notes("opener-search-nothing").count, 1)
        XCTAssertEqual(notes("opener-silent").count, 0, "a try's silence is the search's, not the wiring's")
        XCTAssertTrue(search.searching)
        XCTAssertTrue(search.trying.contains("round 2"), search.trying)
        let before = written.count
        run(until: now + .seconds(29))
        XCTAssertEqual(written.count, before, "the next round listens 30 s first")
        XCTAssertNil(found)
    }
}

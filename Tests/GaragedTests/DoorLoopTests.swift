import CLinux
import DoorCore
import DoorSystem
@testable import GaragedKit
import XCTest
#if canImport(Glibc)
import Glibc
#endif
#if canImport(Synchronization)
import Synchronization
#endif

/// The door loop, built in process the way garaged builds it at start (settings, the claimed
/// lines, `DoorSetup`, the controller, a drive), driven by requests: a fresh one reaches the
/// door's drive, one that waited past 2 s is refused and presses nothing.
final class DoorLoopTests: XCTestCase {
    /// A loop of one door with a simulated relay in a temporary folder.
    private struct Rig {
        let dir: TempFolder
        let settings: Settings
        let hardware: DoorHardware
        let loop: DoorLoop
        var trace: String { dir.file("relay.trace") }
    }

    /// Builds the loop as `Daemon.run` does, with `drive` moving the door (given the claimed
    /// lines and the loop's inbox) and `listeners` bringing requests.
    private func rig(clock: any MonotonicClock, startedAt: Int64 = PacketSocket.realtimeNow(), listen: Bool = false,
                     owners: [any OwnerCommands] = [], opener: Bool = false,
                     drive: (DoorHardware, LoopInbox) -> any DoorDrive) throws -> Rig {
        let dir = try TempFolder()
        let pins = try dir.table()
        let settings = try GaragedTests.settings([
            "--pins", pins, "--socket", dir.file("s.sock"), "--no-ble", "--relay", "sim:\(dir.file("relay.trace"))",
            "--pulse-ms", "50", "--travel-s", "1", "--auto-close-s", "0",
        ])
        let hardware = try DoorSetup.claimAll(settings.doors, clock: clock)[0]
        let setup = DoorSetup(index: 0, settings: settings.door, hardware: hardware, tablePath: pins, clock: clock, log: testLog)
        // A door whose opener reports it has the opener's light and lock (`DoorCapabilities`).
        let unit = opener ? DoorUnit(door: Door(timing: settings.door.timing, sensing: .reported(by: "the test's opener"))) : setup.unit
        let controller = Controller(table: try PinTableFile(path: pins).load(), doors: [unit], store: PinTableFile(path: pins))
        let inbox = LoopInbox()
        let listeners: [any Listener] = listen ? [try LocalListener(path: settings.socket, group: nil, required: false)] : []
        let parts = DoorParts(index: 0, drive: drive(hardware, inbox), outputs: hardware.outputs, switches: hardware.switches)
        let loop = DoorLoop(controller: controller, doors: [parts], listeners: listeners, inbox: inbox, owners: owners, clock: clock,
                            log: testLog, startedAt: startedAt)
        return Rig(dir: dir, settings: settings, hardware: hardware, loop: loop)
    }

    private let owner = RequestSource("test uid=0", channel: nil, isLocal: true)

    private func open(arrived: Instant) -> DoorRequest {
        DoorRequest(.line(Array("12345O=1".utf8)), from: owner, arrived: arrived)
    }

    /// `12345O=1` handed to the loop: OK, one permit for door 1 reaches the drive, the door is
    /// opening, and a wrong PIN right after presses nothing.
    func testAnOpenReachesTheDrive() throws {
        let clock = TestClock(), drive = RecordingDrive()
        let r = try rig(clock: clock) { _, _ in drive }
        defer { r.hardware.releaseAll() }

        let outcome = r.loop.perform(open(arrived: clock.now()))
        XCTAssertEqual(outcome.replies, [.ok])
        XCTAssertEqual(drive.permits.map(\.door), [0])
        XCTAssertEqual(r.loop.controller.door.position, .opening)

        let wrong = r.loop.perform(DoorRequest(.line(Array("99999O=1".utf8)), from: owner, arrived: clock.now()))
        XCTAssertNotEqual(wrong.replies, [.ok])
        XCTAssertEqual(drive.permits.count, 1, "a wrong PIN must press nothing")
    }

    /// A request judged more than 2 s after it arrived (the loop was held up) is refused as
    /// stale and presses nothing; one judged at exactly 2 s still opens.
    func testAStaleRequestIsRefusedAndPressesNothing() throws {
        let clock = TestClock(), drive = RecordingDrive()
        let r = try rig(clock: clock) { _, _ in drive }
        defer { r.hardware.releaseAll() }

        let arrived = clock.now()
        clock.advance(.milliseconds(2001))
        let stale = r.loop.perform(open(arrived: arrived))
        XCTAssertEqual(stale.replies, [.error(.stale)])
        XCTAssertEqual(stale.refusal, "it waited 2001 ms between arriving and being judged (the limit is 2000 ms), so it was not performed; send it again")
        XCTAssertTrue(drive.permits.isEmpty, "a stale request must press nothing")
        XCTAssertEqual(r.loop.controller.door.position, .closed)

        let onTime = r.loop.perform(open(arrived: clock.now() - .seconds(2)))
        XCTAssertEqual(onTime.replies, [.ok])
        XCTAssertEqual(drive.permits.count, 1)
    }

    /// The whole path on real parts: the loop's thread, the local socket, the pulse driver and
    /// the simulated relay. A line that waited in the socket from before a start held up for
    /// 3 s is answered ERR STALE and leaves the relay alone; the same line sent again opens,
    /// and the relay's trace shows one press.
    func testALineThroughTheSocketPressesTheRelayAndAStaleOneDoesNot() throws {
        let clock = SystemMonotonicClock()
        var driver: PulseDriver?
        let r = try rig(clock: clock, startedAt: PacketSocket.realtimeNow() - 3_000_000_000, listen: true) { hardware, inbox in
            let d = PulseDriver(line: hardware.relay!, pulse: .milliseconds(50), clock: clock, log: testLog) { overran in
                inbox.relayReleased(door: 0, overran: overran)
            }
            driver = d
            return d
        }
        let pulse = try XCTUnwrap(driver)
        // Sent before the loop first looks: it counts from the (held-up) start.
        let client = try PacketClient(path: r.settings.socket)
        try client.send("12345O=1")
        pulse.start()
        r.loop.start()
        defer {
            XCTAssertTrue(r.loop.stop(), "the loop stops within its deadline")
            XCTAssertTrue(pulse.stop(), "the relay lets go within its deadline")
            r.hardware.releaseAllButTheRelay()
        }

        // The local socket says why before the code (garage-pins prints it).
        let reason = try client.record()
        XCTAssertTrue(reason.hasPrefix(#"{"reason":"it waited "#) && reason.hasSuffix(#"so it was not performed; send it again"}"#), reason)
        XCTAssertEqual(try client.record(), "ERR STALE")
        XCTAssertEqual(traceLevels(r.trace), [0], "a stale request must leave the relay at rest")

        XCTAssertEqual(try client.ask("12345O=1"), "OK")
        waitUntil("the press and its release in \(r.trace)") { traceLevels(r.trace).count >= 3 }
        XCTAssertEqual(traceLevels(r.trace), [0, 1, 0])
        XCTAssertEqual(try client.ask("12345S"), "S OPENING")
    }

    /// Issue 37 (W1): one HomeKit write of 1,800 lock items wrote 903 log lines, one for each
    /// ask the opener's queue could not take. Now the first is logged and the rest counted, said
    /// once with their count when the burst ends.
    func testAnOpenerThatCannotBeAskedIsLoggedOncePerBurst() throws {
        let drive = UnaskableOpener()
        let r = try rig(clock: TestClock(), opener: true) { _, _ in drive }
        defer { r.hardware.releaseAll() }
        var outcome = Controller.Outcome()
        outcome.door = Array(repeating: .remotesLock(true), count: 900) + Array(repeating: .light(on: true), count: 900)
        r.loop.enact(outcome)
        XCTAssertEqual(drive.asks, 1_800, "each was asked of the drive")
        let bursts = r.loop.logBursts.flush()
        XCTAssertEqual(bursts.map(\.first.event).sorted(), ["light-failed", "remotes-failed"], "one burst of each, logged once when it began")
        XCTAssertEqual(bursts.map(\.folded), [899, 899], "the rest counted, for the line that ends each burst")
        XCTAssertTrue(bursts.allSatisfy { $0.first.fields.contains { $0.0 == "why" && $0.1.contains("ask again") } }, "\(bursts.map(\.first.fields))")
    }

    /// The owner's commands about a part go to the part that runs, with the asking connection and
    /// the history to hand; a part not running is answered with the error that says how to turn
    /// it on, and the loop holds no field of its own for either.
    func testTheOwnersCommandsAboutAPartGoToThatPart() throws {
        let clock = SystemMonotonicClock(), phones = PhonesPart()
        let r = try rig(clock: clock, listen: true, owners: [phones]) { _, _ in RecordingDrive() }
        r.loop.start()
        defer {
            XCTAssertTrue(r.loop.stop(), "the loop stops within its deadline")
            r.hardware.releaseAll()
        }
        let client = try PacketClient(path: r.settings.socket)

        XCTAssertEqual(try client.ask("12345Lphones"), #"{"label":"Anna"}"#)
        XCTAssertEqual(try client.record(), "OK 1")
        XCTAssertEqual(try client.ask("12345Lunpair Anna"), "OK")
        // The part's record is in the history before its OK was sent.
        let history = try client.list("12345Llog")
        XCTAssertTrue(history.contains { $0.contains(#""kind":"unpair""#) && $0.contains(#""label":"Anna""#) }, "\(history)")

        XCTAssertTrue(try client.ask("12345Lhomekit").hasPrefix("ERR HOMEKIT"), "no HomeKit part runs")
        XCTAssertEqual(phones.asked, [.phones, .unpair("Anna"), .homekit(.info)], "each part is asked; it says what is not its own")

        // The window's news from the part's own thread reaches the connection that asked, and
        // only while it follows.
        XCTAssertEqual(try client.ask("12345Lpair 60 user Anna"), "OK")
        r.loop.inbox.tellFollowers(of: .pairing, .object([("passkey", .string("123456"))]))
        XCTAssertEqual(try client.record(), #"{"passkey":"123456"}"#)
    }

    /// With no Bluetooth pairing agent and no HomeKit running, their commands say how to turn
    /// them on.
    func testTheOwnersCommandsAboutAPartThatDoesNotRunSaySo() throws {
        let r = try rig(clock: SystemMonotonicClock(), listen: true) { _, _ in RecordingDrive() }
        r.loop.start()
        defer {
            XCTAssertTrue(r.loop.stop(), "the loop stops within its deadline")
            r.hardware.releaseAll()
        }
        let client = try PacketClient(path: r.settings.socket)
        for line in ["12345Lphones", "12345Lunpair Anna", "12345Lpair 60 user Anna"] {
            XCTAssertTrue(try client.ask(line).hasPrefix("ERR BLUETOOTH"), line)
        }
        XCTAssertTrue(try client.ask("12345Lhomekit reset").hasPrefix("ERR HOMEKIT"))
    }

    /// One stranger flooding from 30 connections (HomeKit before pair-verify, where a request may
    /// be a key exchange on the loop's thread) held the owner's `S` up for whole turns of them, 16
    /// packets from each. Now the local socket's clients are served first in every turn and
    /// strangers take a few packets a turn in all, one each in turn: the owner's `S`, sent on a new
    /// connection in the middle of the flood, is answered within two turns of strangers' packets,
    /// and the strangers are served round in turn, none left behind.
    func testTheOwnersRequestIsAnsweredBetweenAStrangersFloodsPackets() throws {
        let r = try rig(clock: SystemMonotonicClock(), listen: true) { _, _ in RecordingDrive() }
        let flood = try Flood(socket: r.settings.socket, askAfter: 100, strangers: 30)
        for s in flood.strangers { r.loop.connections[s.fd] = s }
        r.loop.start()
        waitUntil("the owner answered in the flood") { flood.answered.load(ordering: .acquiring) }
        XCTAssertTrue(r.loop.stop(), "the loop stops within its deadline")
        r.hardware.releaseAll()

        let between = flood.servedWhenAnswered - flood.servedWhenAsked
        XCTAssertLessThanOrEqual(between, 2 * DoorLoop.maxStrangerPacketsPerTurn,
                                 "strangers' packets served between the owner's S and its answer")
        XCTAssertLessThanOrEqual(flood.spreadWhenAnswered, 1, "each stranger served in turn: \(flood.countsWhenAnswered)")
        XCTAssertEqual(try XCTUnwrap(flood.owner).record(), "S CLOSED")
    }
}

/// A stranger's flood on many connections, each always readable with another packet, and the
/// owner's `S` sent on a new connection of the local socket once `askAfter` packets were served.
/// All of it runs on the loop's thread (each packet served is a call from the loop), so the
/// counts say in what order the loop served the owner and the strangers; the test reads them
/// once the loop has stopped.
private final class Flood: @unchecked Sendable {
    let socket: String
    let askAfter: Int
    var strangers: [FloodingStranger] = []
    var owner: PacketClient?
    var served = 0
    var servedWhenAsked = 0
    var servedWhenAnswered = 0
    /// The packets served to each stranger when the answer was seen, and the most and the fewest
    /// apart.
    var countsWhenAnswered: [Int] = []
    var spreadWhenAnswered: Int { (countsWhenAnswered.max() ?? 0) - (countsWhenAnswered.min() ?? 0) }
    let answered = Atomic(false)

    init(socket: String, askAfter: Int, strangers: Int) throws {
        self.socket = socket
        self.askAfter = askAfter
        self.strangers = try (0..<strangers).map { _ in try FloodingStranger() }
        for s in self.strangers { s.flood = self }
    }

    /// One of the strangers' packets is served: the owner asks at the `askAfter`th; at each one
    /// after it, its socket is looked at (without reading) for the answer.
    func serving(_ stranger: FloodingStranger) {
        served += 1
        stranger.served += 1
        if served == askAfter {
            owner = try? PacketClient(path: socket)
            try? owner?.send("12345S")
            servedWhenAsked = served
        } else if let owner, !answered.load(ordering: .relaxed) {
            var byte: UInt8 = 0
            guard recv(owner.fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) == 1 else { return }
            servedWhenAnswered = served
            countsWhenAnswered = strangers.map(\.served)
            answered.store(true, ordering: .releasing)
        }
    }
}

/// A stranger's connection (HomeKit before pair-verify) that always has another packet: its
/// socket holds a byte it never reads, so every poll finds it readable.
private final class FloodingStranger: Connection {
    let fd: Int32
    private let peer: Int32
    weak var flood: Flood?
    var served = 0
    var lastHeard = Instant(nanoseconds: 0)
    var arrivals = Arrivals(acceptedAfter: 0, unstamped: 0)
    let source = RequestSource("homekit stranger", channel: nil)
    var wantsWrite: Bool { false }
    var closing: Bool { false }
    var closeReason: String? { nil }
    var standing: ConnectionBudget.Standing { .stranger }

    init() throws {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw TestError("socketpair: \(String(cString: strerror(errno)))")
        }
        (fd, peer) = (pair[0], pair[1])
        var byte: UInt8 = 1
        _ = Glibc.send(peer, &byte, 1, 0)
    }

    func receive(hungUp: Bool, polled: Int64) -> Received {
        flood?.serving(self)
        return .packet([])
    }

    func deliver(_ replies: [Reply]) {}
    func flush() {}
    func close() {
        Glibc.close(fd)
        Glibc.close(peer)
    }
}

/// An opener's drive whose queue of settings never takes one (full, or stopping), counting the asks.
private final class UnaskableOpener: DoorDrive, @unchecked Sendable {
    private let count = Mutex(0)
    var asks: Int { count.withLock { $0 } }
    let door = 0
    var name: String { "unaskable-opener" }
    func start() {}
    func stop() -> Bool { true }
    func carryOut(_ permit: PressPermit) -> Bool { true }

    func ask(_ setting: OpenerSetting) -> Bool {
        count.withLock { $0 += 1 }
        return false
    }
}

/// A part that answers `phones`, `unpair` and `pair` as the pairing agent does, and keeps what
/// it was asked (read by the test's thread, asked on the loop's).
private final class PhonesPart: OwnerCommands, @unchecked Sendable {
    private let queries = Mutex<[Controller.LocalQuery]>([])
    var asked: [Controller.LocalQuery] { queries.withLock { $0 } }

    func answer(_ query: Controller.LocalQuery, from connection: Connection, record: (EventRecord) -> Void) -> [Reply]? {
        queries.withLock { $0.append(query) }
        switch query {
        case .phones: return [.record(.object([("label", .string("Anna"))])), .listed(count: 1)]
        case .unpair(let label):
            record(EventRecord(time: EventRecord.now(), kind: .unpair, source: connection.source.description, label: label))
            return [.ok]
        case .pair:
            connection.follow(.pairing) { _ in false }
            return [.ok]
        default: return nil
        }
    }
}

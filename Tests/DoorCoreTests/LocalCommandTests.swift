import XCTest
@testable import DoorCore

/// The owner's local-socket extensions: their codec, and the controller keeping them off
/// Bluetooth and keeping table and labels consistent.
final class LocalCommandTests: XCTestCase {
    private let local = RequestSource("local uid=0", channel: nil, isLocal: true)
    private let bluetooth = RequestSource("bluetooth 00:AA:01:01:00:01", channel: .remote)

    final class MemoryLabels: LabelsSaving, @unchecked Sendable {
        var saved: [Labels] = []
        var failing = false
        func save(_ labels: Labels) throws(StoreError) {
            if failing { throw .io(path: "memory", action: "write", errno: 28) }
            saved.append(labels)
        }
    }

    private func controller(_ labels: MemoryLabels, _ store: MemoryStore = MemoryStore()) throws -> Controller {
        Controller(table: try PinTable(master: pin("12345"), capacity: 4), door: Door(timing: DoorTiming(pulse: .milliseconds(300), travel: .seconds(1), autoClose: nil)),
                   store: store, labelStore: labels)
    }

    private func texts(_ c: inout Controller, _ request: String, _ source: RequestSource) -> [String] {
        c.judgeAndAccount(Array(request.utf8), from: source, at: t(0)).replies.map(\.text)
    }

    func testEveryExtensionRoundTripsThroughTheCodec() {
        let commands: [LocalCommand] = [.list, .add(pin("abcde"), label: nil), .add(pin("abcde"), label: "Zoë Z"),
                                        .label(slot: 12, name: "Bob"), .label(slot: 3, name: nil), .status,
                                        .log(since: nil), .log(since: 1_795_000_000_000), .follow(.status), .follow(.log), .follow(.log, since: 17),
                                        .unlock(nil), .unlock(.remote), .unlock(.local),
                                        .pair(.init(label: nil, admin: false, seconds: 60)), .pair(.init(label: "Anna B", admin: true, seconds: 600)),
                                        .phones, .unpair("Anna B")]
        for c in commands {
            let request = Request(pin: pin("12345"), command: .local(c))
            XCTAssertEqual(try CommandCodec.decode(CommandCodec.encode(request)).get(), request, "\(c)")
        }
        for bad in ["12345L", "12345Lnope", "12345Llist x", "12345Ladd abc", "12345Llabel x A", "12345Llabel 1  A",
                    "12345Llog x", "12345Lfollow door", "12345Lfollow status 17", "12345Lfollow log x",
                    "12345Lunlock all", "12345Lunlock ",
                    // Only `pair` itself follows a window: nobody may listen in on passkeys.
                    "12345Lfollow pairing",
                    "12345Lpair", "12345Lpair 60", "12345Lpair 0 user", "12345Lpair 601 user", "12345Lpair 60 root",
                    "12345Lpair 60 user ", "12345Lpair 60 user \u{202E}x", "12345Lphones x", "12345Lunpair", "12345Lunpair "] {
            XCTAssertEqual(CommandCodec.decode(Array(bad.utf8)), .failure(.format), bad)
        }
    }

    func testBluetoothGetsErrCmdForEveryExtensionAndNothingChanges() throws {
        let labels = MemoryLabels()
        var c = try controller(labels)
        for request in ["12345Llist", "12345Ladd abcde Eve", "12345Lstatus", "12345Lfollow log", "12345Lnonsense", "12345L",
                        "12345Lpair 60 admin", "12345Lphones", "12345Lunpair Anna"] {
            XCTAssertEqual(texts(&c, request, bluetooth), ["ERR CMD"], request)
        }
        XCTAssertEqual(c.table.entries.count, 0)
        XCTAssertTrue(lockoutsClear(c, at: t(0)), "not a wrong PIN")
        XCTAssertEqual(labels.saved.count, 0)
    }

    func testAddWithALabelSavesLabelsThenTableAndAFailureChangesNothing() throws {
        let labels = MemoryLabels()
        let store = MemoryStore()
        var c = try controller(labels, store)
        XCTAssertEqual(texts(&c, "12345Ladd abcde Alice", local), ["OK 1"])
        XCTAssertEqual(c.labels[1], "Alice")
        XCTAssertEqual(labels.saved.last, Labels([1: "Alice"]))
        XCTAssertEqual(texts(&c, "12345Llist", local), [#"{"slot":1,"pin":"abcde","label":"Alice"}"#, "OK 1"])
        XCTAssertEqual(texts(&c, "abcdeLlist", local), ["ERR PIN"], "a user PIN may not list")
        XCTAssertEqual(c.judgeAndAccount(Array("abcdeLstatus".utf8), from: local, at: t(0)).query, .status,
                       "any PIN may read the status, which the daemon answers from the status value")
        XCTAssertEqual(c.snapshot(at: t(0)).record(door: 0, at: t(0)).serialized, #"{"door":"CLOSED","auto_close_s":null,"locked_s":0,"failures":0,"lockout":{"remote":{"locked_s":0,"failures":0},"local":{"locked_s":0,"failures":0}},"mode":"believed","parts":{},"sensors":{"closed":null,"open":null},"fault":null,"auto_close_interval_s":null,"hold_s":null,"warning":false,"light":null,"open_s":null,"last_opened_by":null}"#)

        labels.failing = true
        XCTAssertEqual(texts(&c, "12345Ladd fghij Bob", local), ["ERR STORE"])
        XCTAssertEqual(texts(&c, "12345Llabel 1 Carol", local), ["ERR STORE"])
        XCTAssertEqual(c.table.entries.count, 1)
        XCTAssertEqual(c.labels, Labels([1: "Alice"]))
        labels.failing = false
        store.failing = true
        XCTAssertEqual(texts(&c, "12345Ladd fghij Bob", local), ["ERR STORE"])
        XCTAssertEqual(c.labels, Labels([1: "Alice"]), "the in-memory labels follow the table")
        store.failing = false

        XCTAssertEqual(texts(&c, "12345Llabel 2 Nobody", local), ["ERR SLOT"])
        XCTAssertEqual(texts(&c, "12345D1", local), ["OK"])
        XCTAssertNil(c.labels[1])
        XCTAssertEqual(texts(&c, "12345Afghij", local), ["OK 1"])
        XCTAssertNil(c.labels[1], "a new PIN never inherits a freed slot's name")
    }

    func testLogAndFollowAreLeftToTheCaller() throws {
        var c = try controller(MemoryLabels())
        let log = c.judgeAndAccount(Array("12345Llog 17".utf8), from: local, at: t(0))
        XCTAssertEqual(log.query, .log(since: 17))
        XCTAssertEqual(log.replies, [])
        XCTAssertEqual(c.judgeAndAccount(Array("abcdeLfollow status".utf8), from: local, at: t(0)).result, .error(.pin))
        XCTAssertEqual(c.judgeAndAccount(Array("12345Lfollow status".utf8), from: local, at: t(0)).query, .follow(.status, since: nil))
    }
}

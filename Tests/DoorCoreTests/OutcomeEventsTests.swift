import XCTest
@testable import DoorCore

/// Which judged requests the owner's history keeps, and with which slot and label.
final class OutcomeEventsTests: XCTestCase {
    private let remote = RequestSource("bluetooth test", channel: .remote)

    private func events(_ c: inout Controller, _ s: String, at ms: Int) -> [EventRecord] {
        c.judgeAndAccount(Array(s.utf8), from: remote, at: t(ms), wall: 42).records
    }

    func testOpensAdminChangesWrongPINsAndLockoutsAreEventsAndReadsAreNot() throws {
        var table = try PinTable(master: pin("12345"), capacity: 4)
        try table.put(pin("zzzzz"), inSlot: 2)
        var c = Controller(table: table, door: Door(timing: .book), store: MemoryStore(), labels: Labels([2: "Alice"]))
        XCTAssertEqual(events(&c, "12345Aaaaaa", at: 0).map(\.kind), [.add])
        XCTAssertEqual(events(&c, "aaaaaO=1", at: 10),
                       [EventRecord(time: 42, kind: .open, source: "bluetooth test", slot: 1, label: nil, detail: "pressed")])
        XCTAssertEqual(events(&c, "12345S", at: 20), [], "a read is not an event")
        XCTAssertEqual(events(&c, "12345P", at: 30), [])
        XCTAssertEqual(events(&c, "1234", at: 40), [], "a malformed request is not an event")
        XCTAssertEqual(events(&c, "12345O=0", at: 50).first?.detail, "ERR BUSY")
        let deleted = events(&c, "12345D2", at: 60)
        XCTAssertEqual(deleted.map(\.kind), [.delete])
        XCTAssertEqual(deleted.first?.label, "Alice", "a delete is named by the label the slot had")
        for i in 0..<4 { XCTAssertEqual(events(&c, "wrongO=1", at: 100 + i).map(\.kind), [.wrongPIN]) }
        let fifth = events(&c, "wrongO=1", at: 200)
        XCTAssertEqual(fifth.map(\.kind), [.wrongPIN, .lockout])
        XCTAssertEqual(fifth.last?.detail, "1 s after 5 wrong PINs")
        XCTAssertEqual(events(&c, "wrongO=1", at: 300), [], "a request refused while locked is not an event")
    }
}

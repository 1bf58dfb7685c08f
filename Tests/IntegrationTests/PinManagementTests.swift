import Foundation
import XCTest

/// Managing PINs over the socket: the replies, and the table file on disk after every change,
/// byte for byte against the book's EEPROM layout.
final class PinManagementTests: GaragedTestCase {
    /// The table file is exactly `expected`, mode 0600, and no temporary file is left beside it.
    private func assertTable(_ expected: [UInt8], _ context: String,
                             file: StaticString = #filePath, line: UInt = #line) {
        let actual = readBytes(pinsPath)
        XCTAssertEqual(actual?.count, 1024, "\(context): table size", file: file, line: line)
        if let actual, actual != expected {
            let diffs = zip(actual, expected).enumerated().filter { $0.element.0 != $0.element.1 }.prefix(8)
            XCTFail("\(context): table differs at " + diffs.map { "byte \($0.offset): 0x\(String($0.element.0, radix: 16)) != expected 0x\(String($0.element.1, radix: 16))" }.joined(separator: ", "),
                    file: file, line: line)
        }
        XCTAssertEqual(permissions(pinsPath), 0o600, "\(context): table mode", file: file, line: line)
        let leftovers = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasPrefix("pins.tmp") }
        XCTAssertEqual(leftovers, [], "\(context): temporary files left behind", file: file, line: line)
    }

    func testAddListEditDeleteKeepTheFileByteExact() throws {
        try initTable()
        assertTable(expectedImage(slots()), "after init")
        let daemon = try startDaemon()
        let client = try daemon.connect()

        XCTAssertEqual(try client.request("12345P"), ["OK 0"], "empty list")
        XCTAssertEqual(try client.ask("12345A11111"), "OK 1")
        assertTable(expectedImage(slots([1: "11111"])), "after A 11111")
        XCTAssertEqual(try client.ask("12345A2b=#~"), "OK 2")
        assertTable(expectedImage(slots([1: "11111", 2: "2b=#~"])), "after A 2b=#~")
        XCTAssertEqual(try client.request("12345P"), ["1=11111", "2=2b=#~", "OK 2"])

        // E with the index as one raw byte (what the book's app sends)…
        XCTAssertEqual(try client.ask(Array("12345E".utf8) + [0x01] + Array("33333".utf8)), "OK")
        assertTable(expectedImage(slots([1: "33333", 2: "2b=#~"])), "after E 0x01 33333")
        // …and as ASCII digits, with and without a leading zero.
        XCTAssertEqual(try client.ask("12345E244444"), "OK")
        assertTable(expectedImage(slots([1: "33333", 2: "44444"])), "after E2 44444")
        XCTAssertEqual(try client.ask("12345E00255555"), "OK")
        assertTable(expectedImage(slots([1: "33333", 2: "55555"])), "after E002 55555")
        XCTAssertEqual(try client.request("12345P"), ["1=33333", "2=55555", "OK 2"])

        XCTAssertEqual(try client.ask("12345D2"), "OK")
        assertTable(expectedImage(slots([1: "33333"])), "after D2")
        XCTAssertEqual(try client.request("12345P"), ["1=33333", "OK 1"])
        XCTAssertEqual(try client.ask("55555S"), "ERR PIN", "a deleted PIN no longer works")

        // A raw-byte delete, then an add refills the first free slot.
        XCTAssertEqual(try client.ask("12345A66666"), "OK 2")
        XCTAssertEqual(try client.ask(Array("12345D".utf8) + [0x01]), "OK")
        assertTable(expectedImage(slots([2: "66666"])), "after D 0x01")
        XCTAssertEqual(try client.ask("12345A77777"), "OK 1")
        assertTable(expectedImage(slots([1: "77777", 2: "66666"])), "after refilling slot 1")
        XCTAssertEqual(try client.request("12345P"), ["1=77777", "2=66666", "OK 2"])

        // The new PIN opens the door.
        XCTAssertEqual(try client.ask("77777O=1"), "OK")
        let trace = try waitForTrace(daemon, count: 3)
        XCTAssertEqual(trace.map(\.level), [0, 1, 0])
        reportWidths(presses(in: trace), "opened with an added PIN")
    }

    /// A distinct 5-character PIN for slot `i`: "p0001", "p0002", …
    private func userPIN(_ i: Int) -> String {
        let digits = String(i)
        return "p" + String(repeating: "0", count: 4 - digits.count) + digits
    }

    func testTheLastSlotOfAFullSizeTableIsByteExact() throws {
        // 170 slots fill 1020 of the 1024 bytes: the last four stay 0xFF.
        try initTable(slots: 170)
        assertTable(expectedImage(slots(capacity: 170)), "after init --slots 170")
        let daemon = try startDaemon()
        for i in 1...169 {
            let pin = userPIN(i)
            XCTAssertEqual(try daemon.ask("12345A\(pin)"), "OK \(i)")
        }
        let used = Dictionary(uniqueKeysWithValues: (1...169).map { ($0, userPIN($0)) })
        assertTable(expectedImage(slots(capacity: 170, used)), "after filling 170 slots")
        XCTAssertEqual(try daemon.ask("12345Azzzzz"), "ERR FULL")
        XCTAssertEqual(try daemon.ask("12345D169"), "OK")
        var after = used
        after[169] = nil
        assertTable(expectedImage(slots(capacity: 170, after)), "after D169")
    }

    func testARestartedDaemonSeesTheSamePINs() throws {
        try initTable()
        let first = try startDaemon()
        XCTAssertEqual(try first.ask("12345Aaaaaa"), "OK 1")
        XCTAssertEqual(try first.ask("12345Abbbbb"), "OK 2")
        XCTAssertEqual(try first.ask("12345D1"), "OK")
        XCTAssertEqual(first.stop(), .exited(0))
        let image = readBytes(pinsPath)
        XCTAssertEqual(image, expectedImage(slots([2: "bbbbb"])))

        let second = try startDaemon(["--travel-s", "0"])
        XCTAssertEqual(readBytes(pinsPath), image, "starting must not rewrite the table")
        let client = try second.connect()
        XCTAssertEqual(try client.request("12345P"), ["2=bbbbb", "OK 1"])
        XCTAssertEqual(try client.ask("aaaaaS"), "ERR PIN")
        XCTAssertEqual(try client.ask("bbbbbO=1"), "OK")
        let trace = try waitForTrace(second, count: 4)  // two start lines, then the press
        XCTAssertEqual(trace.map(\.level), [0, 0, 1, 0])
        reportWidths(presses(in: trace), "opened after restart")
    }

    /// A table change that cannot be saved is refused with ERR STORE and not made: the daemon
    /// keeps answering from the table it had.
    func testAChangeThatCannotBeSavedIsNotMade() throws {
        let tableDir = dir + "/table"
        XCTAssertEqual(mkdir(tableDir, 0o755), 0)
        let pins = tableDir + "/pins"
        try initTable(path: pins)
        let daemon = try startDaemon(pins: pins)
        XCTAssertEqual(try daemon.ask("12345Aaaaaa"), "OK 1")
        // Take the folder away: the daemon can no longer create its temporary file there.
        try FileManager.default.removeItem(atPath: tableDir)
        XCTAssertEqual(try daemon.ask("12345Abbbbb"), "ERR STORE")
        XCTAssertEqual(try daemon.ask("12345D1"), "ERR STORE")
        let client = try daemon.connect()
        XCTAssertEqual(try client.request("12345P"), ["1=aaaaa", "OK 1"], "the refused changes were not made")
        XCTAssertEqual(try client.ask("bbbbbS"), "ERR PIN")
        XCTAssertEqual(try client.ask("aaaaaS"), "S CLOSED")
    }
}

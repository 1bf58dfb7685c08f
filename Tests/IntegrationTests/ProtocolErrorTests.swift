import Foundation
import XCTest

/// Every malformed or refused request gets its specific error and changes nothing: not the table
/// file (compared byte for byte), not the relay line (the trace).
final class ProtocolErrorTests: GaragedTestCase {
    /// Sends each request on one connection, checks its single reply, and checks after each one
    /// that neither the table file nor the trace has changed.
    private func assertRefused(_ cases: [(request: [UInt8], reply: String, why: String)], daemon: GaragedDaemon,
                               file: StaticString = #filePath, line: UInt = #line) throws {
        let table = readBytes(daemon.pinsPath)
        let trace = try daemon.trace()
        let client = try daemon.connect()
        for c in cases {
            let answer = try client.request(c.request)
            XCTAssertEqual(answer, [c.reply], "\(c.why): request \(c.request)", file: file, line: line)
            XCTAssertEqual(readBytes(daemon.pinsPath), table, "\(c.why) changed the table", file: file, line: line)
            XCTAssertEqual(try daemon.trace(), trace, "\(c.why) touched the relay", file: file, line: line)
        }
        // The connection is still usable and the daemon still judges requests.
        XCTAssertEqual(try client.ask("12345S"), "S CLOSED", file: file, line: line)
        XCTAssertEqual(readBytes(daemon.pinsPath), table, file: file, line: line)
        XCTAssertEqual(try daemon.trace(), trace, file: file, line: line)
    }

    private func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    func testMalformedRequestsAnswerFormatOrCmd() throws {
        try initTable()
        let daemon = try startDaemon()
        XCTAssertEqual(try daemon.ask("12345Aabcde"), "OK 1")
        try assertRefused([
            (bytes("1234"), "ERR FORMAT", "too short"),
            (bytes("12345"), "ERR FORMAT", "a PIN and no command"),
            (bytes(""), "ERR FORMAT", "empty line"),
            (bytes("12 45O=1"), "ERR FORMAT", "space in the PIN"),
            ([0x31, 0x32, 0x7F, 0x34, 0x35] + bytes("O=1"), "ERR FORMAT", "0x7F in the PIN"),
            ([0x31, 0x32, 0x00, 0x34, 0x35] + bytes("O=1"), "ERR FORMAT", "0x00 in the PIN"),
            ([0x31, 0x32, 0xC3, 0xA9, 0x35] + bytes("O=1"), "ERR FORMAT", "non-ASCII in the PIN"),
            (bytes("12345O=2"), "ERR FORMAT", "O=2"),
            (bytes("12345O="), "ERR FORMAT", "O= without a value"),
            (bytes("12345O=1 "), "ERR FORMAT", "trailing space"),
            (bytes("12345O=11"), "ERR FORMAT", "O=11"),
            (bytes("12345X"), "ERR CMD", "unknown letter X"),
            (bytes("12345o=1"), "ERR CMD", "lower-case o"),
            (bytes("12345P1"), "ERR FORMAT", "P with an argument"),
            (bytes("12345S1"), "ERR FORMAT", "S with an argument"),
            (bytes("12345A1234"), "ERR FORMAT", "A with a 4-character PIN"),
            (bytes("12345A123456"), "ERR FORMAT", "A with a 6-character PIN"),
            (bytes("12345A12 45"), "ERR FORMAT", "A with a space in the new PIN"),
            (bytes("12345Eabcde"), "ERR FORMAT", "E without an index"),
            (bytes("12345E1"), "ERR FORMAT", "E without a PIN"),
            (bytes("12345E1234zzzzz"), "ERR FORMAT", "E with a 4-digit index"),
            (bytes("12345E") + [0x00] + bytes("zzzzz"), "ERR FORMAT", "E with raw index 0x00"),
            (bytes("12345E") + [0x30 + 0x10] + bytes("zzzzz"), "ERR FORMAT", "E with index '@'"),
            (bytes("12345D"), "ERR FORMAT", "D without an index"),
            (bytes("12345D1234"), "ERR FORMAT", "D with a 4-digit index"),
            (bytes("12345Dx"), "ERR FORMAT", "D with a letter index"),
        ], daemon: daemon)
    }

    func testPinErrors() throws {
        try initTable()
        let daemon = try startDaemon()
        XCTAssertEqual(try daemon.ask("12345Auser1"), "OK 1")
        try assertRefused([
            (bytes("99999O=1"), "ERR PIN", "unknown PIN opening"),
            (bytes("99999S"), "ERR PIN", "unknown PIN asking status"),
            (bytes("1234XO=1"), "ERR PIN", "PIN one character off"),
            (bytes("user1P"), "ERR PIN", "non-master listing"),
            (bytes("user1Auser2"), "ERR PIN", "non-master adding"),
            (bytes("user1E1user3"), "ERR PIN", "non-master editing"),
            (bytes("user1D1"), "ERR PIN", "non-master deleting"),
            (bytes("99999P"), "ERR PIN", "unknown PIN listing"),
        ], daemon: daemon)
        // A user PIN is good for status (and opening, tested with the management tests).
        XCTAssertEqual(try daemon.ask("user1S"), "S CLOSED")
    }

    func testSlotErrors() throws {
        try initTable()
        let daemon = try startDaemon()
        XCTAssertEqual(try daemon.ask("12345Aabcde"), "OK 1")
        try assertRefused([
            (bytes("12345E0zzzzz"), "ERR SLOT", "edit the master's slot 0"),
            (bytes("12345E000zzzzz"), "ERR SLOT", "edit slot 000"),
            (bytes("12345E5zzzzz"), "ERR SLOT", "edit a free slot"),
            (bytes("12345E") + [0x05] + bytes("zzzzz"), "ERR SLOT", "edit a free slot, raw index"),
            (bytes("12345E99zzzzz"), "ERR SLOT", "edit slot 99"),
            (bytes("12345E16zzzzz"), "ERR SLOT", "edit slot 16 (one past the table)"),
            (bytes("12345E") + [0x2F] + bytes("zzzzz"), "ERR SLOT", "edit raw slot 0x2F"),
            (bytes("12345D0"), "ERR SLOT", "delete the master"),
            (bytes("12345D2"), "ERR SLOT", "delete a free slot"),
            (bytes("12345D99"), "ERR SLOT", "delete slot 99"),
            (bytes("12345D999"), "ERR SLOT", "delete slot 999"),
        ], daemon: daemon)
    }

    func testDuplicatePINs() throws {
        try initTable()
        let daemon = try startDaemon()
        XCTAssertEqual(try daemon.ask("12345Aabcde"), "OK 1")
        XCTAssertEqual(try daemon.ask("12345Afghij"), "OK 2")
        try assertRefused([
            (bytes("12345A12345"), "ERR DUP", "add the master PIN"),
            (bytes("12345Aabcde"), "ERR DUP", "add an existing PIN"),
            (bytes("12345E1fghij"), "ERR DUP", "edit to another slot's PIN"),
            (bytes("12345E112345"), "ERR DUP", "edit to the master PIN"),
            (bytes("12345E1abcde"), "ERR DUP", "edit to the PIN already in that slot"),
        ], daemon: daemon)
    }

    func testFullTable() throws {
        try initTable(slots: 2)
        let daemon = try startDaemon()
        XCTAssertEqual(try daemon.ask("12345Aabcde"), "OK 1")
        XCTAssertEqual(readBytes(pinsPath), expectedImage(slots(capacity: 2, [1: "abcde"])))
        try assertRefused([
            (bytes("12345Afghij"), "ERR FULL", "add to a full table"),
            (bytes("12345E2fghij"), "ERR SLOT", "edit slot 2 of a 2-slot table"),
        ], daemon: daemon)
        // Deleting makes room again.
        XCTAssertEqual(try daemon.ask("12345D1"), "OK")
        XCTAssertEqual(try daemon.ask("12345Afghij"), "OK 1")
    }

    /// A line over 64 bytes is one `ERR FORMAT` (not one per chunk), and the next line on the same
    /// connection is judged normally. CRLF endings are accepted.
    func testOverlongLinesAndLineEndings() throws {
        try initTable()
        let daemon = try startDaemon()
        let trace = try daemon.trace()
        let table = readBytes(pinsPath)
        let client = try daemon.connect()

        // 65 bytes that start like a valid open: refused as a whole, and nothing pressed.
        let overlong65 = bytes("12345O=1") + [UInt8](repeating: UInt8(ascii: "x"), count: 57)
        XCTAssertEqual(overlong65.count, 65)
        try client.send(overlong65 + [0x0A] + bytes("12345S\n"))
        XCTAssertEqual(try client.readRecord(), "ERR FORMAT")
        XCTAssertEqual(try client.readRecord(), "S CLOSED")

        // 10 000 bytes in one packet (more than a packet may hold): one ERR FORMAT for the whole
        // packet, then the next packet is judged.
        try client.send([UInt8](repeating: UInt8(ascii: "7"), count: 10_000) + [0x0A] + bytes("12345O=1\n"))
        try client.send(bytes("12345S\n"))
        XCTAssertEqual(try client.readRecord(), "ERR FORMAT")
        XCTAssertEqual(try client.readRecord(), "S CLOSED", "nothing of the oversized packet was judged, its open included")

        // Exactly 64 bytes is short enough for the framer, and refused by the codec: one record.
        try client.send([UInt8](repeating: UInt8(ascii: " "), count: 64) + bytes("\r\n12345S\r\n"))
        XCTAssertEqual(try client.readRecord(), "ERR FORMAT")
        XCTAssertEqual(try client.readRecord(), "S CLOSED", "CRLF line")
        XCTAssertEqual(try client.availableRecords(), [], "one record per line")

        XCTAssertEqual(try daemon.trace(), trace)
        XCTAssertEqual(readBytes(pinsPath), table)

        // A CRLF request that acts: the press happens and the table change is made.
        XCTAssertEqual(try client.request(bytes("12345Aabcde\r")), ["OK 1"])
        XCTAssertEqual(try client.request(bytes("12345P\r")), ["1=abcde", "OK 1"])
        XCTAssertEqual(try client.request(bytes("12345O=1\r")), ["OK"])
        let after = try waitForTrace(daemon, count: 3)
        XCTAssertEqual(after.map(\.level), [0, 1, 0])
    }

    /// A few hundred KB of random bytes (seeded, so a failure reproduces) on one connection, in
    /// packets of random sizes: one error record per line the framer sees, no crash, no press,
    /// no table change, and a valid request afterwards on the same and on a new connection is
    /// answered.
    func testGarbageFloodIsSurvived() throws {
        try initTable()
        let daemon = try startDaemon()
        let trace = try daemon.trace()
        let table = readBytes(pinsPath)

        var rng = SplitMix64(seed: 0x6172_6167_6564)
        var garbage = [UInt8](repeating: 0, count: 300_000)
        for i in garbage.indices { garbage[i] = UInt8(truncatingIfNeeded: rng.next()) }
        // Lines of every length, not only the ~256-byte ones uniform bytes give: sprinkle LFs.
        for _ in 0..<3000 { garbage[Int(rng.next() % UInt64(garbage.count))] = 0x0A }
        var packets: [[UInt8]] = []
        var at = 0
        while at < garbage.count {
            let n = min(garbage.count - at, 1 + Int(rng.next() % 4096))
            packets.append(Array(garbage[at..<(at + n)]))
            at += n
        }
        let expected = packets.map(expectedRecordCount).reduce(0, +)

        let client = try daemon.connect()
        for p in packets { try client.send(p, timeout: .seconds(20)) }
        try client.sendLine(bytes("12345S"))
        var records: [String] = []
        while records.last != "S CLOSED" {
            records.append(try client.readRecord(timeout: .seconds(10)))
        }
        let errors = records.dropLast()
        XCTAssertEqual(errors.count, expected, "one record per line")
        let allowed: Set<String> = ["ERR FORMAT", "ERR CMD", "ERR PIN"]
        let unexpected = errors.filter { !allowed.contains($0) }
        XCTAssertEqual(unexpected, [], "garbage must only ever be refused")
        print("garbage flood: \(garbage.count) bytes in \(packets.count) packets, \(errors.count) error records")

        XCTAssertNil(daemon.process.poll(), "the daemon died")
        XCTAssertEqual(try daemon.ask("12345S"), "S CLOSED", "a new connection is answered")
        XCTAssertEqual(try daemon.trace(), trace, "garbage touched the relay")
        XCTAssertEqual(readBytes(pinsPath), table, "garbage changed the table")
    }

    /// Many connections at once, each sending a packet of garbage and then asking for status:
    /// every one gets both answers (the daemon serves clients fairly and frames each apart).
    func testManyConcurrentConnectionsEachGetTheirAnswer() throws {
        try initTable()
        let daemon = try startDaemon()
        let clients = try (0..<32).map { _ in try daemon.connect() }
        for (i, c) in clients.enumerated() {
            // A packet without LF is a line of its own: it never joins the next packet.
            try c.send([UInt8](repeating: UInt8(ascii: " "), count: 30 + i))
        }
        for c in clients { try c.send(bytes("12345S")) }
        for c in clients {
            XCTAssertEqual(try c.readRecord(), "ERR FORMAT")
            XCTAssertEqual(try c.readRecord(), "S CLOSED")
        }
    }

    /// How many records the framing rules in docs/protocol.md give for one packet: one per line
    /// of at most 64 bytes (LF or the packet's end ends it; a CR before the end not counted),
    /// and one per overlong line, whose bytes are then skipped up to the next LF or the end of
    /// the packet. Written here from the spec, not taken from the daemon's code.
    private func expectedRecordCount(_ packet: [UInt8]) -> Int {
        var count = 0, length = 0, skipping = false
        for b in packet {
            if b == 0x0A {
                if !skipping { count += 1 }
                skipping = false
                length = 0
            } else if !skipping {
                length += 1
                if length > 65 || (length == 65 && b != 0x0D) {
                    count += 1
                    skipping = true
                }
            }
        }
        if !skipping && length > 0 { count += 1 }
        return count
    }
}

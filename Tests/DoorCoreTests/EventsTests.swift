import XCTest
@testable import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
#endif

/// The event record framing and the bounded two-file history, on real files in /tmp.
final class EventsTests: XCTestCase {
    private var dir = ""

    override func setUpWithError() throws {
        var template = Array("/tmp/garaged-ev.XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else { throw XCTSkip("mkdtemp failed") }
        dir = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    override func tearDown() {
        for name in ["events", "events.1"] { unlink(dir + "/" + name) }
        rmdir(dir)
    }

    /// Every sound record the files hold, oldest first (FILE.1 then FILE), and the lines
    /// skipped: what the daemon's history starts from (`EventHistoryFile.read`).
    private func contents(_ file: EventHistoryFile) throws -> (records: [EventRecord], skipped: Int) {
        let r = try file.read()
        return (r.older + r.current, r.skipped)
    }

    private func record(_ i: Int, kind: EventRecord.Kind = .open) -> EventRecord {
        EventRecord(time: 1_795_000_000_000 + Int64(i), kind: kind, source: "local uid=0", slot: i % 16,
                    label: i % 2 == 0 ? "Zoë \"Z\"\t\(i)" : nil, detail: "pressed")
    }

    func testCRC32MatchesTheStandardCheckValue() {
        XCTAssertEqual(CRC32.checksum(Array("123456789".utf8)), 0xCBF4_3926)
    }

    func testARecordRoundTripsAndALineIsOneRecord() {
        for i in 0..<4 {
            let bytes = EventCodec.encode(record(i))
            XCTAssertEqual(bytes.last, 0x0A)
            XCTAssertEqual(bytes.filter { $0 == 0x0A }.count, 1, "a label with a tab or quote stays on one line")
            XCTAssertEqual(EventCodec.decode(line: bytes.dropLast()), record(i))
        }
    }

    func testAFlippedBitOrATornTailIsSkippedAndCounted() {
        var bytes = EventCodec.encode(record(1)) + EventCodec.encode(record(2)) + EventCodec.encode(record(3))
        let second = EventCodec.encode(record(1)).count + 20
        bytes[second] ^= 0x01
        let torn = Array(EventCodec.encode(record(4)).prefix(30))
        let got = EventCodec.decodeAll(bytes + torn)
        XCTAssertEqual(got.records, [record(1), record(3)])
        XCTAssertEqual(got.skipped, 2)
        XCTAssertEqual(EventCodec.decodeAll([]).skipped, 0)
    }

    func testTheHistoryRotatesSoTheOldestGoFirstAndItStaysBounded() throws {
        let file = EventHistoryFile(path: dir + "/events", maxBytes: 4096)
        for i in 0..<400 { try file.append([record(i)]) }
        var st = stat()
        XCTAssertEqual(stat(file.path, &st), 0)
        XCTAssertLessThanOrEqual(Int(st.st_size), 4096)
        XCTAssertEqual(stat(file.olderPath, &st), 0)
        XCTAssertLessThanOrEqual(Int(st.st_size), 4096)
        let (records, skipped) = try contents(file)
        XCTAssertEqual(skipped, 0)
        XCTAssertEqual(records.last, record(399))
        XCTAssertEqual(records, (400 - records.count..<400).map { record($0) }, "the newest, in order, none missing")
        XCTAssertGreaterThan(records.count, 4096 / 140, "at least one file's worth kept")
    }

    func testAnAppendAfterATornTailStartsOnALineOfItsOwn() throws {
        let path = dir + "/events"
        let first = EventHistoryFile(path: path)
        try first.append([record(1)])
        first.close()
        // What a crash mid-append leaves: the start of a record, no newline.
        let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(fd, 0)
        let torn = Array(EventCodec.encode(record(2)).prefix(25))
        XCTAssertEqual(torn.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }, 25)
        close(fd)
        let second = EventHistoryFile(path: path)
        try second.append([record(3)])
        let (records, skipped) = try contents(second)
        XCTAssertEqual(records, [record(1), record(3)])
        XCTAssertEqual(skipped, 1)
    }

    func testTheInMemoryHistoryHoldsExactlyWhatTheFilesHold() throws {
        let file = EventHistoryFile(path: dir + "/events", maxBytes: 2000)
        var history = EventHistory(maxBytesPerFile: 2000)
        // Batches of 1 to 5 records, as the writer thread takes them off its queue.
        for i in 0..<300 {
            let batch = (0..<(i % 5 + 1)).map { record(i * 10 + $0) }
            try file.append(batch)
            for r in batch { history.append(r) }
            if i % 37 == 0 {
                XCTAssertEqual(Array(history.since(nil)), try contents(file).records, "after record \(i)")
                // A restart starts from the files and carries on in step.
                history = try file.history().0
            }
        }
        XCTAssertEqual(Array(history.since(nil)), try contents(file).records)
        XCTAssertEqual(history.since(1_795_000_000_000 + 2991).count, 4)
    }

    /// The cost the event writer thread pays per record (never the relay thread): an append
    /// with fdatasync, on whatever disk /tmp is here.
    func testAppendCostIsMeasured() throws {
        let file = EventHistoryFile(path: dir + "/events")
        let n = 200
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        let start = Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
        for i in 0..<n { try file.append([record(i)]) }
        clock_gettime(CLOCK_MONOTONIC, &ts)
        let perAppend = Double(Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec) - start) / Double(n) / 1000
        print("event append with fdatasync: \(Int(perAppend)) µs per record (\(n) records, \(EventCodec.encode(record(0)).count) bytes each)")
        XCTAssertEqual(try contents(file).records.count, n)
    }
}

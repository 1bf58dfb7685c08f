import XCTest
@testable import DoorCore
@testable import DoorSystem

/// The pure halves of the owner's tools: the EEPROM-dump importer, the JSON backup, the labels
/// sidecar codec, the small JSON, `--since` parsing, and the local-socket extensions.
final class ImportTests: XCTestCase {
    private func dump(_ slots: [Int: [UInt8]]) -> [UInt8] {
        var e = [UInt8](repeating: 0xFF, count: 1024)
        for (slot, bytes) in slots { e.replaceSubrange(slot * 6..<slot * 6 + 6, with: bytes) }
        return e
    }
    private func used(_ pin: String) -> [UInt8] { [1] + Array(pin.utf8) }
    private let zero = [UInt8](repeating: 0, count: 6)

    func testADumpWithNeverWrittenSlotsInsideImportsThemAsFree() throws {
        let r = try EEPROMDump.read(dump([0: used("12345"), 1: zero, 2: [0] + Array("olddd".utf8), 5: used("abcde")]))
        XCTAssertEqual(r.table.capacity, 6)
        XCTAssertEqual(r.used, [5])
        XCTAssertEqual(r.zeroed, 2)
        XCTAssertEqual(r.neverWritten, 2)
        XCTAssertEqual(r.table.slot(of: pin("abcde")), 5)
        XCTAssertEqual(try EEPROMLayout.decode(EEPROMLayout.encode(r.table)), r.table, "the result is a valid table file")
    }

    func testDumpsThatAreNotTheBooksLayoutAreRefusedWithTheReason() {
        func refusal(_ bytes: [UInt8], capacity: Int? = nil) -> EEPROMDumpError? {
            do { _ = try EEPROMDump.read(bytes, capacity: capacity); return nil } catch { return error }
        }
        XCTAssertEqual(refusal([1, 2, 3]), .wrongSize(3))
        XCTAssertEqual(refusal(Array(":1000".utf8)), .intelHex)
        XCTAssertEqual(refusal(dump([:])), .blank)
        XCTAssertEqual(refusal(dump([0: zero])), .masterFree)
        XCTAssertEqual(refusal(dump([0: used("12345"), 2: [2, 0, 0, 0, 0, 0]])), .badFlag(slot: 2, offset: 12, value: 2))
        XCTAssertEqual(refusal(dump([0: used("12345"), 1: [1, 0x41, 0x20, 0x41, 0x41, 0x41]])), .badPINByte(slot: 1, offset: 8, value: 0x20))
        XCTAssertEqual(refusal(dump([0: used("12345"), 1: [0xFF, 0, 0xFF, 0xFF, 0xFF, 0xFF]])), .strayByte(slot: 1, offset: 7, value: 0))
        XCTAssertEqual(refusal(dump([0: used("12345"), 1: used("12345")])), .duplicate(slot: 1, sameAs: 0))
        XCTAssertEqual(refusal(dump([0: used("12345"), 4: zero]), capacity: 3), .capacityTooSmall(requested: 3, needed: 5))
        var tail = dump([0: used("12345")])
        tail[1021] = 0
        XCTAssertEqual(refusal(tail), .strayByte(slot: nil, offset: 1021, value: 0))
        XCTAssertTrue(EEPROMDumpError.wrongSize(3).description.contains("avrdude"))
    }

    func testABackupRoundTripsAndAMistakeNamesItsField() throws {
        var table = try PinTable(master: pin("12345"), capacity: 8)
        try table.put(pin("abcde"), inSlot: 3)
        try table.put(pin("x\"y\\z"), inSlot: 7)
        let labels = Labels([3: "Alice", 7: "Zoë"])
        let access = DoorAccess([3: ["left", "shed"]])
        let text = TableBackup.text(table, labels: labels, access: access)
        let back = try TableBackup.decode(text)
        XCTAssertEqual(back.table, table)
        XCTAssertEqual(back.labels, labels)
        XCTAssertEqual(back.access, access)
        XCTAssertEqual(try TableBackup.decode(TableBackup.encode(table, labels: labels, access: access).serialized).table, table)
        // A version 1 backup (before door limits) still reads, and says it knows no limits.
        let v1 = try TableBackup.decode(#"{"format":"garaged-pins","version":1,"slots":8,"master":"12345","pins":[{"slot":3,"pin":"abcde"}]}"#)
        XCTAssertEqual(v1.table.slots[3], pin("abcde"))
        XCTAssertNil(v1.access)

        func refusal(_ text: String) -> String? {
            do { _ = try TableBackup.decode(text); return nil } catch { return error.description }
        }
        let head = #"{"format":"garaged-pins","version":1,"slots":4,"master":"12345","pins":"#
        XCTAssertEqual(refusal("{"), "not valid JSON: expected a key in quotes at byte 1")
        XCTAssertTrue(refusal(#"{"format":"x"}"#)?.hasPrefix("format ") == true)
        XCTAssertTrue(refusal(head + #"[{"slot":4,"pin":"abcde"}]}"#)?.hasPrefix("pins[0].slot ") == true)
        XCTAssertTrue(refusal(head + #"[{"slot":1,"pin":"abc"}]}"#)?.hasPrefix("pins[0].pin ") == true)
        XCTAssertTrue(refusal(head + #"[{"slot":1,"pin":"abcde"},{"slot":2,"pin":"abcde"}]}"#)?.contains("already stored in slot 1") == true)
        XCTAssertTrue(refusal(head + #"[{"slot":1,"pin":"abcde"},{"slot":1,"pin":"fghij"}]}"#)?.contains("appears twice") == true)
        XCTAssertTrue(refusal(head + #"[{"slot":1,"pin":"abcde","label":"a\nb"}]}"#)?.hasPrefix("pins[0].label ") == true)
        XCTAssertTrue(refusal(head + #"[{"slot":1,"pin":"abcde","doors":["left"]}]}"#)?.hasPrefix("pins[0].doors needs version 2") == true)
        let head2 = head.replacingOccurrences(of: #""version":1"#, with: #""version":2"#)
        for bad in [#"[]"#, #""left""#, #"["Left"]"#, #"["2"]"#, #"["left",3]"#] {
            XCTAssertTrue(refusal(head2 + #"[{"slot":1,"pin":"abcde","doors":"# + bad + "}]}")?.hasPrefix("pins[0].doors must be") == true, bad)
        }
        XCTAssertTrue(refusal(head.replacingOccurrences(of: #""version":1"#, with: #""version":3"#) + "[]}")?.hasPrefix("version ") == true)
    }

    func testTheLabelsSidecarRoundTripsAndRefusesABadLine() throws {
        let labels = Labels([1: "Alice", 12: "Bob the Builder", 3: "Zoë"])
        XCTAssertEqual(try Labels.decode(labels.encoded()), labels)
        XCTAssertEqual(try Labels.decode([]), Labels())
        XCTAssertThrowsError(try Labels.decode(Array("1\tA\nx\tB\n".utf8))) { error in
            XCTAssertEqual((error as? LabelsError)?.description.hasPrefix("line 2: "), true)
        }
        XCTAssertNotNil(Labels.problem(with: String(repeating: "é", count: 17)), "34 bytes")
        XCTAssertNil(Labels.problem(with: String(repeating: "é", count: 16)))
        XCTAssertNotNil(Labels.problem(with: " Alice"))
        // C1 controls and the characters that reorder or hide text are refused; emoji and
        // scripts of every kind (joiners included) are not.
        for bad in ["Al\u{85}ice", "Al\u{9B}ice", "Al\u{7F}ice", "\u{202E}ecilA", "Al\u{2066}ice\u{2069}", "A\u{200F}",
                    "Al\u{2028}ice", "\u{FEFF}Alice", "A\u{061C}b"] {
            XCTAssertNotNil(Labels.problem(with: bad), bad.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " "))
        }
        for good in ["Zoë", "👨‍👩‍👧", "אליס", "Ålice ☂", "José María"] {
            XCTAssertNil(Labels.problem(with: good), good)
        }
        var table = try PinTable(master: pin("12345"), capacity: 4)
        try table.put(pin("abcde"), inSlot: 1)
        XCTAssertEqual(Labels([1: "A", 2: "B", 40: "C"]).pruned(to: table), Labels([1: "A"]))
    }

    func testJSONEscapesRoundTrip() throws {
        let value = JSONValue.object([("s", .string("a\"b\\c\n\u{1}é😀")), ("n", .number(-42)), ("b", .bool(true)),
                                      ("z", .null), ("a", .array([.number(1), .string("")]))])
        XCTAssertEqual(try JSONParser.parse(value.serialized), value)
        XCTAssertEqual(JSONValue.string("local uid=0 é😀").serialized, #""local uid=0 é😀""#, "nothing to escape: written whole")
        XCTAssertEqual(JSONValue.string("a\u{7F}b\tc").serialized, #""a\u007fb\tc""#)
        XCTAssertEqual(try JSONParser.parse(#" {"k" : "\u00e9\ud83d\ude00" } "#)["k"], .string("é😀"))
        XCTAssertThrowsError(try JSONParser.parse("1.5"))
        XCTAssertThrowsError(try JSONParser.parse("[1,]"))
        XCTAssertThrowsError(try JSONParser.parse("{} x"))
    }

    func testTheLogStampAndTheTimeOfDayAreTheDateTimesOwnDigits() {
        let noon = WallTime.parseDate("2026-03-04 05:06:07")!
        XCTAssertEqual(WallTime.format(noon), "2026-03-04 05:06:07", "every part zero-padded to two digits")
        XCTAssertEqual(WallTime.format(noon + 7, .logStamp), "2026-03-04T05:06:07.007")
        XCTAssertEqual(WallTime.format(noon + 45, .logStamp), "2026-03-04T05:06:07.045")
        XCTAssertEqual(WallTime.format(noon + 999, .logStamp), "2026-03-04T05:06:07.999")
        XCTAssertEqual(WallTime.format(noon + 999, .timeOfDay), "05:06:07")
        let evening = WallTime.parseDate("2026-12-31 23:59:59")!
        XCTAssertEqual(WallTime.format(evening + 120, .logStamp), "2026-12-31T23:59:59.120")
    }

    func testSinceAcceptsWhatPeopleType() {
        let now = WallTime.parseDate("2026-11-22 14:30")!
        XCTAssertEqual(WallTime.parseSince("1h", now: now), now - 3_600_000)
        XCTAssertEqual(WallTime.parseSince("30m", now: now), now - 1_800_000)
        XCTAssertEqual(WallTime.parseSince("today", now: now), WallTime.parseDate("2026-11-22"))
        XCTAssertEqual(WallTime.parseSince("yesterday", now: now), WallTime.parseDate("2026-11-21"))
        XCTAssertEqual(WallTime.parseSince("2026-11-22T08:00", now: now), WallTime.parseDate("2026-11-22 08:00:00"))
        XCTAssertEqual(WallTime.format(WallTime.parseSince("2026-11-22T08:00:30", now: now)!), "2026-11-22 08:00:30")
        for bad in ["", "h", "1x", "2026-13-01", "2026-11-22T25:00", "last tuesday", "-1h"] {
            XCTAssertNil(WallTime.parseSince(bad, now: now), bad)
        }
    }
}

import XCTest
@testable import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
#endif

final class PinTableTests: XCTestCase {
    func testAddFillsTheFirstFreeSlotAndRefusesDuplicatesAndFull() throws {
        var table = try PinTable(master: pin("12345"), capacity: 3)
        XCTAssertEqual(try table.add(pin("11111")), 1)
        XCTAssertEqual(try table.add(pin("22222")), 2)
        XCTAssertThrowsError(try table.add(pin("33333"))) { XCTAssertEqual($0 as? ErrorCode, .full) }
        try table.delete(slot: 1)
        XCTAssertThrowsError(try table.add(pin("12345"))) { XCTAssertEqual($0 as? ErrorCode, .duplicate) }
        XCTAssertThrowsError(try table.add(pin("22222"))) { XCTAssertEqual($0 as? ErrorCode, .duplicate) }
        XCTAssertEqual(try table.add(pin("33333")), 1)
    }

    func testEditAndDeleteRefuseMasterFreeAndOutOfRangeSlots() throws {
        var table = try PinTable(master: pin("12345"), capacity: 4)
        _ = try table.add(pin("11111"))
        let before = table
        for slot in [0, 2, 4, 99, -1] {
            XCTAssertThrowsError(try table.edit(slot: slot, to: pin("99999"))) { XCTAssertEqual($0 as? ErrorCode, .slot) }
            XCTAssertThrowsError(try table.delete(slot: slot)) { XCTAssertEqual($0 as? ErrorCode, .slot) }
        }
        XCTAssertThrowsError(try table.edit(slot: 1, to: pin("12345"))) { XCTAssertEqual($0 as? ErrorCode, .duplicate) }
        XCTAssertEqual(table, before, "refused changes change nothing")
        try table.edit(slot: 1, to: pin("77777"))
        XCTAssertEqual(table.slot(of: pin("77777")), 1)
        XCTAssertNil(table.slot(of: pin("11111")))
    }

    func testCapacityBounds() {
        XCTAssertThrowsError(try PinTable(master: pin("12345"), capacity: 0))
        XCTAssertThrowsError(try PinTable(master: pin("12345"), capacity: 171))
        XCTAssertNoThrow(try PinTable(master: pin("12345"), capacity: 170))
    }
}

final class EEPROMLayoutTests: XCTestCase {
    /// The book's first-time initialisation, byte by byte: zero 6*N bytes, then slot 0 = 1,'1'..'5'.
    private func bookImage(slots: Int) -> [UInt8] {
        var eeprom = [UInt8](repeating: 0xFF, count: 1024)
        for i in 0..<(6 * slots) { eeprom[i] = 0 }
        eeprom[0] = 1
        eeprom.replaceSubrange(1...5, with: Array("12345".utf8))
        return eeprom
    }

    func testANewTableIsByteExactWithTheBooksInitialisation() throws {
        let table = try PinTable(master: pin("12345"), capacity: 16)
        XCTAssertEqual(EEPROMLayout.encode(table), bookImage(slots: 16))
    }

    func testUsedAndFreedSlotsAsTheSketchWritesThem() throws {
        var table = try PinTable(master: pin("12345"), capacity: 16)
        _ = try table.add(pin("aaaaa"))
        _ = try table.add(pin("bbbbb"))
        try table.delete(slot: 1)
        var expected = bookImage(slots: 16)
        expected[12] = 1
        expected.replaceSubrange(13...17, with: Array("bbbbb".utf8))
        XCTAssertEqual(EEPROMLayout.encode(table), expected)
    }

    func testRoundTripsAtEveryCapacity() throws {
        for capacity in [1, 2, 16, 47, 169, 170] {
            var table = try PinTable(master: pin("M0000"), capacity: capacity)
            for i in stride(from: 1, to: capacity, by: 2) { _ = try table.add(PIN("p\(String(i).padded(4))")!) }
            let bytes = EEPROMLayout.encode(table)
            XCTAssertEqual(bytes.count, 1024)
            XCTAssertEqual(try EEPROMLayout.decode(bytes), table)
        }
    }

    func testCorruptImagesNameTheSlot() {
        var bad = bookImage(slots: 16)
        bad[18] = 7
        XCTAssertThrowsError(try EEPROMLayout.decode(bad)) {
            XCTAssertEqual($0 as? PinTableError, .badFlag(slot: 3, offset: 18, value: 7))
            XCTAssertTrue("\($0)".contains("slot 3"))
        }
        var freeMaster = bookImage(slots: 16)
        freeMaster[0] = 0
        XCTAssertThrowsError(try EEPROMLayout.decode(freeMaster)) { XCTAssertEqual($0 as? PinTableError, .masterFree) }
        var badPIN = bookImage(slots: 16)
        badPIN[6] = 1
        badPIN.replaceSubrange(7...11, with: Array("a bcd".utf8))
        XCTAssertThrowsError(try EEPROMLayout.decode(badPIN)) {
            XCTAssertEqual($0 as? PinTableError, .badPINByte(slot: 1, offset: 8, value: 0x20))
        }
        var stray = bookImage(slots: 16)
        stray[1000] = 0
        XCTAssertThrowsError(try EEPROMLayout.decode(stray)) {
            XCTAssertEqual($0 as? PinTableError, .garbageAfterTable(slots: 16, offset: 1000, value: 0))
        }
        XCTAssertThrowsError(try EEPROMLayout.decode(Array(bookImage(slots: 16).prefix(1023)))) {
            XCTAssertEqual($0 as? PinTableError, .wrongSize(1023))
        }
        XCTAssertThrowsError(try EEPROMLayout.decode([UInt8](repeating: 0xFF, count: 1024)))
    }
}

final class PinTableFileTests: XCTestCase {
    private var dir = ""

    override func setUp() {
        var template = Array("/tmp/doorcore-test.XXXXXX".utf8CString)
        dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    override func tearDown() {
        _ = system("rm -rf '\(dir)'")
    }

    private func bytes(_ path: String) -> [UInt8] {
        guard let f = fopen(path, "rb") else { return [] }
        defer { fclose(f) }
        var out = [UInt8](repeating: 0, count: 4096)
        let n = fread(&out, 1, out.count, f)
        return Array(out.prefix(n))
    }

    func testSaveThenLoadIsExactAndPrivate() throws {
        let file = PinTableFile(path: dir + "/pins")
        var table = try PinTable(master: pin("12345"))
        _ = try table.add(pin("abcde"))
        try file.create(table, force: false)
        XCTAssertEqual(bytes(file.path), EEPROMLayout.encode(table))
        XCTAssertEqual(try file.load(), table)
        var st = stat()
        stat(file.path, &st)
        XCTAssertEqual(st.st_mode & 0o777, 0o600)
        // No temporary files left behind.
        XCTAssertEqual(try FileManagerless.list(dir).sorted(), ["pins"])
    }

    func testCreateRefusesToOverwriteWithoutForce() throws {
        let file = PinTableFile(path: dir + "/pins")
        try file.create(try PinTable(master: pin("12345")), force: false)
        XCTAssertThrowsError(try file.create(try PinTable(master: pin("54321")), force: false)) {
            XCTAssertTrue("\($0)".contains("--force"))
        }
        XCTAssertEqual(try file.load().master, pin("12345"))
        try file.create(try PinTable(master: pin("54321")), force: true)
        XCTAssertEqual(try file.load().master, pin("54321"))
    }

    func testMissingShortAndCorruptFilesAreErrorsThatNameTheFix() throws {
        let file = PinTableFile(path: dir + "/pins")
        XCTAssertThrowsError(try file.load()) { XCTAssertTrue("\($0)".contains("garage-pins init")) }
        _ = system("head -c 100 /dev/zero > '\(file.path)'")
        XCTAssertThrowsError(try file.load()) {
            XCTAssertTrue("\($0)".contains("100 bytes"))
            XCTAssertTrue("\($0)".contains(file.path))
        }
        var image = EEPROMLayout.encode(try PinTable(master: pin("12345")))
        image[18] = 9
        let f = fopen(file.path, "wb")!
        fwrite(image, 1, image.count, f)
        fclose(f)
        XCTAssertThrowsError(try file.load()) {
            XCTAssertTrue("\($0)".contains("slot 3"))
            XCTAssertTrue("\($0)".contains("--force"))
        }
        XCTAssertEqual(bytes(file.path), image, "loading never rewrites a corrupt table")
    }
}

/// Directory listing without Foundation.
enum FileManagerless {
    static func list(_ dir: String) throws -> [String] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var names: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}

extension String {
    func padded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

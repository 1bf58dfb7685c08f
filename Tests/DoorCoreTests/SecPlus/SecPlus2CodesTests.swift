import XCTest
import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
#endif

/// The rolling codes kept beside the table (issue 31, item 7), on real files in /tmp: a block is on
/// disk before any of its codes is handed out, so a start after a kill at any point resumes above
/// every code that could have been sent.
final class SecPlus2CodesTests: XCTestCase {
    private var dir = ""
    private var file: SecPlus2CodesFile { SecPlus2CodesFile(tablePath: dir + "/pins") }

    override func setUpWithError() throws {
        var template = Array("/tmp/garaged-codes.XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else { throw XCTSkip("mkdtemp failed") }
        dir = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    override func tearDown() {
        if let d = opendir(dir) {
            while let e = readdir(d) {
                let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name != "." && name != ".." { unlink(dir + "/" + name) }
            }
            closedir(d)
        }
        rmdir(dir)
    }

    func testTheFileNamesFollowTheTable() {
        XCTAssertEqual(SecPlus2CodesFile(tablePath: "/var/lib/garaged/pins").path, "/var/lib/garaged/pins.opener")
        XCTAssertEqual(SecPlus2CodesFile(tablePath: "/var/lib/garaged/pins", door: "gate").path, "/var/lib/garaged/pins.gate.opener")
    }

    func testNothingIsWrittenUntilTheFirstCodeAndThenAWholeBlockIsReserved() throws {
        let codes = try SecPlus2Codes(file: file)
        XCTAssertNil(try file.load(), "choosing a client id writes nothing")
        XCTAssertEqual(codes.client.value & 0xFFF, 0x539)
        XCTAssertEqual(try codes.take(), 1)
        XCTAssertEqual(try file.load(), .init(client: codes.client, reservedBelow: 1 + SecPlus2Codes.block),
                       "the block is on disk before its first code is handed out")
        for expected in UInt32(2)...SecPlus2Codes.block { XCTAssertEqual(try codes.take(), expected) }
        XCTAssertEqual(try file.load()?.reservedBelow, 1 + SecPlus2Codes.block, "one save per block")
        XCTAssertEqual(try codes.take(), 1 + SecPlus2Codes.block)
        XCTAssertEqual(try file.load()?.reservedBelow, 1 + 2 * SecPlus2Codes.block, "the next block, reserved as it starts")
    }

    /// A kill is a new SecPlus2Codes from the file with nothing saved on the way out: whatever was
    /// taken before, the next code is above all of them and the client id is the same (from the
    /// first code on: a start that sent nothing keeps nothing, and needs not).
    func testAfterAKillAtAnyPointTheNextCodeIsAboveEveryCodeUsed() throws {
        var used: [UInt32] = []
        var client: SecPlus2ClientID?
        for taken in [1, 0, 5, 63, 64, 65, 130, 2] {
            let codes = try SecPlus2Codes(file: file)
            if let client { XCTAssertEqual(codes.client, client, "the client id is kept") }
            client = codes.client
            for _ in 0..<taken { used.append(try codes.take()) }
            // killed here: nothing more is written
        }
        let next = try SecPlus2Codes(file: file).take()
        XCTAssertGreaterThan(next, used.max() ?? 0, "after \(used.count) codes over 8 kills")
        XCTAssertEqual(Set(used).count, used.count, "no code twice")
        XCTAssertEqual(used, used.sorted(), "codes only go up")
    }

    func testTheEndOfTheCodesIsRefusedNotWrapped() throws {
        try file.save(.init(client: SecPlus2ClientID(0x1234_5539), reservedBelow: SecPlus2Packet.rollingLimit - 1))
        let codes = try SecPlus2Codes(file: file)
        XCTAssertThrowsError(try codes.take()) { error in
            XCTAssertTrue("\(error)".contains("2^28"), "\(error)")
            XCTAssertTrue("\(error)".contains("remove the file"), "says what to do: \(error)")
        }
        XCTAssertEqual(try file.load()?.reservedBelow, SecPlus2Packet.rollingLimit - 1, "the file is left as it was")
    }

    func testADamagedFileIsRefusedSayingWhatToDo() throws {
        let fd = open(file.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        _ = "client 0x12345539\nreserved-below lots\n".withCString { write(fd, $0, strlen($0)) }
        close(fd)
        XCTAssertThrowsError(try SecPlus2Codes(file: file)) { error in
            XCTAssertTrue("\(error)".contains("reserved-below"), "\(error)")
            XCTAssertTrue("\(error)".contains("restore it from a backup"), "\(error)")
        }
    }
}

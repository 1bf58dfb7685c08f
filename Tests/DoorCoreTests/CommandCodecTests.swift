import XCTest
@testable import DoorCore

final class CommandCodecTests: XCTestCase {
    private func decode(_ s: String) -> Result<Request, ErrorCode> { CommandCodec.decode(Array(s.utf8)) }
    private func decode(_ b: [UInt8]) -> Result<Request, ErrorCode> { CommandCodec.decode(b) }

    func testEveryCommand() {
        XCTAssertEqual(decode("12345O=1"), .success(Request(pin: pin("12345"), command: .open)))
        XCTAssertEqual(decode("12345O=0"), .success(Request(pin: pin("12345"), command: .close)))
        XCTAssertEqual(decode("12345S"), .success(Request(pin: pin("12345"), command: .status)))
        XCTAssertEqual(decode("12345P"), .success(Request(pin: pin("12345"), command: .list)))
        XCTAssertEqual(decode("12345Aabcde"), .success(Request(pin: pin("12345"), command: .add(pin("abcde")))))
        XCTAssertEqual(decode("12345E7abcde"), .success(Request(pin: pin("12345"), command: .edit(slot: 7, pin: pin("abcde")))))
        XCTAssertEqual(decode("12345E170abcde"), .success(Request(pin: pin("12345"), command: .edit(slot: 170, pin: pin("abcde")))))
        XCTAssertEqual(decode("12345D3"), .success(Request(pin: pin("12345"), command: .delete(slot: 3))))
        XCTAssertEqual(decode("12345D012"), .success(Request(pin: pin("12345"), command: .delete(slot: 12))))
    }

    func testRawIndexBytesAsTheBookAppSendsThem() {
        XCTAssertEqual(decode(Array("12345E".utf8) + [0x01] + Array("abcde".utf8)),
                       .success(Request(pin: pin("12345"), command: .edit(slot: 1, pin: pin("abcde")))))
        XCTAssertEqual(decode(Array("12345D".utf8) + [0x2F]),
                       .success(Request(pin: pin("12345"), command: .delete(slot: 47))))
        // 0x00 and 0x30+ are not raw indexes; 0x30-0x39 are digits.
        XCTAssertEqual(decode(Array("12345D".utf8) + [0x00]), .failure(.format))
        XCTAssertEqual(decode(Array("12345D".utf8) + [0x3A]), .failure(.format))
        // Slot 0 parses; refusing it is the table's job.
        XCTAssertEqual(decode("12345D0"), .success(Request(pin: pin("12345"), command: .delete(slot: 0))))
    }

    func testTheNewPINIsAlwaysTheLastFiveBytes() {
        // "E" + "12" + "34567": index 12, PIN 34567 (digits in a PIN are fine).
        XCTAssertEqual(decode("12345E1234567"), .success(Request(pin: pin("12345"), command: .edit(slot: 12, pin: pin("34567")))))
        XCTAssertEqual(decode("12345E1234"), .failure(.format))     // no index left
        XCTAssertEqual(decode("12345E1234abcde"), .failure(.format)) // 4-digit index
    }

    func testFormatErrors() {
        for bad in ["", "1234", "12345", "12345O", "12345O=", "12345O=2", "12345O=11", "12345S1",
                    "12345P1", "12345A1234", "12345A123456", "12345Aab de", "12345D", "12345D1234",
                    "12345Dx", "12345E", "12345Eabcde", "1 345O=1"] {
            XCTAssertEqual(decode(bad), .failure(.format), "'\(bad)' should be ERR FORMAT")
        }
        XCTAssertEqual(decode([0x7F, 0x31, 0x32, 0x33, 0x34] + Array("O=1".utf8)), .failure(.format))
        XCTAssertEqual(decode([0x31, 0x00, 0x32, 0x33, 0x34] + Array("O=1".utf8)), .failure(.format))
        XCTAssertEqual(decode([0xC3, 0xA9, 0x32, 0x33, 0x34] + Array("O=1".utf8)), .failure(.format))
    }

    func testUnknownCommandLetters() {
        for letter in ["X", "o", "p", "Z", "=", " "] {
            XCTAssertEqual(decode("12345\(letter)"), .failure(.command), letter)
        }
        XCTAssertEqual(decode(Array("12345".utf8) + [0xFF]), .failure(.command))
    }

    func testEncodeRoundTrips() {
        let requests: [Request] = [
            .init(pin: pin("a!~Zq"), command: .open), .init(pin: pin("12345"), command: .close),
            .init(pin: pin("12345"), command: .status), .init(pin: pin("12345"), command: .list),
            .init(pin: pin("12345"), command: .add(pin("99999"))),
            .init(pin: pin("12345"), command: .edit(slot: 169, pin: pin("xxxxx"))),
            .init(pin: pin("12345"), command: .delete(slot: 5)),
        ]
        for r in requests {
            let bytes = CommandCodec.encode(r)
            XCTAssertLessThanOrEqual(bytes.count, 20, "a request must fit one BLE write")
            XCTAssertEqual(CommandCodec.decode(bytes), .success(r))
        }
    }

    func testRandomBytesNeverCrashAndAlwaysGiveAnAnswer() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let n = Int.random(in: 0...24, using: &rng)
            let bytes = (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
            switch CommandCodec.decode(bytes) {
            case .success(let r): XCTAssertEqual(CommandCodec.decode(CommandCodec.encode(r)), .success(r))
            case .failure(let e): XCTAssert([.format, .command].contains(e))
            }
        }
    }
}

final class ReplyTests: XCTestCase {
    func testRecordsAreAsDocumentedAndFitOneNotification() {
        let cases: [(Reply, String)] = [
            (.ok, "OK"), (.added(slot: 3), "OK 3"), (.listed(count: 2), "OK 2"),
            (.entry(slot: 12, pin: pin("ab~de")), "12=ab~de"),
            (.status(.closed, autoCloseIn: nil), "S CLOSED"), (.status(.open, autoCloseIn: 25), "S OPEN 25"),
            (.status(.closing, autoCloseIn: nil), "S CLOSING"), (.error(.pin), "ERR PIN"),
            (.error(.format), "ERR FORMAT"), (.error(.command), "ERR CMD"), (.error(.slot), "ERR SLOT"),
            (.error(.full), "ERR FULL"), (.error(.duplicate), "ERR DUP"), (.error(.busy), "ERR BUSY"),
            (.locked(seconds: 900), "ERR LOCKED 900"),
        ]
        for (reply, text) in cases {
            XCTAssertEqual(reply.text, text)
            XCTAssertLessThanOrEqual(reply.bytes.count, Reply.maxRecordLength)
        }
        XCTAssertLessThanOrEqual(Reply.status(.opening, autoCloseIn: 86_400 + 300).bytes.count, 20)
        XCTAssertLessThanOrEqual(Reply.entry(slot: 169, pin: pin("abcde")).bytes.count, 20)
        XCTAssertFalse(Reply.entry(slot: 1, pin: pin("abcde")).isFinal)
        XCTAssertTrue(Reply.listed(count: 0).isFinal)
    }

    func testPINsNeverPrintInInterpolation() {
        XCTAssertEqual("\(pin("12345"))", "*****")
    }
}

final class LineFramerTests: XCTestCase {
    func testSplitsLinesAndDropsCR() {
        var f = LineFramer(maxLength: 64)
        XCTAssertEqual(f.feed(Array("12345S\r\n12345P\n123".utf8)),
                       [.line(Array("12345S".utf8)), .line(Array("12345P".utf8))])
        XCTAssertEqual(f.feed(Array("45O=1\n".utf8)), [.line(Array("12345O=1".utf8))])
    }

    func testOverlongLineIsOneErrorAndTheNextLineSurvives() {
        var f = LineFramer(maxLength: 64)
        let long = [UInt8](repeating: 0x41, count: 200)
        XCTAssertEqual(f.feed(long), [.tooLong])
        XCTAssertEqual(f.feed(Array("more\n12345S\n".utf8)), [.line(Array("12345S".utf8))])
    }

    func testExactly64BytesIsALineAnd65IsNot() {
        var f = LineFramer(maxLength: 64)
        let max = [UInt8](repeating: 0x41, count: 64)
        XCTAssertEqual(f.feed(max + [0x0D, 0x0A]), [.line(max)])
        XCTAssertEqual(f.feed(max + [0x0A]), [.line(max)])
        XCTAssertEqual(f.feed(max + [0x41, 0x0A]), [.tooLong])
        XCTAssertEqual(f.feed(max + [0x0D, 0x41, 0x0A]), [.tooLong])
    }

    func testTheEndOfAPacketEndsALineAndForgetsAnOverlongOne() {
        var f = LineFramer(maxLength: 64)
        XCTAssertEqual(f.feed(Array("12345S\n12345O=1".utf8)), [.line(Array("12345S".utf8))])
        XCTAssertEqual(f.endOfPacket(), [.line(Array("12345O=1".utf8))], "a request need not end in LF")
        XCTAssertEqual(f.endOfPacket(), [], "nothing pending")
        XCTAssertEqual(f.feed([UInt8](repeating: 0x41, count: 100)), [.tooLong])
        XCTAssertEqual(f.endOfPacket(), [], "the rest of an overlong line ends with its packet")
        XCTAssertEqual(f.feed(Array("12345P".utf8)) + f.endOfPacket(), [.line(Array("12345P".utf8))],
                       "and the next packet starts clean")
    }

    /// `packet`, which cuts the usual one-line packet where it lies, says what `feed` then
    /// `endOfPacket` say of every packet: short and long, with CR and LF anywhere, around the
    /// length limit, after a packet that left nothing and after one that overflowed.
    func testAPacketIsFramedAsFeedThenEndOfPacket() {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ n: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(seed >> 33) % n
        }
        let alphabet: [UInt8] = [0x41, 0x31, 0x0D, 0x0A, 0x3D]
        for _ in 0..<20_000 {
            let length = [0, 1, 2, 7, 8, 15, 16, 17, 18, 19, 40][next(11)]
            var bytes = (0..<length).map { _ in next(4) == 0 ? alphabet[next(alphabet.count)] : 0x41 }
            if next(3) == 0 { bytes.append(0x0A) }
            var fast = LineFramer(maxLength: 16), slow = LineFramer(maxLength: 16)
            if next(4) == 0 {
                // Left over from an earlier packet: the usual path is not taken then.
                let before = [UInt8](repeating: 0x41, count: next(30))
                _ = fast.feed(before)
                _ = slow.feed(before)
            }
            // `wholeLine` (what the local socket takes first) is the packet's one line, or nil
            // when the packet is not one whole line with nothing carried over.
            let whole = fast.wholeLine(bytes[...])
            let framed = fast.packet(bytes[...])
            XCTAssertEqual(framed, slow.feed(bytes) + slow.endOfPacket(), "\(bytes)")
            if let whole { XCTAssertEqual(framed, [.line(whole)], "\(bytes)") }
            XCTAssertEqual(fast.wholeLine(Array("12345S\n".utf8)[...]), Array("12345S".utf8), "after: \(bytes)")
            XCTAssertEqual(fast.packet(Array("12345S".utf8)[...]), slow.feed(Array("12345S".utf8)) + slow.endOfPacket(),
                           "and the next packet the same: \(bytes)")
        }
    }
}

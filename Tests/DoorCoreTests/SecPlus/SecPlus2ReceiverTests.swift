import XCTest
@testable import DoorCore

/// The wall wire's framer: captures however the reads cut them, noise around them, partial
/// packets that go stale, and syncs inside packets.
final class SecPlus2ReceiverTests: XCTestCase {
    private let captures = SecPlus2Captures.all

    private func packet(_ bytes: [UInt8]) -> SecPlus2Receiver.Item {
        .packet(try! SecPlus2Packet(decoding: bytes), bytes: bytes)
    }

    /// A valid packet whose body carries `55 01 00` (at offset 9): rolling 171966464 is 37
    /// reversed, whose digits make half 2's indicator 00 and half 1's 0x51, and data 0x17140000
    /// puts 55 01 at the end of half 1.
    private let syncInside = SecPlus2Captures.hex("55010051124924924d" + "550100" + "36db6db6d92db6")

    func testEachCaptureSplitAtEveryPosition() {
        for c in captures {
            for cut in 0...c.bytes.count {
                var receiver = SecPlus2Receiver()
                let items = receiver.feed(Array(c.bytes[..<cut]), at: t(0)) + receiver.feed(Array(c.bytes[cut...]), at: t(5))
                XCTAssertEqual(items, [packet(c.bytes)], "rolling \(c.rolling), cut at \(cut)")
            }
            var receiver = SecPlus2Receiver()
            XCTAssertEqual(c.bytes.flatMap { receiver.feed([$0], at: t(1)) }, [packet(c.bytes)], "byte by byte")
        }
    }

    func testBackToBackPackets() {
        var receiver = SecPlus2Receiver()
        XCTAssertEqual(receiver.feed(captures.flatMap(\.bytes), at: t(0)), captures.map { packet($0.bytes) })
        XCTAssertNil(receiver.deadline, "nothing in progress")
    }

    func testNoiseBeforeBetweenAndAfter() {
        let noise: [[UInt8]] = [[0xFF, 0x55, 0x01, 0x02, 0x00, 0x55], [0x00, 0x01, 0x55, 0x55, 0x01], [0x55, 0x01, 0x01, 0x00], [0x55, 0x01]]
        var stream: [UInt8] = []
        for (i, c) in captures.prefix(3).enumerated() { stream += noise[i] + c.bytes }
        stream += noise[3]
        var receiver = SecPlus2Receiver()
        XCTAssertEqual(receiver.feed(stream, at: t(0)), captures.prefix(3).map { packet($0.bytes) })
        // The trailing 55 01 is not a sync yet: nothing is in progress.
        XCTAssertNil(receiver.deadline)
    }

    func testAPartialPacketOlderThan100msIsDropped() {
        let status = SecPlus2Captures.status.bytes, motion = SecPlus2Captures.motion.bytes
        var receiver = SecPlus2Receiver()
        XCTAssertEqual(receiver.feed(Array(status[..<10]), at: t(0)), [])
        XCTAssertEqual(receiver.deadline, t(100))
        XCTAssertEqual(receiver.expire(at: t(100)), [], "exactly 100 ms old is not older")
        XCTAssertEqual(receiver.feed(motion, at: t(101)), [.dropped(Array(status[..<10])), packet(motion)])

        // The same without bytes to come: the caller's wait ends at the deadline.
        XCTAssertEqual(receiver.feed(Array(status[..<4]), at: t(200)), [])
        XCTAssertEqual(receiver.expire(at: t(301)), [.dropped(Array(status[..<4]))])
        XCTAssertNil(receiver.deadline)
        XCTAssertEqual(receiver.feed(status, at: t(302)), [packet(status)])
    }

    func testAPacketThatTakes100msStillCounts() {
        let status = SecPlus2Captures.status.bytes
        var receiver = SecPlus2Receiver()
        XCTAssertEqual(receiver.feed(Array(status[..<1]), at: t(0)), [])
        XCTAssertEqual(receiver.feed(Array(status[1..<18]), at: t(60)), [])
        XCTAssertEqual(receiver.feed(Array(status[18...]), at: t(100)), [packet(status)])
    }

    func testTheAgeCountsFromTheSyncsFirstByte() {
        let status = SecPlus2Captures.status.bytes
        var receiver = SecPlus2Receiver()
        XCTAssertEqual(receiver.feed([0x55], at: t(0)), [])
        XCTAssertEqual(receiver.feed(Array(status[1..<5]), at: t(50)), [])
        XCTAssertEqual(receiver.deadline, t(100))
        XCTAssertEqual(receiver.feed(Array(status[5...]), at: t(120)), [.dropped(Array(status[..<5]))])
    }

    func testASyncNeverSpansASilence() {
        let status = SecPlus2Captures.status.bytes
        var receiver = SecPlus2Receiver()
        XCTAssertEqual(receiver.feed([0x55, 0x01], at: t(0)), [])
        XCTAssertEqual(receiver.feed(Array(status[2...]), at: t(500)), [], "00 half a second after 55 01 is no sync")
        XCTAssertNil(receiver.deadline)
    }

    func testATornPacketIsRefusedAndTheOneAfterItDecodes() {
        let status = SecPlus2Captures.status.bytes, motion = SecPlus2Captures.motion.bytes
        var receiver = SecPlus2Receiver()
        let torn = Array(status[..<12])
        let items = receiver.feed(torn + motion, at: t(0))
        XCTAssertEqual(items.count, 2)
        guard case .refused(let bytes, _) = items.first else { return XCTFail("\(items)") }
        XCTAssertEqual(bytes, torn + motion[..<7])
        XCTAssertEqual(items.last, packet(motion))
    }

    func testASyncInsideAValidPacketIsPartOfIt() throws {
        XCTAssertEqual(Array(syncInside[9..<12]), SecPlus2Packet.sync)
        let decoded = try SecPlus2Packet(decoding: syncInside)
        XCTAssertEqual(decoded, try SecPlus2Packet(rolling: 171_966_464, fixed: 0, data: 0x1714_0000))
        var receiver = SecPlus2Receiver()
        XCTAssertEqual(receiver.feed(syncInside + SecPlus2Captures.motion.bytes, at: t(0)),
                       [packet(syncInside), packet(SecPlus2Captures.motion.bytes)])
        XCTAssertNil(receiver.deadline)
    }

    func testRefusedBytesSayWhy() {
        var damaged = SecPlus2Captures.status.bytes
        damaged[4] |= 0x80
        var receiver = SecPlus2Receiver()
        XCTAssertEqual(receiver.feed(damaged, at: t(0)), [.refused(damaged, .reservedBits(half: 1, bits: 2))])
    }

    func testRandomStreamsYieldOnlyWholePackets() {
        let seed = UInt64.random(in: 0...UInt64.max)
        var g = SeededGenerator(seed: seed)
        for _ in 0..<200 {
            // Captures and noise rich in sync bytes, cut at random and read at random times.
            var stream: [UInt8] = []
            for _ in 0..<Int.random(in: 1...8, using: &g) {
                stream += Bool.random(using: &g) ? captures.randomElement(using: &g)!.bytes
                    : (0..<Int.random(in: 0...25, using: &g)).map { _ in [0x55, 0x01, 0x00, UInt8.random(in: 0...255, using: &g)].randomElement(using: &g)! }
            }
            var receiver = SecPlus2Receiver()
            var ms = 0
            var rest = stream[...]
            while !rest.isEmpty {
                let n = Int.random(in: 1...20, using: &g)
                ms += Int.random(in: 0...60, using: &g)
                for item in receiver.feed(rest.prefix(n), at: t(ms)) {
                    switch item {
                    case .packet(let p, let bytes): XCTAssertEqual(p.encoded, bytes, "seed \(seed)")
                    case .refused(let bytes, _): XCTAssertEqual(bytes.count, 19, "seed \(seed)")
                    case .dropped(let bytes): XCTAssertLessThan(bytes.count, 19, "seed \(seed)")
                    }
                }
                rest = rest.dropFirst(n)
            }
        }
    }
}

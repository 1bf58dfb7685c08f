import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// What the daemon's ATT server refuses, with the Error Response the Core spec prescribes
/// (Vol 3 Part F 3.4.1.1: 01, request opcode, handle little-endian, error code), and how the
/// daemon survives peers that send garbage.
final class ATTErrorTests: GaragedTestCase {
    /// Each refusal, byte for byte, on one bearer at the default MTU of 23.
    func testErrorResponses() throws {
        let daemon = try startATTDaemon()
        let phone = try connectBearer(daemon)

        // Request Not Supported (0x06), handle 0x0000: an opcode no version of ATT defines (0x3F,
        // bit 6 clear, so a request), and one this server does not implement (Prepare Write 0x16).
        XCTAssertEqual(try phone.exchange("3F"), "01 3F 00 00 06")
        XCTAssertEqual(try phone.exchange("3F 01 02 03"), "01 3F 00 00 06")
        XCTAssertEqual(try phone.exchange("16 0C 00 00 00 41"), "01 16 00 00 06")
        // An unknown command (bit 6 set) is never answered, not even with an error (3.3).
        try phone.send("7F 0C 00")
        try phone.assertNothingPending("an unknown command")

        // Invalid Handle (0x01): Read of 0x0000 and of 0x00FF (past the last handle, 0x000F).
        XCTAssertEqual(try phone.exchange("0A 00 00"), "01 0A 00 00 01")
        XCTAssertEqual(try phone.exchange("0A FF 00"), "01 0A FF 00 01")
        XCTAssertEqual(try phone.exchange("0A 10 00"), "01 0A 10 00 01")
        // Read Not Permitted (0x02): 6E400002's value is write-only, 6E400003's notify-only.
        XCTAssertEqual(try phone.exchange("0A 0C 00"), "01 0A 0C 00 02")
        XCTAssertEqual(try phone.exchange("0A 0E 00"), "01 0A 0E 00 02")
        // Write Not Permitted (0x03): the Device Name is read-only.
        XCTAssertEqual(try phone.exchange("12 03 00 " + attHex("Door")), "01 12 03 00 03")
        XCTAssertEqual(try phone.exchange("0A 03 00"), "0B " + attHex("Garage"), "the name is unchanged")
        // Invalid PDU (0x04), handle 0x0000: truncated Read (one handle octet), truncated Exchange
        // MTU, a Read By Group Type whose UUID is one octet.
        XCTAssertEqual(try phone.exchange("0A 03"), "01 0A 00 00 04")
        XCTAssertEqual(try phone.exchange("02 F7"), "01 02 00 00 04")
        XCTAssertEqual(try phone.exchange("10 01 00 FF FF 00"), "01 10 00 00 04")
        XCTAssertEqual(try daemon.trace().count, 1, "no refusal presses")
    }

    /// A Write Request longer than ATT_MTU-3 (20 at the default MTU) to 0x000C is refused with
    /// Invalid Attribute Value Length (0x0D) and never reaches the controller; 20 octets does.
    /// A Write Command that long is dropped without a word (3.4.5.3).
    func testOverlongWriteIsRefusedAndPressesNothing() throws {
        let daemon = try startATTDaemon()
        let phone = try connectBearer(daemon)
        XCTAssertEqual(try phone.enableNotifications(), "13")

        let open21 = "12345O=1" + String(repeating: " ", count: 13)
        XCTAssertEqual(open21.utf8.count, 21)
        XCTAssertEqual(try phone.writeRequest(open21), "01 12 0C 00 0D")
        try phone.writeCommand(open21)
        // Had either reached the controller, an ERR FORMAT notification would come before this.
        try phone.assertNothingPending("after 21-octet writes")

        // At exactly 20 octets the write is taken and judged (and refused by the protocol).
        XCTAssertEqual(try phone.writeRequest("12345O=1" + String(repeating: " ", count: 12)), "13")
        XCTAssertEqual(try phone.notification(), "ERR FORMAT")
        XCTAssertEqual(try daemon.trace().count, 1, "nothing pressed")
        XCTAssertEqual(daemon.stop(), .exited(0))
        XCTAssertEqual(try daemon.trace().count, 1, "nothing pressed")
    }

    /// A peer that causes 16 Error Responses is dropped (recv returns 0 after the 16th); the
    /// daemon goes on serving new bearers and the local socket.
    func testSixteenMalformedPDUsDropTheBearer() throws {
        let daemon = try startATTDaemon()
        let bad = try connectBearer(daemon)
        for i in 1...15 {
            XCTAssertEqual(try bad.exchange("0A 03"), "01 0A 00 00 04", "malformed PDU \(i)")
        }
        // Fifteen do not: a good request is still served (and does not reset the count).
        XCTAssertEqual(try bad.exchange("0A 03 00"), "0B " + attHex("Garage"))
        XCTAssertEqual(try bad.exchange("0A 03"), "01 0A 00 00 04", "malformed PDU 16")
        let end = try bad.next(within: .seconds(3))
        XCTAssertEqual(end, .closed, "the daemon should close the bearer after 16 malformed PDUs")
        waitUntil("the drop in the daemon's log", timeout: .seconds(3)) {
            daemon.log.contains("connection-dropped source=\"att-socket uid=\(getuid())\"")
        }

        let fresh = try connectBearer(daemon)
        XCTAssertEqual(try fresh.exchange("0A 03 00"), "0B " + attHex("Garage"))
        XCTAssertEqual(try daemon.ask("12345S"), "S CLOSED")
        XCTAssertNil(daemon.process.poll(), "garaged must still run")
    }

    /// A few thousand random packets, mostly with real opcodes and random parameters, some over
    /// the largest PDU the daemon reads: it never crashes, never presses, drops the bearers that
    /// misbehave, and still serves afterwards. Packets go in bursts of 16, each followed by a
    /// Read of the Device Name whose response (in order on the bearer) proves the daemon has
    /// judged the whole burst; a bearer the daemon ends is replaced by a new one.
    func testRandomPacketFloodNeverCrashesIt() throws {
        let daemon = try startATTDaemon()
        var random = SplitMix64(seed: 0x6E40_0001_B5A3_F393)
        let opcodes: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12,
                                0x16, 0x18, 0x1B, 0x1D, 0x1E, 0x20, 0x52, 0xD2]
        let sync = attBytes("0B " + attHex("Garage"))
        let total = 5000
        var sent = 0, judged = 0, received = 0, bearers = 0, dropped = 0
        let start = monotonicNanoseconds()
        flood: while sent < total {
            let bearer = try connectBearer(daemon)
            bearers += 1
            while sent < total {
                var burst = 0
                for _ in 0..<16 where sent < total {
                    let opcode = random.below(2) == 0 ? opcodes[random.below(opcodes.count)] : UInt8(random.below(256))
                    // 1-24 octets mostly; one in 16 up to 600 (the daemon reads at most 518).
                    let length = random.below(16) == 0 ? 1 + random.below(600) : 1 + random.below(24)
                    var pdu = [opcode]
                    for _ in 1..<length { pdu.append(UInt8(random.below(256))) }
                    // Half the time a handle the database has, so real attributes get random values.
                    if pdu.count >= 3, random.below(2) == 0 { pdu[1] = UInt8(random.below(0x12)); pdu[2] = 0 }
                    do {
                        try bearer.send(pdu)
                    } catch let e as HarnessError where e.errno == EPIPE || e.errno == ECONNRESET {
                        dropped += 1
                        continue flood
                    }
                    sent += 1
                    burst += 1
                }
                do {
                    try bearer.send("0A 03 00")
                } catch let e as HarnessError where e.errno == EPIPE || e.errno == ECONNRESET {
                    dropped += 1
                    continue flood
                }
                while true {
                    guard let packet = try bearer.next(within: .seconds(3)) else {
                        XCTFail("no answer to the sync Read within 3 s after \(sent) packets; garaged: \(daemon.process.poll().map(\.description) ?? "running")")
                        break flood
                    }
                    guard case .pdu(let bytes) = packet else {
                        dropped += 1
                        continue flood
                    }
                    received += 1
                    if bytes == sync { break }
                }
                judged += burst
            }
        }
        let seconds = Double(monotonicNanoseconds() - start) / 1e9
        print("ATT flood: \(sent) random packets on \(bearers) bearers (\(judged) confirmed judged), \(received) PDUs back, \(dropped) bearers ended by the daemon, \(String(format: "%.2f", seconds)) s")

        XCTAssertNil(daemon.process.poll(), "garaged must survive the flood")
        XCTAssertGreaterThan(dropped, 0, "misbehaving bearers should have been dropped")
        XCTAssertGreaterThan(judged, total / 3, "a good part of the flood should have reached the ATT server")
        let after = try connectBearer(daemon)
        XCTAssertEqual(try after.exchangeMTU(0x00F7), "03 F7 00")
        XCTAssertEqual(try after.exchange("0A 03 00"), "0B " + attHex("Garage"))
        XCTAssertEqual(try daemon.ask("12345S"), "S CLOSED")
        XCTAssertEqual(daemon.stop(), .exited(0), "a clean stop after the flood")
        XCTAssertEqual(try daemon.trace().count, 1, "random packets must press nothing")
    }
}

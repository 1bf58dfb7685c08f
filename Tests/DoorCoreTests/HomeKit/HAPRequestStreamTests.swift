import DoorSystem
import XCTest
@testable import DoorCore

/// The first clause of the channel contract for HomeKit: nothing read in the clear is ever run
/// as the controller pair-verify proves. Thousands of connections, each a pair-verify M3, then
/// bytes an on-path attacker adds (none, a request, garbage), then the controller's encrypted
/// requests, cut at random places; real ChaCha20-Poly1305 from libcrypto.
final class HAPRequestStreamTests: XCTestCase {
    let crypto = LibCrypto()
    let m3 = Array("POST /pair-verify HTTP/1.1\r\nContent-Type: application/pairing+tlv8\r\nContent-Length: 3\r\n\r\n\u{6}\u{1}\u{3}".utf8)
    let sent = ["GET /accessories HTTP/1.1\r\n\r\n", "GET /characteristics?id=1.17 HTTP/1.1\r\n\r\n",
                "PUT /prepare HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}"].map { Array($0.utf8) }
    let injections = ["", "PUT /characteristics HTTP/1.1\r\nContent-Length: 46\r\n\r\n{\"characteristics\":[{\"aid\":1,\"iid\":18,\"value\":0}]}",
                      "\r\n", "G", "\u{0}\u{10}garbage"].map { Array($0.utf8) }

    /// What the accessory ran after the keys changed, or nil when it closed first.
    private func run(_ chunks: [[UInt8]], keys: [UInt8]) -> (secured: Bool, ran: [String]) {
        var stream = HAPRequestStream()
        var ran: [String] = []
        var secured = false
        for chunk in chunks {
            do { try stream.feed(chunk) } catch { return (secured, ran) }
            while true {
                guard let request = try? stream.next() else { break }
                guard stream.isSecure else {
                    XCTAssertEqual(request.path, "/pair-verify", "only M3 is read in the clear here")
                    guard stream.secure(with: HAPSessionCipher(readKey: keys, writeKey: keys, crypto: crypto)) else { return (false, ran) }
                    secured = true
                    continue
                }
                ran.append(request.method + " " + request.path)
            }
        }
        return (secured, ran)
    }

    /// Cuts `bytes` at random places.
    private func cut(_ bytes: [UInt8], _ g: inout SystemRandomNumberGenerator) -> [[UInt8]] {
        var chunks: [[UInt8]] = []
        var at = 0
        while at < bytes.count {
            let n = Int.random(in: 1...max(1, Int.random(in: 1...bytes.count, using: &g)), using: &g)
            chunks.append(Array(bytes[at..<min(bytes.count, at + n)]))
            at += n
        }
        return chunks
    }

    /// The controller sends its frames only once M4 is back, so they never share a read with
    /// M3; the attacker's bytes go anywhere: with M3, or among the frames.
    func testNothingInTheClearBehindM3IsEverRunWhateverTheSplits() {
        var g = SystemRandomNumberGenerator()
        let keys = crypto.randomBytes(32)
        let genuine = ["GET /accessories", "GET /characteristics", "PUT /prepare"]
        for round in 0..<3_000 {
            let injected = injections[round % injections.count]
            var controller = HAPSessionCipher(readKey: keys, writeKey: keys, crypto: crypto)
            let frames = sent.map { controller.seal($0) }
            let place = Int.random(in: 0...frames.count, using: &g)
            let withM3 = round % 2 == 0
            let clear = m3 + (withM3 ? injected : [])
            let sealed = frames[..<place].joined() + (withM3 ? [] : injected) + frames[place...].joined()
            let chunks = cut(clear, &g) + cut(Array(sealed), &g)
            let (secured, ran) = run(chunks, keys: keys)
            XCTAssertEqual(Array(genuine.prefix(ran.count)), ran, "only the controller's own requests, in order")
            if injected.isEmpty {
                XCTAssertTrue(secured, "a clean M3 takes the keys")
                XCTAssertEqual(ran, genuine, "every encrypted request")
            } else {
                XCTAssertLessThanOrEqual(ran.count, withM3 ? 0 : place,
                                         "injected \(injected.count) bytes at \(withM3 ? "M3" : "frame \(place)"): ran \(ran)")
            }
        }
    }

    func testKeysAreRefusedWhileBytesReadInTheClearWait() throws {
        var stream = HAPRequestStream()
        try stream.feed(m3 + Array("GET /acc".utf8))
        XCTAssertEqual(try stream.next()?.path, "/pair-verify")
        XCTAssertFalse(stream.secure(with: HAPSessionCipher(readKey: crypto.randomBytes(32), writeKey: crypto.randomBytes(32), crypto: crypto)))
        XCTAssertFalse(stream.isSecure, "no keys taken: the caller closes")
    }
}

import DoorSystem
import XCTest
@testable import DoorCore

/// HomeKit's session without a socket: the test plays a paired controller with libcrypto's
/// primitives (`LibCrypto`) against an `HAPSession` and a stand-in accessory: pair-verify, then
/// encrypted reads, writes that become `DoorRequest`s answered after their verdicts, timed
/// writes, events, removed and demoted pairings, and the refusals (470 before verify, bytes in
/// the clear behind M3, a forged frame, a malformed request, a key exchange past the budget).
final class HAPSessionTests: XCTestCase {
    let crypto = LibCrypto()
    let target = HAPCharacteristicID(aid: 1, iid: 18)
    let current = HAPCharacteristicID(aid: 1, iid: 17)
    let obstruction = HAPCharacteristicID(aid: 1, iid: 19)

    /// The accessory every session shares, in memory: pairings change at once, and key exchanges are allowed while `exchanges` lasts.
    final class Accessory: HAPAccessoryModel {
        var state: HAPAccessoryState
        let crypto: any HAPCrypto
        let database: HAPDatabase
        var views = [HAPDoorView(current: 1, target: 1, obstruction: false, light: false)]
        var exchanges = 100

        init(crypto: any HAPCrypto, pairings: [HAPPairing], opener: Bool = false) {
            self.crypto = crypto
            state = HAPAccessoryState(id: "1A:2B:3C:4D:5E:6F", seed: [UInt8](repeating: 7, count: 32), setupCode: "031-45-154",
                                      setupID: "ABCD", pairings: pairings)
            database = HAPDatabase(name: "Garage", doors: [.init(name: "Garage", has: opener ? .opener() : .relay(light: true))], firmware: "1.0", serial: "s")
        }

        func pairSetup(_ body: [UInt8], connection: Int, peer: String, at now: Instant) -> [UInt8] {
            TLV8.encode([(HAPTLVType.state.rawValue, [2]), (HAPTLVType.error.rawValue, [HAPTLVError.unavailable.rawValue])])
        }

        func pairings(_ body: [UInt8], by controller: String, admin: Bool) -> [UInt8] {
            let (reply, change) = PairingsRequest.answer(body, admin: admin, state: state)
            switch change {
            case .add(let p)?: _ = state.add(p)
            case .remove(let id)?: state.remove(id, crypto: crypto)
            case nil: break
            }
            return reply
        }

        func mayExchangeKeys(peer: String, at now: Instant) -> Bool {
            exchanges -= 1
            return exchanges >= 0
        }
    }

    /// A paired controller: its long-term key, and once verified its side of the session.
    struct Phone {
        let id: String
        let seed: [UInt8]
        var cipher: HAPSessionCipher?

        var pairing: HAPPairing { HAPPairing(id: id, publicKey: LibCrypto().ed25519PublicKey(seed: seed), admin: admin) }
        var admin = true
    }

    /// One HTTP message the accessory sent.
    struct Message {
        var start: String
        var body: [UInt8]
        var status: Int { Int(start.split(separator: " ")[1]) ?? 0 }
        var json: JSONValue? { try? JSONParser.parse(String(decoding: body, as: UTF8.self)) }
        var tlv: [(type: UInt8, value: [UInt8])] { (try? TLV8.decode(body)) ?? [] }
    }

    func phone(_ id: String, admin: Bool = true) -> Phone { Phone(id: id, seed: crypto.randomBytes(32), admin: admin) }

    func http(_ method: String, _ path: String, _ body: String = "") -> [UInt8] {
        Array("\(method) \(path) HTTP/1.1\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8)
    }

    func post(_ path: String, _ items: [(HAPTLVType, [UInt8])]) -> [UInt8] {
        let body = TLV8.encode(items.map { ($0.0.rawValue, $0.1) })
        return Array("POST \(path) HTTP/1.1\r\nContent-Type: application/pairing+tlv8\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
    }

    /// Splits what the accessory sent (opened with the phone's keys once verified) into messages.
    func messages(_ bytes: [UInt8], _ phone: inout Phone, file: StaticString = #filePath, line: UInt = #line) -> [Message] {
        var plain = bytes
        if var c = phone.cipher {
            guard case .plaintext(let p) = c.open(bytes) else { XCTFail("a frame did not open", file: file, line: line); return [] }
            phone.cipher = c
            plain = p
        }
        var out: [Message] = []
        var rest = plain[...]
        let end = Array("\r\n\r\n".utf8)
        while rest.count >= 4 {
            guard let cut = (rest.startIndex...rest.endIndex - 4).first(where: { Array(rest[$0..<$0 + 4]) == end }) else { break }
            let head = String(decoding: rest[rest.startIndex..<cut], as: UTF8.self).components(separatedBy: "\r\n")
            let length = head.compactMap { $0.hasPrefix("Content-Length: ") ? Int($0.dropFirst(16)) : nil }.first ?? 0
            out.append(Message(start: head[0], body: Array(rest[cut + 4..<cut + 4 + length])))
            rest = rest[(cut + 4 + length)...]
        }
        return out
    }

    /// Sends `request` (sealed once verified), arrived at `at`, and returns what came back.
    @discardableResult
    func send(_ request: [UInt8], _ session: inout HAPSession, _ phone: inout Phone, _ accessory: Accessory,
              at: Instant = t(0), file: StaticString = #filePath, line: UInt = #line) -> (messages: [Message], requests: [DoorRequest]) {
        var wire = request
        if var c = phone.cipher {
            wire = c.seal(request)
            phone.cipher = c
        }
        XCTAssertTrue(session.feed(wire, arrived: at), file: file, line: line)
        guard let out = session.next(at: at, accessory: accessory) else { return ([], []) }
        return (messages(out.bytes, &phone, file: file, line: line), out.requests)
    }

    /// Pair-verify M1 to M4 as the phone; the session is then the phone's.
    func verify(_ session: inout HAPSession, _ phone: inout Phone, _ accessory: Accessory, file: StaticString = #filePath,
                line: UInt = #line) throws {
        let secret = crypto.randomBytes(32), mine = crypto.x25519PublicKey(secret: secret)
        let m2 = try XCTUnwrap(send(post("/pair-verify", [(.state, [1]), (.publicKey, mine)]), &session, &phone, accessory).messages.first,
                               file: file, line: line).tlv
        let theirs = try XCTUnwrap(TLV8.first(.publicKey, in: m2), file: file, line: line)
        let shared = try XCTUnwrap(crypto.x25519(secret: secret, peer: theirs), file: file, line: line)
        let key = crypto.hkdf(shared, salt: "Pair-Verify-Encrypt-Salt", info: "Pair-Verify-Encrypt-Info")
        let id = Array(phone.id.utf8)
        let proof = TLV8.encode([(HAPTLVType.identifier.rawValue, id),
                                 (HAPTLVType.signature.rawValue, crypto.ed25519Sign(seed: phone.seed, mine + id + theirs))])
        let m3 = post("/pair-verify", [(.state, [3]), (.encryptedData, crypto.seal(key: key, nonce: HAPNonce.named("PV-Msg03"), proof, aad: []))])
        let m4 = try XCTUnwrap(send(m3, &session, &phone, accessory).messages.first, file: file, line: line)
        XCTAssertEqual(TLV8.first(.state, in: m4.tlv), [4], file: file, line: line)
        XCTAssertNil(TLV8.first(.error, in: m4.tlv), file: file, line: line)
        phone.cipher = HAPSessionCipher(readKey: crypto.hkdf(shared, salt: "Control-Salt", info: "Control-Read-Encryption-Key"),
                                        writeKey: crypto.hkdf(shared, salt: "Control-Salt", info: "Control-Write-Encryption-Key"), crypto: crypto)
    }

    func put(_ items: String, pid: Int? = nil) -> [UInt8] {
        http("PUT", "/characteristics", "{\"characteristics\":[\(items)]" + (pid.map { ",\"pid\":\($0)" } ?? "") + "}")
    }

    func statuses(_ m: Message?) -> [Int64] { m?.json?["characteristics"]?.arrayValue?.compactMap { $0["status"]?.intValue } ?? [] }

    // MARK: - before pair-verify

    /// Before pair-verify a session may only pair: everything else is 470, identify too once
    /// paired; an unpaired accessory's identify is answered at once and handed to the loop.
    func testBeforePairVerifyOnlyPairingIsServed() throws {
        var owner = phone("owner")
        let accessory = Accessory(crypto: crypto, pairings: [owner.pairing])
        var session = HAPSession(id: 1, peer: "192.0.2.7:5000")
        for request in [http("GET", "/accessories"), http("GET", "/characteristics?id=1.17"), put("{\"aid\":1,\"iid\":18,\"value\":0}"),
                        http("PUT", "/prepare", "{\"ttl\":1000,\"pid\":1}"), post("/pairings", [(.state, [1]), (.method, [5])]),
                        http("GET", "/nowhere")] {
            let (answer, requests) = send(request, &session, &owner, accessory)
            XCTAssertEqual(answer.map(\.status), [470])
            XCTAssertEqual(answer.first?.json?["status"]?.intValue, -70411)
            XCTAssertTrue(requests.isEmpty, "nothing for the door")
        }
        XCTAssertEqual(send(http("POST", "/identify"), &session, &owner, accessory).messages.first?.json?["status"]?.intValue, -70401,
                       "paired: identify is refused")
        XCTAssertEqual(session.event([(current, .number(2))]), [], "no events before pair-verify")

        let unpaired = Accessory(crypto: crypto, pairings: [])
        var stranger = HAPSession(id: 2, peer: "192.0.2.8:5000")
        let (answer, requests) = send(http("POST", "/identify"), &stranger, &owner, unpaired, at: t(40))
        XCTAssertEqual(answer.map(\.status), [204])
        XCTAssertEqual(requests.map(\.ask), [.identify(door: 0)])
        XCTAssertEqual(requests.first?.arrived, t(40))
        XCTAssertEqual(requests.first?.source.summaryKey, "homekit-unpaired", "strangers share one allowance")
        XCTAssertFalse(stranger.awaitingVerdicts, "answered already")

        try verify(&session, &owner, accessory)
        XCTAssertEqual(send(http("GET", "/nowhere"), &session, &owner, accessory).messages.map(\.status), [404], "verified: not found")
        XCTAssertEqual(send(post("/pair-setup", [(.state, [1])]), &session, &owner, accessory).messages.map(\.status), [400])
    }

    // MARK: - reads

    /// After pair-verify every answer is sealed; `/accessories` and `/characteristics` read the
    /// doors' views as they are at the read.
    func testPairVerifyThenEncryptedReads() throws {
        var owner = phone("owner")
        let accessory = Accessory(crypto: crypto, pairings: [owner.pairing])
        var session = HAPSession(id: 1, peer: "192.0.2.7:5000")
        try verify(&session, &owner, accessory)
        XCTAssertEqual(session.controller, "owner")
        XCTAssertEqual(session.source.description, "homekit owner")

        accessory.views[0].current = 2
        var copy = try XCTUnwrap(owner.cipher)
        let wire = copy.seal(http("GET", "/accessories"))
        XCTAssertEqual(wire.count, http("GET", "/accessories").count + 18, "one frame: its length, then the sealed request and its tag")
        XCTAssertFalse(wire.starts(with: Array("GET".utf8)))
        let (listed, none) = send(http("GET", "/accessories"), &session, &owner, accessory)
        XCTAssertTrue(none.isEmpty)
        XCTAssertEqual(listed.map(\.status), [200])
        let services = try XCTUnwrap(listed.first?.json?["accessories"]?.arrayValue?.first?["services"]?.arrayValue)
        let door = try XCTUnwrap(services.first { $0["type"]?.stringValue == "41" }?["characteristics"]?.arrayValue)
        XCTAssertEqual(door.first { $0["iid"]?.intValue == 17 }?["value"]?.intValue, 2, "the view as it is now")

        let read = send(http("GET", "/characteristics?id=1.17,1.18,1.33&ev=1"), &session, &owner, accessory).messages
        XCTAssertEqual(read.map(\.status), [200])
        let items = try XCTUnwrap(read.first?.json?["characteristics"]?.arrayValue)
        XCTAssertEqual(items.map { $0["value"] }, [.number(2), .number(1), .bool(false)])
        XCTAssertEqual(items.map { $0["ev"] }, [.bool(false), .bool(false), .bool(false)])
        let partly = send(http("GET", "/characteristics?id=1.17,1.99,1.2"), &session, &owner, accessory).messages
        XCTAssertEqual(partly.map(\.status), [207])
        XCTAssertEqual(statuses(partly.first), [0, Int64(HAPStatus.doesNotExist.rawValue), Int64(HAPStatus.writeOnly.rawValue)])
        XCTAssertEqual(send(http("GET", "/characteristics?id=x"), &session, &owner, accessory).messages.map(\.status), [400])
    }

    // MARK: - writes

    /// A target write is a `DoorRequest` stamped with when its bytes began to arrive; nothing
    /// is answered, nor read, until its verdict: 204 when accepted, 207 with -70402 when refused,
    /// the real target told first. A write repeating the target moves nothing.
    func testAWriteIsADoorRequestAnsweredByItsVerdict() throws {
        var owner = phone("owner")
        let accessory = Accessory(crypto: crypto, pairings: [owner.pairing])
        var session = HAPSession(id: 1, peer: "192.0.2.7:5000")
        try verify(&session, &owner, accessory)

        // The write's frames come in two reads, 2.5 s apart: it counts from the first.
        var c = try XCTUnwrap(owner.cipher)
        let frames = c.seal(put("{\"aid\":1,\"iid\":18,\"value\":0}"))
        let behind = c.seal(http("GET", "/characteristics?id=1.18"))
        owner.cipher = c
        XCTAssertTrue(session.feed(Array(frames.prefix(10)), arrived: t(1_000)))
        XCTAssertNil(session.next(at: t(1_000), accessory: accessory), "not whole yet")
        XCTAssertTrue(session.feed(Array(frames.dropFirst(10)) + behind, arrived: t(3_500)))
        let asked = try XCTUnwrap(session.next(at: t(3_500), accessory: accessory))
        XCTAssertEqual(asked.bytes, [], "no answer before the verdict")
        XCTAssertEqual(asked.requests.map(\.ask), [.move(.open, door: 0)])
        XCTAssertEqual(asked.requests.first?.arrived, t(1_000), "when its bytes began to arrive")
        XCTAssertEqual(asked.requests.first?.source.description, "homekit owner")
        XCTAssertTrue(session.awaitingVerdicts)
        XCTAssertTrue(session.mayHaveMore)
        XCTAssertNil(session.next(at: t(3_500), accessory: accessory), "the next request waits for the verdict")
        let accepted = session.judged([true], accessory: accessory)
        XCTAssertEqual(messages(accepted.bytes, &owner).map(\.status), [204])
        let after = try XCTUnwrap(session.next(at: t(3_600), accessory: accessory))
        XCTAssertEqual(messages(after.bytes, &owner).map(\.status), [200], "then the request behind it")

        // Subscribed to the target, a refusal tells it the real one before answering.
        XCTAssertEqual(send(put("{\"aid\":1,\"iid\":18,\"ev\":true}"), &session, &owner, accessory).messages.map(\.status), [204])
        let (none, move) = send(put("{\"aid\":1,\"iid\":18,\"value\":0},{\"aid\":1,\"iid\":17,\"value\":1}"), &session, &owner, accessory)
        XCTAssertTrue(none.isEmpty)
        XCTAssertEqual(move.map(\.ask), [.move(.open, door: 0)])
        let refused = session.judged([false], accessory: accessory)
        let told = messages(refused.bytes, &owner)
        XCTAssertEqual(told.map(\.start), ["EVENT/1.0 200 OK", "HTTP/1.1 207 Multi-Status"])
        XCTAssertEqual(told.first?.json?["characteristics"]?.arrayValue?.first?["value"]?.intValue, 1, "the real target")
        XCTAssertEqual(statuses(told.last), [Int64(HAPStatus.readOnly.rawValue), Int64(HAPStatus.unableToCommunicate.rawValue)])
        XCTAssertEqual(refused.othersToTell.count, 1, "and every other session")
        XCTAssertEqual(refused.othersToTell.first?.first?.0, target)

        // Closed already: writing closed moves nothing and needs no verdict.
        let (same, nothing) = send(put("{\"aid\":1,\"iid\":18,\"value\":1}"), &session, &owner, accessory)
        XCTAssertEqual(same.map(\.status), [204])
        XCTAssertTrue(nothing.isEmpty)
        XCTAssertFalse(session.awaitingVerdicts)

        // The light and identify are requests too; a bad value is not.
        let (_, lit) = send(put("{\"aid\":1,\"iid\":33,\"value\":true},{\"aid\":1,\"iid\":2,\"value\":true}"), &session, &owner, accessory)
        XCTAssertEqual(lit.map(\.ask), [.light(true, door: 0), .identify(door: 0)])
        XCTAssertEqual(messages(session.judged([true, true], accessory: accessory).bytes, &owner).map(\.status), [204])
        let bad = send(put("{\"aid\":1,\"iid\":18,\"value\":7},{\"aid\":1,\"iid\":99,\"value\":0}"), &session, &owner, accessory)
        XCTAssertTrue(bad.requests.isEmpty)
        XCTAssertEqual(statuses(bad.messages.first), [Int64(HAPStatus.invalidValue.rawValue), Int64(HAPStatus.doesNotExist.rawValue)])
    }

    /// A write of an opener's LockTargetState asks to lock or unlock its remotes, answered by its
    /// verdict; a refusal is -70402 with the real target told first, as a door target's is.
    func testALockWriteAsksTheOpenerToLockItsRemotes() throws {
        var owner = phone("owner")
        let accessory = Accessory(crypto: crypto, pairings: [owner.pairing], opener: true)
        accessory.views[0].remotesLocked = false
        var session = HAPSession(id: 1, peer: "192.0.2.7:5000")
        try verify(&session, &owner, accessory)

        let read = send(http("GET", "/characteristics?id=1.21,1.22,1.49"), &session, &owner, accessory).messages
        XCTAssertEqual(read.first?.json?["characteristics"]?.arrayValue?.compactMap { $0["value"] }, [.number(0), .number(0), .bool(false)])
        let (none, lock) = send(put("{\"aid\":1,\"iid\":22,\"value\":1}"), &session, &owner, accessory)
        XCTAssertTrue(none.isEmpty, "answered once judged")
        XCTAssertEqual(lock.map(\.ask), [.remotes(locked: true, door: 0)])
        XCTAssertEqual(messages(session.judged([true], accessory: accessory).bytes, &owner).map(\.status), [204])

        XCTAssertEqual(send(put("{\"aid\":1,\"iid\":22,\"ev\":true}"), &session, &owner, accessory).messages.map(\.status), [204])
        _ = send(put("{\"aid\":1,\"iid\":22,\"value\":1}"), &session, &owner, accessory)
        let refused = session.judged([false], accessory: accessory)
        let told = messages(refused.bytes, &owner)
        XCTAssertEqual(told.map(\.start), ["EVENT/1.0 200 OK", "HTTP/1.1 207 Multi-Status"])
        XCTAssertEqual(told.first?.json?["characteristics"]?.arrayValue?.first?["value"]?.intValue, 0, "the real target: still unsecured")
        XCTAssertEqual(statuses(told.last), [Int64(HAPStatus.unableToCommunicate.rawValue)])
        XCTAssertEqual(refused.othersToTell.first?.first?.0, HAPCharacteristicID(aid: 1, iid: 22))

        let bad = send(put("{\"aid\":1,\"iid\":22,\"value\":3},{\"aid\":1,\"iid\":21,\"value\":1},{\"aid\":1,\"iid\":49,\"value\":true}"),
                       &session, &owner, accessory)
        XCTAssertTrue(bad.requests.isEmpty)
        XCTAssertEqual(statuses(bad.messages.first), [Int64(HAPStatus.invalidValue.rawValue), Int64(HAPStatus.readOnly.rawValue),
                                                      Int64(HAPStatus.readOnly.rawValue)])
    }

    /// A timed write counts only with the pid `PUT /prepare` announced, once, before it expires
    /// (10 s at most, whatever the controller asks).
    func testATimedWriteNeedsItsPreparedPidInTime() throws {
        var owner = phone("owner")
        let accessory = Accessory(crypto: crypto, pairings: [owner.pairing])
        var session = HAPSession(id: 1, peer: "192.0.2.7:5000")
        try verify(&session, &owner, accessory)
        let open = "{\"aid\":1,\"iid\":18,\"value\":0}"
        func prepare(_ pid: Int, ttl: Int, at: Instant) {
            let answer = send(http("PUT", "/prepare", "{\"ttl\":\(ttl),\"pid\":\(pid)}"), &session, &owner, accessory, at: at).messages
            XCTAssertEqual(answer.map(\.status), [200])
            XCTAssertEqual(answer.first?.json?["status"]?.intValue, 0)
        }
        prepare(7, ttl: 1_000, at: t(0))
        let (_, timed) = send(put(open, pid: 7), &session, &owner, accessory, at: t(1_000))
        XCTAssertEqual(timed.map(\.ask), [.move(.open, door: 0)], "in time")
        XCTAssertEqual(messages(session.judged([true], accessory: accessory).bytes, &owner).map(\.status), [204])

        func refused(_ pid: Int, at: Int, _ why: String) {
            let (answer, requests) = send(put(open, pid: pid), &session, &owner, accessory, at: t(at))
            XCTAssertEqual(answer.map(\.status), [400], why)
            XCTAssertEqual(answer.first?.json?["status"]?.intValue, Int64(HAPStatus.invalidValue.rawValue), why)
            XCTAssertTrue(requests.isEmpty, why)
        }
        refused(7, at: 1_100, "used already")
        prepare(8, ttl: 500, at: t(2_000))
        refused(8, at: 2_501, "expired")
        prepare(9, ttl: 60_000, at: t(3_000))
        refused(9, at: 13_001, "10 s at most, whatever the ttl")
        refused(10, at: 14_000, "never prepared")
        XCTAssertEqual(send(http("PUT", "/prepare", "{\"ttl\":0,\"pid\":1}"), &session, &owner, accessory).messages.map(\.status), [400])
    }

    // MARK: - events

    /// `ev` subscribes; a status change then reaches only the subscribed characteristics, in
    /// one sealed `EVENT/1.0`; a characteristic that sends no events cannot be subscribed.
    func testEventsGoToWhatTheSessionSubscribed() throws {
        var owner = phone("owner")
        let accessory = Accessory(crypto: crypto, pairings: [owner.pairing])
        var session = HAPSession(id: 1, peer: "192.0.2.7:5000")
        try verify(&session, &owner, accessory)
        XCTAssertEqual(session.event([(current, .number(2))]), [], "nothing subscribed")
        let (subscribed, none) = send(put("{\"aid\":1,\"iid\":17,\"ev\":true},{\"aid\":1,\"iid\":19,\"ev\":1}"), &session, &owner, accessory)
        XCTAssertEqual(subscribed.map(\.status), [204])
        XCTAssertTrue(none.isEmpty)
        let told = messages(session.event([(current, .number(2)), (target, .number(0)), (obstruction, .bool(true))]), &owner)
        XCTAssertEqual(told.map(\.start), ["EVENT/1.0 200 OK"])
        let items = try XCTUnwrap(told.first?.json?["characteristics"]?.arrayValue)
        XCTAssertEqual(items.map { $0["iid"]?.intValue }, [17, 19], "only what it subscribed")
        XCTAssertEqual(items.map { $0["value"] }, [.number(2), .bool(true)])
        let read = send(http("GET", "/characteristics?id=1.17,1.18&ev=1"), &session, &owner, accessory).messages
        XCTAssertEqual(read.first?.json?["characteristics"]?.arrayValue?.map { $0["ev"] }, [.bool(true), .bool(false)])
        XCTAssertEqual(send(put("{\"aid\":1,\"iid\":17,\"ev\":false},{\"aid\":1,\"iid\":19,\"ev\":0}"), &session, &owner, accessory)
            .messages.map(\.status), [204])
        XCTAssertEqual(session.event([(current, .number(3))]), [], "unsubscribed")
        let refused = send(put("{\"aid\":1,\"iid\":5,\"ev\":true}"), &session, &owner, accessory).messages
        XCTAssertEqual(statuses(refused.first), [Int64(HAPStatus.notificationNotSupported.rawValue)])
    }

    // MARK: - pairings

    /// Rights are read from the pairings at each request: a guest is refused, a demoted admin
    /// at once; a removed pairing's session closes once answered, and says nothing more.
    func testARemovedPairingsSessionClosesAndRightsAreReadWhenUsed() throws {
        var owner = phone("owner"), guest = phone("guest", admin: false)
        let accessory = Accessory(crypto: crypto, pairings: [owner.pairing, guest.pairing])
        var mine = HAPSession(id: 1, peer: "192.0.2.7:5000"), theirs = HAPSession(id: 2, peer: "192.0.2.8:5000")
        try verify(&mine, &owner, accessory)
        try verify(&theirs, &guest, accessory)
        let list = post("/pairings", [(.state, [1]), (.method, [5])])
        XCTAssertEqual(TLV8.first(.error, in: try XCTUnwrap(send(list, &theirs, &guest, accessory).messages.first).tlv),
                       [HAPTLVError.authentication.rawValue], "a guest manages nothing")
        func share(_ p: Phone, admin: UInt8) -> [UInt8] {
            post("/pairings", [(.state, [1]), (.method, [3]), (.identifier, Array(p.id.utf8)), (.publicKey, p.pairing.publicKey),
                               (.permissions, [admin])])
        }
        XCTAssertNil(TLV8.first(.error, in: try XCTUnwrap(send(share(guest, admin: 1), &mine, &owner, accessory).messages.first).tlv))
        XCTAssertEqual(TLV8.first(.error, in: try XCTUnwrap(send(list, &theirs, &guest, accessory).messages.first).tlv), nil,
                       "promoted: the same session may now")
        _ = send(share(guest, admin: 0), &mine, &owner, accessory)
        XCTAssertEqual(TLV8.first(.error, in: try XCTUnwrap(send(list, &theirs, &guest, accessory).messages.first).tlv),
                       [HAPTLVError.authentication.rawValue], "demoted: refused at once")

        XCTAssertEqual(send(http("PUT", "/characteristics", "{\"characteristics\":[{\"aid\":1,\"iid\":17,\"ev\":true}]}"), &theirs, &guest,
                            accessory).messages.map(\.status), [204])
        let removed = send(post("/pairings", [(.state, [1]), (.method, [4]), (.identifier, Array("guest".utf8))]), &mine, &owner, accessory)
        XCTAssertEqual(TLV8.first(.state, in: try XCTUnwrap(removed.messages.first).tlv), [2])
        XCTAssertNil(accessory.state.pairing("guest"))
        XCTAssertFalse(mine.closesWhenAnswered, "the owner's session stays")
        theirs.closeIfUnpaired(accessory.state)
        XCTAssertTrue(theirs.closesWhenAnswered, "the guest's closes")
        XCTAssertEqual(theirs.event([(current, .number(2))]), [], "and is told nothing more")
        var sealer = try XCTUnwrap(guest.cipher)
        XCTAssertTrue(theirs.feed(sealer.seal(http("GET", "/accessories")), arrived: t(0)))
        XCTAssertNil(theirs.next(at: t(0), accessory: accessory), "nor answers anything")

        // The owner removing itself, the last admin, forgets everyone: its own session closes once answered.
        let gone = send(post("/pairings", [(.state, [1]), (.method, [4]), (.identifier, Array("owner".utf8))]), &mine, &owner, accessory)
        XCTAssertEqual(gone.messages.count, 1, "answered first")
        XCTAssertFalse(accessory.state.isPaired)
        XCTAssertTrue(mine.closesWhenAnswered)
    }

    // MARK: - refusals

    /// Bytes in the clear that came behind M3 (an on-path attacker's open) are never run as
    /// the controller's: M4 goes, the session breaks, nothing reaches the door.
    func testBytesInTheClearBehindM3BreakTheSession() throws {
        var owner = phone("owner")
        let accessory = Accessory(crypto: crypto, pairings: [owner.pairing])
        var session = HAPSession(id: 1, peer: "192.0.2.7:5000")
        let secret = crypto.randomBytes(32), mine = crypto.x25519PublicKey(secret: secret)
        let m2 = try XCTUnwrap(send(post("/pair-verify", [(.state, [1]), (.publicKey, mine)]), &session, &owner, accessory).messages.first).tlv
        let theirs = try XCTUnwrap(TLV8.first(.publicKey, in: m2))
        let key = crypto.hkdf(try XCTUnwrap(crypto.x25519(secret: secret, peer: theirs)), salt: "Pair-Verify-Encrypt-Salt",
                              info: "Pair-Verify-Encrypt-Info")
        let id = Array(owner.id.utf8)
        let proof = TLV8.encode([(HAPTLVType.identifier.rawValue, id),
                                 (HAPTLVType.signature.rawValue, crypto.ed25519Sign(seed: owner.seed, mine + id + theirs))])
        let m3 = post("/pair-verify", [(.state, [3]), (.encryptedData, crypto.seal(key: key, nonce: HAPNonce.named("PV-Msg03"), proof, aad: []))])
        XCTAssertTrue(session.feed(m3 + put("{\"aid\":1,\"iid\":18,\"value\":0}"), arrived: t(0)))
        let out = try XCTUnwrap(session.next(at: t(0), accessory: accessory))
        XCTAssertEqual(TLV8.first(.state, in: try XCTUnwrap(messages(out.bytes, &owner).first).tlv), [4])
        XCTAssertTrue(out.requests.isEmpty)
        XCTAssertEqual(session.failure?.hasPrefix("bytes in the clear came behind pair-verify"), true)
        XCTAssertNil(session.controller, "nobody proven")
        XCTAssertNil(session.next(at: t(0), accessory: accessory), "nothing more is read")
    }

    /// A frame that does not open breaks the session; a malformed request is answered and the
    /// session closes after it; a key exchange past the budget is Busy, with no crypto done.
    func testAForgedFrameAMalformedRequestAndABusyKeyExchange() throws {
        var owner = phone("owner")
        let accessory = Accessory(crypto: crypto, pairings: [owner.pairing])
        var session = HAPSession(id: 1, peer: "192.0.2.7:5000")
        try verify(&session, &owner, accessory)
        XCTAssertFalse(session.feed([10, 0] + [UInt8](repeating: 0x41, count: 26), arrived: t(0)))
        XCTAssertEqual(session.failure?.contains("did not authenticate"), true)

        var clear = HAPSession(id: 2, peer: "192.0.2.7:5001")
        var nobody = phone("nobody")
        XCTAssertTrue(clear.feed(Array("GARBAGE\r\n\r\n".utf8), arrived: t(0)))
        let out = try XCTUnwrap(clear.next(at: t(0), accessory: accessory))
        XCTAssertEqual(messages(out.bytes, &nobody).first.map { $0.status / 100 }, 4)
        XCTAssertTrue(clear.closesWhenAnswered)
        XCTAssertEqual(clear.closeReason?.hasPrefix("malformed HTTP"), true)

        accessory.exchanges = 0
        var busy = HAPSession(id: 3, peer: "192.0.2.7:5002")
        let m1 = post("/pair-verify", [(.state, [1]), (.publicKey, crypto.x25519PublicKey(secret: crypto.randomBytes(32)))])
        let answer = try XCTUnwrap(send(m1, &busy, &nobody, accessory).messages.first)
        XCTAssertEqual(TLV8.first(.error, in: answer.tlv), [HAPTLVError.busy.rawValue])
        XCTAssertNil(TLV8.first(.publicKey, in: answer.tlv), "no key exchange done")
    }
}

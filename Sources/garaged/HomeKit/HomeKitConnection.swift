import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// One HomeKit controller's TCP connection: HTTP/1.1 requests, first in the clear (pair-setup,
/// pair-verify), then, once pair-verify proved a paired controller, in encrypted frames. It
/// answers what it can from the accessory (the database, values, pairings) and hands door
/// writes to the loop as `DoorRequest`s, whose verdicts (`judged`) make the answer. A
/// connection that has not paired gets 470 for everything else. Its output has its own
/// bounded queue, so a controller that stops reading is dropped without holding up anyone.
final class HomeKitConnection: Connection {
    static let maxQueuedBytes = 256 * 1024
    /// A timed write's `pid` is valid this long at most (the controller says how long, in ms).
    static let maxPrepareTTL: Duration = .seconds(10)

    let fd: Int32
    let id: Int
    private(set) var source: RequestSource
    var lastHeard: Instant
    private let peer: String
    private let accessory: HomeKitAccessory
    private let clock: any MonotonicClock
    /// The requests read, in the clear until pair-verify, then only from encrypted frames.
    private var stream = HAPRequestStream()
    private var verify = PairVerify()
    /// The pairing id pair-verify proved. Its rights (admin or not) are read from the pairings
    /// each time they are used, never copied here: a demoted admin is demoted at once.
    private(set) var controller: String?
    private var subscriptions: Set<HAPCharacteristicID> = []
    private var prepared: (pid: UInt64, until: Instant)?
    /// The writes waiting for the loop's verdicts, with the answer's other items.
    private var waiting: (writes: [(HAPCharacteristicID, HAPCharacteristic, Int)], statuses: [(HAPCharacteristicID, HAPStatus)])?
    private var outbox: [UInt8] = []
    private var readBuffer = [UInt8](repeating: 0, count: 4096)
    var arrivals: Arrivals
    /// When the bytes waiting in the stream began to arrive (nil: none wait): a request taken
    /// from them counts its age from there, so a request read during a stall is judged stale.
    private var waitingSince: Int64?
    /// When the request being answered arrived at the latest.
    private var requestArrival: Int64 = 0
    private var failed = false
    private(set) var closeReason: String?
    private var closeWhenSent = false
    /// True while a request is being answered: a close asked for meanwhile waits for its answer.
    private var routing = false
    /// The last look at the parser found a whole request: another may follow it in the buffer.
    private(set) var mayHaveMore = false

    /// Dropped by the loop: failed, or asked to close and everything it had to say is sent.
    var closing: Bool { failed || (closeWhenSent && outbox.isEmpty && !routing && waiting == nil) }

    init(fd: Int32, id: Int, peer: String, accessory: HomeKitAccessory, clock: any MonotonicClock, arrivals: Arrivals) {
        self.fd = fd
        self.arrivals = arrivals
        self.id = id
        self.peer = peer
        self.accessory = accessory
        self.clock = clock
        lastHeard = clock.now()
        // Strangers share one allowance (identify's warning, the log's bursts): a peer can come
        // back with a new port at will.
        source = RequestSource("homekit \(peer)", channel: nil, summaryKey: "homekit-unpaired")
        accessory.opened(self)
    }

    var wantsWrite: Bool { !outbox.isEmpty }
    var standing: ConnectionBudget.Standing { controller != nil ? .proven : .stranger }

    // MARK: reading

    func receive(hungUp: Bool) -> Received {
        // Requests already read come first: one at a time, each answered before the next.
        if waiting == nil, let item = nextRequest() { return .packet(item) }
        if waiting != nil { return .empty }
        let bytes: ArraySlice<UInt8>
        switch PacketSocket.read(fd, into: &readBuffer) {
        case .empty(let at):
            arrivals.sawEmpty(at: at)
            return .empty
        case .closed:
            return .left
        case .packet(let read, _, _):
            // TCP merges segments that wait unread and stamps them with the newest, so a stamp
            // says nothing of the oldest byte: the socket's empty mark is the arrival.
            let arrived = arrivals.arrival(of: read.count, stamp: nil)
            if waitingSince == nil { waitingSince = arrived }
            bytes = read
        }
        do throws(HAPRequestStream.Broken) {
            try stream.feed(Array(bytes))
        } catch {
            guard case .frame(let why) = error else { return .left }
            fail(why)
            return .packet([])
        }
        return .packet(nextRequest() ?? [])
    }

    /// Handles the next whole request; nil when none is complete.
    private func nextRequest() -> [Incoming]? {
        guard !failed, !closeWhenSent else { return nil }
        let request: HTTPRequest?
        do { request = try stream.next() } catch {
            mayHaveMore = false
            respond(HTTPResponse(status: error.status))
            closeAfterReplies()
            closeReason = "malformed HTTP: \(error.reason)"
            return []
        }
        mayHaveMore = request != nil
        guard let request else { return nil }
        requestArrival = waitingSince ?? arrivals.emptyMark
        if stream.isIdle { waitingSince = nil }
        routing = true
        defer { routing = false }
        return route(request)
    }

    private func route(_ r: HTTPRequest) -> [Incoming] {
        switch (r.method, r.path) {
        case ("POST", "/pair-setup"):
            guard !stream.isSecure else { respond(HTTPResponse(status: 400)); return [] }
            let reply = accessory.pairSetup(r.body, connection: id, peer: peer)
            respond(tlv(reply))
        case ("POST", "/pair-verify"):
            guard !stream.isSecure else { respond(HTTPResponse(status: 400)); return [] }
            guard mayExchangeKeys(r.body) else { return [] }
            let (reply, verified) = verify.handle(r.body, accessory: accessory.state, crypto: accessory.crypto)
            respond(tlv(reply))
            if let verified {
                // The reply went out in the clear; everything after is framed. Bytes that came
                // in the clear behind M3 were sent before any proof: nobody's to run as the
                // controller's, so the connection closes instead (the contract's first clause).
                guard stream.secure(with: verified.cipher) else {
                    fail("bytes in the clear came behind pair-verify's last message (an on-path attacker's, or a broken controller)")
                    return []
                }
                controller = verified.controller
                source = RequestSource("homekit \(verified.controller)", channel: nil)
            }
        case ("POST", "/identify"):
            guard !accessory.state.isPaired else { respond(json(400, ["status": -70401])); return [] }
            respond(HTTPResponse(status: 204))
            return [.requests([request(.identify(door: 0))])]
        default:
            guard stream.isSecure, controller != nil else {
                respond(json(470, ["status": -70411]))
                return []
            }
            return routeVerified(r)
        }
        return []
    }

    private func routeVerified(_ r: HTTPRequest) -> [Incoming] {
        switch (r.method, r.path) {
        case ("GET", "/accessories"):
            respond(HTTPResponse(status: 200, contentType: "application/hap+json",
                                 body: Array(accessory.database.document { accessory.value($0) }.serialized.utf8)))
        case ("GET", "/characteristics"):
            read(r)
        case ("PUT", "/characteristics"):
            return write(r)
        case ("PUT", "/prepare"):
            guard let body = parse(r.body), let ttl = body["ttl"]?.intValue, let pid = body["pid"]?.intValue, ttl > 0 else {
                respond(json(400, ["status": HAPStatus.invalidValue.rawValue]))
                return []
            }
            let lasts = min(Duration.milliseconds(ttl), HomeKitConnection.maxPrepareTTL)
            prepared = (UInt64(bitPattern: pid), clock.now() + lasts)
            respond(json(200, ["status": 0]))
        case ("POST", "/pairings"):
            // Rights are read from the pairings now, never copied into the session (a demoted
            // admin is demoted at once).
            let admin = controller.flatMap { accessory.state.pairing($0)?.admin } ?? false
            respond(tlv(accessory.pairings(r.body, by: controller ?? "-", admin: admin)))
        default:
            respond(HTTPResponse(status: 404))
        }
        return []
    }

    // MARK: characteristics

    private func read(_ r: HTTPRequest) {
        guard let ids = r.queryValue("id").flatMap(HAPCharacteristicID.list) else {
            respond(json(400, ["status": HAPStatus.invalidValue.rawValue]))
            return
        }
        let withEv = r.queryValue("ev") == "1"
        var failed = false
        let items: [JSONValue] = ids.map { id in
            var members: [(String, JSONValue)] = [("aid", .number(Int64(id.aid))), ("iid", .number(Int64(id.iid)))]
            guard let c = accessory.database.characteristic(id) else {
                failed = true
                return .object(members + [("status", .number(Int64(HAPStatus.doesNotExist.rawValue)))])
            }
            guard c.readable else {
                failed = true
                return .object(members + [("status", .number(Int64(HAPStatus.writeOnly.rawValue)))])
            }
            members.append(("value", accessory.value(c)))
            if withEv { members.append(("ev", .bool(subscriptions.contains(id)))) }
            return .object(members)
        }
        let body = failed ? items.map { item -> JSONValue in
            guard case .object(let m) = item, item["status"] == nil else { return item }
            return .object(m + [("status", .number(0))])
        } : items
        respond(HTTPResponse(status: failed ? 207 : 200, contentType: "application/hap+json",
                             body: Array(JSONValue.object([("characteristics", .array(body))]).serialized.utf8)))
    }

    private func write(_ r: HTTPRequest) -> [Incoming] {
        guard let body = parse(r.body), let list = body["characteristics"]?.arrayValue else {
            respond(json(400, ["status": HAPStatus.invalidValue.rawValue]))
            return []
        }
        if let pid = body["pid"]?.intValue {
            // A timed write: only with the pid a prepare announced, and before it expires.
            guard let p = prepared, p.pid == UInt64(bitPattern: pid), clock.now() <= p.until else {
                prepared = nil
                respond(json(400, ["status": HAPStatus.invalidValue.rawValue]))
                return []
            }
            prepared = nil
        }
        var statuses: [(HAPCharacteristicID, HAPStatus)] = []
        var writes: [(HAPCharacteristicID, HAPCharacteristic, Int)] = []
        var requests: [DoorRequest] = []
        for item in list {
            guard let aid = item["aid"]?.intValue, let iid = item["iid"]?.intValue else { continue }
            let id = HAPCharacteristicID(aid: Int(aid), iid: Int(iid))
            guard let c = accessory.database.characteristic(id) else { statuses.append((id, .doesNotExist)); continue }
            if let ev = item["ev"]?.boolValue ?? item["ev"]?.intValue.map({ $0 != 0 }) {
                guard c.notifies else { statuses.append((id, .notificationNotSupported)); continue }
                if ev { subscriptions.insert(id) } else { subscriptions.remove(id) }
            }
            guard let value = item["value"] else {
                if item["ev"] == nil { statuses.append((id, .invalidValue)) } else { statuses.append((id, .success)) }
                continue
            }
            guard c.writable else { statuses.append((id, .readOnly)); continue }
            let number = value.intValue ?? value.boolValue.map { $0 ? 1 : 0 }
            switch c {
            case .targetDoorState(let door):
                guard let n = number, n == 0 || n == 1 else { statuses.append((id, .invalidValue)); continue }
                // A write that repeats the target moves nothing (the Home app rewrites it when it reconnects).
                if Int(n) == accessory.views[door].target { statuses.append((id, .success)); continue }
                writes.append((id, c, Int(n)))
                requests.append(request(.move(n == 0 ? .open : .close, door: door)))
            case .lightOn(let door):
                guard let n = number, n == 0 || n == 1 else { statuses.append((id, .invalidValue)); continue }
                writes.append((id, c, Int(n)))
                requests.append(request(.light(n == 1, door: door)))
            case .identify:
                requests.append(request(.identify(door: 0)))
                writes.append((id, c, 1))
            default:
                statuses.append((id, .readOnly))
            }
        }
        if requests.isEmpty {
            answerWrites(statuses)
            return []
        }
        waiting = (writes, statuses)
        return [.requests(requests)]
    }

    func judged(_ accepted: [Bool]) {
        guard let w = waiting else { return }
        waiting = nil
        var statuses = w.statuses
        for ((id, c, value), ok) in zip(w.writes, accepted) {
            statuses.append((id, ok ? .success : .unableToCommunicate))
            if case .targetDoorState(let door) = c {
                if ok { accessory.accepted(target: value, door: door) } else { accessory.refused(door: door) }
            }
        }
        answerWrites(statuses)
    }

    private func answerWrites(_ statuses: [(HAPCharacteristicID, HAPStatus)]) {
        if statuses.allSatisfy({ $0.1 == .success }) {
            respond(HTTPResponse(status: 204))
            return
        }
        let items: [JSONValue] = statuses.map {
            .object([("aid", .number(Int64($0.0.aid))), ("iid", .number(Int64($0.0.iid))), ("status", .number(Int64($0.1.rawValue)))])
        }
        respond(HTTPResponse(status: 207, contentType: "application/hap+json",
                             body: Array(JSONValue.object([("characteristics", .array(items))]).serialized.utf8)))
    }

    /// Sends the subscribed ones among `changed` as one event message.
    func sendEvent(_ changed: [(HAPCharacteristicID, JSONValue)]) {
        guard stream.isSecure, !failed, !closeWhenSent else { return }
        let mine = changed.filter { subscriptions.contains($0.0) }
        guard !mine.isEmpty else { return }
        let items: [JSONValue] = mine.map {
            .object([("aid", .number(Int64($0.0.aid))), ("iid", .number(Int64($0.0.iid))), ("value", $0.1)])
        }
        send(HTTPResponse.event(json: Array(JSONValue.object([("characteristics", .array(items))]).serialized.utf8)))
    }

    // MARK: writing

    private func respond(_ r: HTTPResponse) { send(r.bytes) }

    private func send(_ message: [UInt8]) {
        guard !failed else { return }
        outbox += stream.seal(message)
        flush()
        if outbox.count > HomeKitConnection.maxQueuedBytes { fail("it stopped reading (\(outbox.count) bytes waiting)") }
    }

    func deliver(_ replies: [Reply]) {}

    func flush() {
        while !outbox.isEmpty {
            let n = outbox.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if n > 0 {
                outbox.removeFirst(n)
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                if n < 0 && errno != EAGAIN && errno != EWOULDBLOCK { fail("send failed: \(String(cString: strerror(errno)))") }
                return
            }
        }
    }

    /// Closes once what is queued is sent (a removed pairing, a reset, a malformed request).
    func closeAfterReplies() { closeWhenSent = true }

    private func fail(_ why: String) {
        failed = true
        closeReason = why
        outbox = []
    }

    func close() {
        accessory.closed(self, id: id)
        Glibc.close(fd)
    }

    // MARK: helpers

    /// A request of the one being answered, stamped with when its bytes began to arrive.
    private func request(_ ask: DoorRequest.Ask) -> DoorRequest {
        DoorRequest(ask, from: source, arrived: clock.now() - PacketSocket.age(of: requestArrival))
    }

    /// A pair-verify M1 (a key exchange to start) spends from the accessory's budget of
    /// exchanges; past it the answer is Busy, with no crypto done. False when so answered.
    private func mayExchangeKeys(_ body: [UInt8]) -> Bool {
        guard let items = try? TLV8.decode(body), TLV8.first(.state, in: items) == [1],
              !accessory.mayExchangeKeys(peer: peer) else { return true }
        respond(tlv(TLV8.encode([(HAPTLVType.state.rawValue, [2]), (HAPTLVType.error.rawValue, [HAPTLVError.busy.rawValue])])))
        return false
    }

    private func tlv(_ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: 200, contentType: "application/pairing+tlv8", body: body)
    }

    private func json(_ status: Int, _ members: KeyValuePairs<String, Int>) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/hap+json",
                     body: Array(JSONValue.object(members.map { ($0.key, .number(Int64($0.value))) }).serialized.utf8))
    }

    private func parse(_ body: [UInt8]) -> JSONValue? {
        guard let text = String(validating: body, as: UTF8.self) else { return nil }
        return try? JSONParser.parse(text)
    }
}

/// Which handler answers which request, and the rule they share: before pair-verify only the
/// open routes (pairing, and identify while unpaired) are served, anything else is 470; after
/// it, a request no route knows is 404.
extension HAPSession {
    /// A request's method and path: what picks its route.
    struct RouteKey: Hashable, Sendable {
        var method: String
        var path: String
        init(_ method: String, _ path: String) {
            self.method = method
            self.path = path
        }
    }

    /// One route: its handler, and whether it needs a verified controller.
    struct Route: Sendable {
        var verifiedOnly: Bool
        var serve: @Sendable (inout HAPSession, HTTPRequest, Turn) -> Void

        static func open(_ handle: @escaping @Sendable (inout HAPSession, HTTPRequest, Turn) -> Void) -> Route {
            Route(verifiedOnly: false, serve: handle)
        }
        static func verified(_ handle: @escaping @Sendable (inout HAPSession, HTTPRequest, Turn) -> Void) -> Route {
            Route(verifiedOnly: true, serve: handle)
        }
    }

    /// Every request's handler.
    static let routes: [RouteKey: Route] = [
        RouteKey("POST", "/pair-setup"): .open { s, r, t in s.pairSetup(r, t) },
        RouteKey("POST", "/pair-verify"): .open { s, r, t in s.pairVerify(r, t) },
        RouteKey("POST", "/identify"): .open { s, _, t in s.identify(t) },
        RouteKey("GET", "/accessories"): .verified { s, _, t in s.accessories(t) },
        RouteKey("GET", "/characteristics"): .verified { s, r, t in s.read(r, t) },
        RouteKey("PUT", "/characteristics"): .verified { s, r, t in s.write(r, t) },
        RouteKey("PUT", "/prepare"): .verified { s, r, t in s.prepare(r, t) },
        RouteKey("POST", "/pairings"): .verified { s, r, t in s.pairings(r, t) },
    ]

    /// Answers one request by its route.
    mutating func route(_ r: HTTPRequest, _ turn: Turn) {
        let route = HAPSession.routes[RouteKey(r.method, r.path)]
        if let route, !route.verifiedOnly { return route.serve(&self, r, turn) }
        guard stream.isSecure, controller != nil else { return respond(json(470, ["status": -70411])) }
        guard let route else { return respond(HTTPResponse(status: 404)) }
        route.serve(&self, r, turn)
    }

    // MARK: pairing

    mutating func pairSetup(_ r: HTTPRequest, _ turn: Turn) {
        guard !stream.isSecure else { return respond(HTTPResponse(status: 400)) }
        respond(tlv(turn.accessory.pairSetup(r.body, connection: id, peer: peer, at: turn.now)))
    }

    mutating func pairVerify(_ r: HTTPRequest, _ turn: Turn) {
        guard !stream.isSecure else { return respond(HTTPResponse(status: 400)) }
        guard mayExchangeKeys(r.body, turn) else { return }
        let (reply, verified) = verify.step(r.body, accessory: turn.accessory.state, crypto: turn.accessory.crypto)
        respond(tlv(reply))
        guard let verified else { return }
        // The reply went out in the clear; everything after is framed. Bytes that came in the
        // clear behind M3 were sent before any proof: nobody's to run as the controller's, so
        // the session breaks instead (the channel contract's first clause).
        guard stream.secure(with: verified.cipher) else {
            return fail("bytes in the clear came behind pair-verify's last message (an on-path attacker's, or a broken controller)")
        }
        controller = verified.controller
        source = RequestSource("homekit \(verified.controller)", channel: nil)
    }

    /// A pair-verify M1 (a key exchange to start) spends from the accessory's budget of
    /// exchanges; past it the answer is Busy, with no crypto done. False when so answered.
    mutating func mayExchangeKeys(_ body: [UInt8], _ turn: Turn) -> Bool {
        guard let items = try? TLV8.decode(body), TLV8.first(.state, in: items) == [1],
              !turn.accessory.mayExchangeKeys(peer: peer, at: turn.now) else { return true }
        respond(tlv(TLV8.encode([(HAPTLVType.state.rawValue, [2]), (HAPTLVType.error.rawValue, [HAPTLVError.busy.rawValue])])))
        return false
    }

    /// `POST /pairings`: rights are read from the pairings now, never copied into the session
    /// (a demoted admin is demoted at once); a session whose own pairing it removed closes.
    mutating func pairings(_ r: HTTPRequest, _ turn: Turn) {
        let admin = controller.flatMap { turn.accessory.state.pairing($0)?.admin } ?? false
        respond(tlv(turn.accessory.pairings(r.body, by: controller ?? "-", admin: admin)))
        closeIfUnpaired(turn.accessory.state)
    }

    // MARK: the accessory

    /// `POST /identify`, only while unpaired: answered at once, the door shown by the loop.
    mutating func identify(_ turn: Turn) {
        guard !turn.accessory.state.isPaired else { return respond(json(400, ["status": -70401])) }
        respond(HTTPResponse(status: 204))
        out.requests.append(request(.identify(door: 0)))
    }

    mutating func accessories(_ turn: Turn) {
        let views = turn.accessory.views
        respond(HTTPResponse(status: 200, contentType: "application/hap+json",
                             body: Array(turn.accessory.database.document { $0.value(among: views) }.serialized.utf8)))
    }

    /// `PUT /prepare`: the `pid` of the timed write to come, and how long it may take to come.
    mutating func prepare(_ r: HTTPRequest, _ turn: Turn) {
        guard let body = parse(r.body), let ttl = body["ttl"]?.intValue, let pid = body["pid"]?.intValue, ttl > 0 else {
            return respond(json(400, ["status": HAPStatus.invalidValue.rawValue]))
        }
        let lasts = min(Duration.milliseconds(ttl), HAPSession.maxPrepareTTL)
        prepared = (UInt64(bitPattern: pid), turn.now + lasts)
        respond(json(200, ["status": 0]))
    }

    // MARK: helpers

    func tlv(_ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: 200, contentType: "application/pairing+tlv8", body: body)
    }

    func json(_ status: Int, _ members: KeyValuePairs<String, Int>) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/hap+json",
                     body: Array(JSONValue.object(members.map { ($0.key, .number(Int64($0.value))) }).serialized.utf8))
    }

    func parse(_ body: [UInt8]) -> JSONValue? {
        guard let text = String(validating: body, as: UTF8.self) else { return nil }
        return try? JSONParser.parse(text)
    }
}

import DoorCore
import DoorSystem

/// garaged as one HomeKit accessory, what all its sessions (`HAPSession`, one per connection)
/// share: its kept state (keys, setup code, pairings), saved before anything is answered; the
/// one pair-setup at a time; the key-exchange budget; the accessory database; how each door reads
/// in HomeKit; and the live connections to tell. It is the sessions' `HAPAccessoryModel`, and a
/// `DoorSubscriber`: it keeps the last status snapshot it was given, which the values HomeKit reads
/// are a view of (`HAPDatabase.views(of:)`), and sends subscribed controllers what the view says
/// changed (`HAPDatabase.events(from:to:)`). Used on the door loop's thread only (connections, status and
/// commands all come there), so it needs no lock.
final class HomeKitAccessory: HAPAccessoryModel, DoorSubscriber, @unchecked Sendable {
    private(set) var state: HAPAccessoryState
    let file: HomeKitFile
    let crypto: any HAPCrypto
    let database: HAPDatabase
    let log: Logger
    let clock: any MonotonicClock
    /// Where the history's records go (pairings, wrong setup codes): the door loop's inbox.
    let inbox: LoopInbox
    /// The one pair-setup at a time.
    private var setup = PairSetup()
    /// Key exchanges started by peers that proved nothing yet, in all and per address.
    private var handshakes = HandshakeBudget()
    /// A wrong setup code is counted in `state` but not yet saved: pair-setup is refused until
    /// it is, so no code is tried that could not be counted.
    private var failureUnsaved = false
    /// The status snapshot the loop last gave (none until the first): HomeKit's values are read
    /// from it, never copied.
    private var delivered: StatusSnapshot?
    /// The open sessions (connection state: who to send events to, who to close when a pairing
    /// goes); no door value is kept per session.
    private var sessions: [ObjectIdentifier: WeakConnection] = [:]
    /// The pairings changed since the sessions were last checked against them (`closeUnpaired`).
    private var pairingsToCheck = false
    /// Told when the pairings change (the mDNS `sf` record).
    var pairingsChanged: (@Sendable (Bool) -> Void)?

    struct WeakConnection { weak var connection: HomeKitConnection? }

    init(state: HAPAccessoryState, file: HomeKitFile, database: HAPDatabase, crypto: any HAPCrypto, clock: any MonotonicClock,
         inbox: LoopInbox, log: Logger) {
        self.state = state
        self.file = file
        self.database = database
        self.crypto = crypto
        self.clock = clock
        self.inbox = inbox
        self.log = log
    }

    /// The kept state, or a new accessory (made and saved on the first start with HomeKit on);
    /// the configuration number goes up when the database is not the one it was given for.
    static func load(file: HomeKitFile, database: HAPDatabase, crypto: any HAPCrypto) throws(StoreError) -> HAPAccessoryState {
        var state = try file.load() ?? HAPAccessoryState.fresh(crypto: crypto)
        let digest = database.digest
        if state.databaseDigest != digest {
            if !state.databaseDigest.isEmpty { state.configNumber = state.configNumber % 65535 + 1 }
            state.databaseDigest = digest
            try file.save(state)
        }
        return state
    }

    // MARK: sessions

    func opened(_ c: HomeKitConnection) { sessions[ObjectIdentifier(c)] = WeakConnection(connection: c) }
    func closed(_ c: HomeKitConnection, id: Int) {
        sessions[ObjectIdentifier(c)] = nil
        setup.connectionClosed(id, at: clock.now())
    }

    private var live: [HomeKitConnection] { sessions.values.compactMap(\.connection) }

    // MARK: the kept state

    /// Applies a change to the kept state and saves it; false (said in the log) when it could
    /// not be saved, in which case nothing changed.
    func change(_ what: String, _ body: (inout HAPAccessoryState) -> Void) -> Bool {
        var copy = state
        body(&copy)
        do { try file.save(copy) } catch {
            log.error("homekit-save-failed", ["what": what, "error": error.description])
            return false
        }
        let wasPaired = state.isPaired
        state = copy
        failureUnsaved = false
        if wasPaired != state.isPaired { pairingsChanged?(state.isPaired) }
        pairingsToCheck = true
        return true
    }

    /// Closes the sessions whose pairing went (a controller whose pairing is removed has no
    /// session any more). Each connection calls it once its session has answered, so no session
    /// is touched while it is answering (`change` runs inside a request's handling).
    func closeUnpaired() {
        guard pairingsToCheck else { return }
        pairingsToCheck = false
        for c in live { c.pairingsChanged(state) }
    }

    // MARK: pairing

    /// True when `peer` ("address:port") may start a key exchange now (pair-verify M1);
    /// false: answer Busy.
    func mayExchangeKeys(peer: String, at now: Instant) -> Bool {
        handshakes.spend(peer: HomeKitAccessory.address(of: peer), at: now)
    }

    /// `POST /pair-setup` on connection `connection` from `peer` ("address:port"): the reply. A
    /// wrong code is counted, and a new pairing saved, before it goes.
    func pairSetup(_ body: [UInt8], connection: Int, peer: String, at now: Instant) -> [UInt8] {
        if failureUnsaved, (try? file.save(state)) != nil {
            failureUnsaved = false
            log.info("homekit-failures-saved", ["failures": String(state.failedSetups), "effect": "pair-setup is open again"])
        }
        let (reply, effect) = setup.step(body, connection: connection, peer: HomeKitAccessory.address(of: peer), accessory: state,
                                           crypto: crypto, at: now, canCountFailures: !failureUnsaved)
        switch effect {
        case .failed?:
            // Counted before it is saved: a full disk cannot make a wrong code free.
            state.failedSetups += 1
            do { try file.save(state) } catch {
                failureUnsaved = true
                log.error("homekit-save-failed", ["what": "failed pair-setup", "error": error.description,
                                                  "effect": "counted, and pair-setup is refused until the count can be saved"])
            }
            log.warning("homekit-pair-setup-failed", ["peer": peer, "failures": String(state.failedSetups), "why": "a wrong setup code"])
            record(.wrongSetupCode, by: peer, detail: "\(state.failedSetups) of \(HAPAccessoryState.maxFailures) tries")
        case .paired(let p)?:
            guard change("pairing", { _ = $0.add(p) }) else {
                return TLV8.encode([(HAPTLVType.state.rawValue, [6]), (HAPTLVType.error.rawValue, [HAPTLVError.unknown.rawValue])])
            }
            log.info("homekit-paired", ["peer": peer, "controller": p.id, "admin": "yes"])
            record(.pair, by: peer, controller: p.id, detail: "admin")
        case nil:
            break
        }
        return reply
    }

    /// `POST /pairings` from the verified controller `by` (`admin`: whether it is one): the
    /// reply. A change is saved before it goes, then logged and recorded in the history.
    func pairings(_ body: [UInt8], by controller: String, admin: Bool) -> [UInt8] {
        let (reply, asked) = PairingsRequest.answer(body, admin: admin, state: state)
        switch asked {
        case .add(let p)?:
            guard change("pairing added", { _ = $0.add(p) }) else { return PairingsRequest.error(.unknown) }
            log.info("homekit-pairing-added", ["by": controller, "controller": p.id, "admin": p.admin ? "yes" : "no"])
            record(.pair, by: controller, controller: p.id, detail: p.admin ? "admin" : "user")
        case .remove(let id)?:
            let before = state.pairings.count
            guard change("pairing removed", { $0.remove(id, crypto: crypto) }) else { return PairingsRequest.error(.unknown) }
            log.info("homekit-pairing-removed", [("by", controller), ("controller", id), ("paired", String(state.pairings.count))]
                     + (state.isPaired ? [] : [("setup_code", "new (garage-pins homekit shows it)")]))
            record(.unpair, by: controller, controller: id,
                   detail: state.isPaired ? nil : before == 1 ? "the last pairing: a new setup code"
                       : "no admin left: all \(before) pairings forgotten, a new setup code")
        case nil:
            break
        }
        return reply
    }

    /// Hands the history a HomeKit record: `by` is the peer or the controller that did it,
    /// `controller` the pairing it is about. Wrong setup codes are summarised per burst from
    /// every peer together (a guesser can reconnect at will).
    private func record(_ kind: EventRecord.Kind, by: String, controller: String? = nil, detail: String?) {
        inbox.record(EventRecord(time: EventRecord.now(), kind: kind, source: "homekit \(by)", label: controller, detail: detail),
                     summaryKey: "homekit")
    }

    /// A connection's peer ("192.0.2.7:51234", "[2001:db8::7]:51234") without its port: who a
    /// pair-setup's cooldown holds back, whatever connection it comes on next.
    static func address(of peer: String) -> String {
        guard let colon = peer.lastIndex(of: ":") else { return peer }
        return String(peer[..<colon])
    }

    /// `garage-pins homekit reset`: every pairing forgotten, a new setup code, every session closed.
    func reset() -> Bool {
        let ok = change("reset") { $0.reset(crypto: crypto) }
        if ok {
            pairingsToCheck = false
            for c in live { c.closeAfterReplies() }
        }
        return ok
    }

    // MARK: the doors

    /// Each door as HomeKit reads it now: the view of the last snapshot (closed and clear until the first).
    var views: [HAPDoorView] { database.views(of: delivered) }

    /// The snapshot becomes what HomeKit reads; subscribed sessions are told what its view says changed.
    func statusChanged(from old: StatusSnapshot?, to new: StatusSnapshot, at now: Instant) {
        delivered = new
        tell(database.events(from: old, to: new))
    }

    /// Sends each subscribed session the values that changed (one event message each), but
    /// `except`, whose session said its own already.
    func tell(_ changed: [(HAPCharacteristicID, JSONValue)], except: HomeKitConnection? = nil) {
        guard !changed.isEmpty else { return }
        for c in live where c !== except { c.sendEvent(changed) }
    }
}

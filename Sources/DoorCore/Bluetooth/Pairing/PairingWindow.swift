/// When a phone may bond with the garage, and what the pairing agent does with each of the
/// kernel's pairing events. Closed unless the owner opened it (`garage-pins pair`), for one
/// phone, for a while; only LE Secure Connections with Passkey Entry makes a bond. Pure: the
/// daemon sends the commands, saves the bond and tells the owner what the actions say.
public struct PairingWindow: Sendable {
    /// What the owner asked for.
    public struct Request: Equatable, Sendable {
        public var label: String?
        public var admin: Bool
        public var seconds: Int
        public init(label: String?, admin: Bool, seconds: Int) {
            self.label = label
            self.admin = admin
            self.seconds = seconds
        }
    }

    /// What the owner is told, in order, while the window is open.
    public enum Report: Equatable, Sendable {
        case opened(seconds: Int, label: String)
        /// Type this on the phone.
        case passkey(String, phone: LEAddress)
        case paired(BondedPhone)
        /// A pairing that completed but is not accepted (legacy, Just Works, no bond): undone.
        case refused(String)
        /// A pairing that did not complete.
        case failed(String)
        case closed(String)
    }

    public enum Action: Equatable, Sendable {
        case send(ManagementCommand)
        case report(Report)
        /// Save this phone with the others, then load every key into the kernel again.
        case bond(BondedPhone)
        /// Put the kernel's keys back to the bonded phones' (after a refused pairing
        /// replaced or added one).
        case reloadKeys
        /// A pairing attempt while the window was closed: logged, never reported as progress.
        case refusedOutside(String, LEAddress)
    }

    public static let defaultSeconds = 60
    public static let maxSeconds = 600

    private var request: Request?
    private var label = ""
    private var deadline: Instant?
    /// IRKs the kernel handed over in this pairing, until its long-term key arrives.
    private var irks: [LEAddress: IdentityResolvingKey] = [:]

    public init() {}

    public var isOpen: Bool { request != nil }

    /// Opens the window, or opens it again for a new request: the last one ends without a
    /// report, since its follower was told it was replaced when the new request came (a report
    /// now would reach the new request's follower).
    public mutating func open(_ r: Request, label: String, at now: Instant) -> [Action] {
        request = r
        self.label = label
        deadline = now + .seconds(r.seconds)
        irks = [:]
        return [.send(.setBondable(true)), .report(.opened(seconds: r.seconds, label: label))]
    }

    /// Closes the window; the kernel refuses bonds again.
    public mutating func close(_ why: String) -> [Action] {
        guard isOpen else { return [] }
        request = nil
        deadline = nil
        irks = [:]
        return [.send(.setBondable(false)), .report(.closed(why))]
    }

    /// When the window closes by itself, for the agent's timer.
    public var closesAt: Instant? { deadline }

    public mutating func tick(at now: Instant) -> [Action] {
        guard let deadline, now >= deadline else { return [] }
        return close("no phone paired within \(request?.seconds ?? 0) s")
    }

    /// What to do about one event from the kernel; `wall` stamps a new bond.
    public mutating func apply(_ event: ManagementEvent, wall: Int64) -> [Action] {
        switch event {
        case .passkeyNotify(let phone, let passkey):
            guard isOpen else { return [.send(.disconnect(phone)), .refusedOutside("a phone asked to pair while no pairing window was open", phone)] }
            let digits = String(passkey % 1_000_000)
            return [.report(.passkey(String(repeating: "0", count: 6 - digits.count) + digits, phone: phone))]
        case .userConfirmRequest(let phone, _):
            // Just Works or Numeric Comparison: neither lets the owner check the phone here.
            let why = "the phone offered pairing without a passkey (Just Works or Numeric Comparison); garaged pairs only with Passkey Entry: the phone must be able to type the passkey"
            return [.send(.userConfirmNegativeReply(phone))] + (isOpen ? [.report(.failed(why))] : [.refusedOutside(why, phone)])
        case .userPasskeyRequest(let phone):
            return [.send(.userPasskeyNegativeReply(phone))]
                + (isOpen ? [.report(.failed("the phone wanted garaged to type a passkey; garaged has no keyboard"))] : [.refusedOutside("passkey requested", phone)])
        case .newIdentityResolvingKey(let irk, _):
            if isOpen { irks[irk.address] = irk }
            return []
        case .newLongTermKey(let ltk, let store):
            return newKey(ltk, store: store, wall: wall)
        case .authenticationFailed(let phone, let status):
            guard isOpen else {
                // The kernel refused it (no bonding outside a window) and reports every SMP
                // failure as an authentication failure: say what really happened.
                return [.refusedOutside("a phone tried to pair while no pairing window was open (open one with garage-pins pair)", phone)]
            }
            return [.report(.failed("pairing with \(phone.text) failed: \(PairingWindow.reason(status))"))]
        case .commandDone, .indexAdded, .indexRemoved, .other:
            return []
        }
    }

    private mutating func newKey(_ ltk: LongTermKey, store: Bool, wall: Int64) -> [Action] {
        let undo: [Action] = [.send(.unpairDevice(ltk.address, disconnect: true)), .reloadKeys]
        guard let request else {
            return undo + [.refusedOutside("a pairing completed while no pairing window was open: its key was removed", ltk.address)]
        }
        var why: String?
        switch ltk.kind {
        case .legacyUnauthenticated, .legacyAuthenticated:
            why = "the phone used legacy pairing, whose passkey a listener can recover; garaged needs LE Secure Connections (iOS 8+, Android 6+)"
        case .p256Unauthenticated, .p256Debug:
            why = "the pairing was not authenticated by a passkey (Just Works or a debug key)"
        case .p256Authenticated:
            if ltk.encryptionSize < 16 { why = "the phone offered a \(ltk.encryptionSize)-octet key; garaged needs 16" }
            else if !store { why = "the phone did not ask for a bond, so it could not come back without pairing again" }
        }
        if let why { return undo + [.report(.refused(why))] }
        let phone = BondedPhone(label: label, admin: request.admin, ltk: ltk, irk: irks[ltk.address], since: wall)
        return [.bond(phone), .report(.paired(phone))] + close("paired \(label)")
    }

    /// MGMT_STATUS_* as words (doc/mgmt-api.txt).
    public static func reason(_ status: UInt8) -> String {
        switch status {
        case 0x05: return "authentication failed (a wrong passkey?)"
        case 0x08: return "timed out (no passkey typed in time?)"
        case 0x0B: return "the phone or garaged refused it"
        case 0x0E: return "cancelled"
        case 0x12: return "busy"
        case 0x0C: return "not supported (the phone asked for a bond while no pairing window was open)"
        default: return "management status 0x\(Hex.byte(status))"
        }
    }
}

/// The owner-only requests the local socket adds to the book's protocol (`<PIN>L<verb> ...`):
/// labels, richer status, the event history and pushed updates. Bluetooth never carries them
/// (an ATT bearer gets `ERR CMD`), so the book's app and its 20-byte records are untouched.
public enum LocalCommand: Equatable, Sendable {
    /// The command letter of every local extension.
    public static let letter = UInt8(ascii: "L")

    /// `Llist`: every used slot with its label, one JSON record each.
    case list
    /// `Ladd <pin>[ <label>]`: `A`, and the label in the same step.
    case add(PIN, label: String?)
    /// `Llabel <slot>[ <name>]`: names a used slot; no name clears it.
    case label(slot: Int, name: String?)
    /// `Lstatus`: door, seconds to auto-close, lockout, as one JSON record.
    case status
    /// `Llog[ <ms>]`: the event history, from a wall-clock time in ms since the epoch.
    case log(since: Int64?)
    /// `Lfollow status|log[ <ms>]`: keep the connection and push each change as it happens;
    /// for the log, first the records since `<ms>`, in the same step so none is lost between.
    case follow(FollowTopic, since: Int64? = nil)
    /// `Lunlock[ remote|local]`: ends a lockout and forgets the wrong PINs of one channel, or
    /// of every channel (master PIN, or the owner at the shell).
    case unlock(Throttle.Channel?)
    /// `Lpair <seconds> admin|user[ <label>]`: opens the Bluetooth pairing window; the
    /// connection is then told the passkey and the outcome (`--ble-security paired`).
    case pair(PairingWindow.Request)
    /// `Lphones`: every bonded phone, one JSON record each (never its keys).
    case phones
    /// `Lunpair <label>`: forgets a bonded phone's keys, in the file and the kernel at once.
    case unpair(String)
    /// `Ldoors <slot> <door>[,<door>...]|all`: limits a used slot's PIN to some doors, or lets
    /// it use every door again.
    case doors(slot: Int, [String]?)
    /// `Lhomekit[ pairings|reset]`: the setup code and URI, the paired controllers, or forgetting
    /// every pairing with a new code.
    case homekit(HomeKitVerb)
    /// `Lremotes lock|unlock`: the opener's own remotes and keypads stop (or start again)
    /// working; its wall button always works. About one door, so `@<door>:` may name it.
    case remotes(locked: Bool)

    /// What `Lhomekit` asks.
    public enum HomeKitVerb: String, Equatable, Sendable {
        case info, pairings, reset
    }

    /// What a follower is pushed.
    public enum FollowTopic: String, Equatable, Sendable {
        case status, log
        /// Only the connection that asked for `pair` follows its window; `Lfollow` cannot.
        case pairing
    }

    /// Status (and following it) is for any stored PIN, like `S`; the rest is the master's.
    public var needsMaster: Bool {
        switch self {
        case .status, .follow(.status, _): return false
        default: return true
        }
    }

    public var name: String {
        switch self {
        case .list: return "x-list"
        case .add: return "x-add"
        case .label(let slot, _): return "label \(slot)"
        case .status: return "x-status"
        case .log: return "log"
        case .follow(let topic, _): return "follow \(topic.rawValue)"
        case .unlock(let channel): return "unlock" + (channel.map { " \($0.rawValue)" } ?? "")
        case .pair: return "pair"
        case .phones: return "phones"
        case .unpair: return "unpair"
        case .doors(let slot, _): return "doors \(slot)"
        case .homekit(let verb): return verb == .info ? "homekit" : "homekit " + verb.rawValue
        case .remotes(let locked): return locked ? "remotes lock" : "remotes unlock"
        }
    }

    /// True for the one extension about a door (`remotes`): `<PIN>@<door>:` may name which.
    public var isAboutADoor: Bool {
        if case .remotes = self { return true }
        return false
    }

    /// The argument text after `L` (UTF-8, so labels may be any language).
    var argumentText: String {
        switch self {
        case .list: return "list"
        case .add(let pin, let label): return "add " + pin.string + (label.map { " " + $0 } ?? "")
        case .label(let slot, let name): return "label \(slot)" + (name.map { " " + $0 } ?? "")
        case .status: return "status"
        case .log(let since): return "log" + (since.map { " \($0)" } ?? "")
        case .follow(let topic, let since): return "follow " + topic.rawValue + (since.map { " \($0)" } ?? "")
        case .unlock(let channel): return "unlock" + (channel.map { " " + $0.rawValue } ?? "")
        case .pair(let r): return "pair \(r.seconds) " + (r.admin ? "admin" : "user") + (r.label.map { " " + $0 } ?? "")
        case .phones: return "phones"
        case .unpair(let label): return "unpair " + label
        case .doors(let slot, let doors): return "doors \(slot) " + (doors?.joined(separator: ",") ?? "all")
        case .homekit(let verb): return verb == .info ? "homekit" : "homekit " + verb.rawValue
        case .remotes(let locked): return locked ? "remotes lock" : "remotes unlock"
        }
    }

    /// Parses what follows `L`; nil when it is not one of ours (answered `ERR FORMAT`).
    static func decode(_ args: [UInt8]) -> LocalCommand? {
        guard let text = String(validating: args, as: UTF8.self) else { return nil }
        let verb = text.prefix { $0 != " " }
        let rest = text.dropFirst(verb.count).first == " " ? String(text.dropFirst(verb.count + 1)) : nil
        func label(_ s: String?) -> String?? {
            guard let s, !s.isEmpty else { return .some(nil) }
            return Labels.problem(with: s) == nil ? .some(s) : nil
        }
        switch verb {
        case "list": return rest == nil ? .list : nil
        case "unlock":
            guard let rest else { return .unlock(nil) }
            return Throttle.Channel(rawValue: rest).map { .unlock($0) }
        case "status": return rest == nil ? .status : nil
        case "log":
            guard let rest else { return .log(since: nil) }
            return Int64(rest).map { .log(since: $0) }
        case "follow":
            let words = rest?.split(separator: " ", omittingEmptySubsequences: false) ?? []
            guard let topic = words.first.flatMap({ FollowTopic(rawValue: String($0)) }), topic != .pairing else { return nil }
            if words.count == 1 { return .follow(topic) }
            guard words.count == 2, topic == .log, let since = Int64(words[1]) else { return nil }
            return .follow(topic, since: since)
        case "phones": return rest == nil ? .phones : nil
        case "remotes": return rest == "lock" ? .remotes(locked: true) : rest == "unlock" ? .remotes(locked: false) : nil
        case "homekit":
            guard let rest else { return .homekit(.info) }
            return HomeKitVerb(rawValue: rest).flatMap { $0 == .info ? nil : .homekit($0) }
        case "unpair":
            guard let rest, !rest.isEmpty, let name = label(rest), let name else { return nil }
            return .unpair(name)
        case "pair":
            let words = rest?.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false) ?? []
            guard words.count >= 2, words[0].count <= 3, let seconds = Int(words[0]),
                  (1...PairingWindow.maxSeconds).contains(seconds), words[1] == "admin" || words[1] == "user" else { return nil }
            var name: String?
            if words.count == 3 {
                guard let n = label(String(words[2])), let n else { return nil }
                name = n
            }
            return .pair(PairingWindow.Request(label: name, admin: words[1] == "admin", seconds: seconds))
        case "add":
            guard let rest else { return nil }
            let pinText = String(rest.prefix(PIN.length))
            guard let pin = PIN(pinText) else { return nil }
            let after = rest.dropFirst(PIN.length)
            if after.isEmpty { return .add(pin, label: nil) }
            guard after.first == " ", let name = label(String(after.dropFirst())) else { return nil }
            return .add(pin, label: name)
        case "doors":
            let words = rest?.split(separator: " ", omittingEmptySubsequences: false) ?? []
            guard words.count == 2, words[0].count <= 3, let slot = Int(words[0]) else { return nil }
            if words[1] == "all" { return .doors(slot: slot, nil) }
            return DoorAccess.names(String(words[1])).map { .doors(slot: slot, $0) }
        case "label":
            guard let rest else { return nil }
            let digits = rest.prefix { $0 != " " }
            guard let slot = Int(digits), digits.count <= 3 else { return nil }
            let after = rest.dropFirst(digits.count)
            if after.isEmpty { return .label(slot: slot, name: nil) }
            guard after.first == " ", let name = label(String(after.dropFirst())) else { return nil }
            return .label(slot: slot, name: name)
        default: return nil
        }
    }
}

/// A phone the owner paired: its name, whether it may manage PINs over Bluetooth, and the keys
/// the kernel needs to recognise it (identity resolving key) and let it encrypt again without
/// pairing (long-term key). The keys are secrets: kept in a 0600 file, never logged or shown.
public struct BondedPhone: Equatable, Sendable {
    /// The owner's name for it, unique among the bonded phones (same rules as a PIN label).
    public var label: String
    /// May send P, A, E, D and C= over Bluetooth (the PIN must still be the master's).
    public var admin: Bool
    public var ltk: LongTermKey
    public var irk: IdentityResolvingKey?
    /// When it was paired, and when it last wrote over its secure link (wall clock, ms since the epoch).
    public var since: Int64
    public var seen: Int64?

    public init(label: String, admin: Bool, ltk: LongTermKey, irk: IdentityResolvingKey?, since: Int64, seen: Int64? = nil) {
        self.label = label
        self.admin = admin
        self.ltk = ltk
        self.irk = irk
        self.since = since
        self.seen = seen
    }

    /// The phone's identity address: the one the kernel names it by once its IRK is loaded.
    public var address: LEAddress { ltk.address }

    /// What `garage-pins phones` shows: everything but the keys.
    public var publicRecord: JSONValue {
        var m: [(String, JSONValue)] = [("label", .string(label)), ("admin", .bool(admin)),
                                        ("address", .string(address.text)), ("private_address", .bool(irk != nil)),
                                        ("since", .number(since))]
        if let seen { m.append(("seen", .number(seen))) }
        return .object(m)
    }

    /// One line of the bonds file.
    var fileRecord: JSONValue {
        var m: [(String, JSONValue)] = [
            ("label", .string(label)), ("admin", .bool(admin)),
            ("address", .string(address.text)), ("address_type", .string(address.kind == .public ? "public" : "random")),
            ("ltk", .string(Hex.string(ltk.value, separator: ""))), ("ltk_type", .number(Int64(ltk.kind.rawValue))),
            ("central", .number(Int64(ltk.central))), ("enc_size", .number(Int64(ltk.encryptionSize))),
            ("ediv", .number(Int64(ltk.ediv))), ("rand", .string(Hex.string(ATTBytes.uint64(ltk.rand), separator: ""))),
        ]
        if let irk { m.append(("irk", .string(Hex.string(irk.value, separator: "")))) }
        m.append(("since", .number(since)))
        if let seen { m.append(("seen", .number(seen))) }
        return .object(m)
    }

    /// A line of the bonds file back, or why it cannot be one.
    static func decode(_ v: JSONValue) -> Result<BondedPhone, Problem> {
        func string(_ k: String) -> String? { v[k]?.stringValue }
        func int(_ k: String, _ range: ClosedRange<Int64>) -> Int64? { v[k]?.intValue.flatMap { range.contains($0) ? $0 : nil } }
        func key(_ k: String) -> [UInt8]? { string(k).flatMap(Hex.bytes).flatMap { $0.count == 16 ? $0 : nil } }
        guard let label = string("label"), Labels.problem(with: label) == nil, !label.isEmpty else { return .failure(Problem("no valid label")) }
        guard let admin = v["admin"]?.boolValue else { return .failure(Problem("\(label): no admin true/false")) }
        let kind: LEAddress.Kind? = string("address_type") == "public" ? .public : string("address_type") == "random" ? .random : nil
        guard let kind, let address = string("address").flatMap({ LEAddress($0, kind: kind) }) else {
            return .failure(Problem("\(label): no valid address and address_type (public or random)"))
        }
        guard let value = key("ltk"), let type = int("ltk_type", 0...4).flatMap({ LongTermKey.Kind(rawValue: UInt8($0)) }),
              let central = int("central", 0...1), let size = int("enc_size", 7...16), let ediv = int("ediv", 0...0xFFFF),
              let randBytes = string("rand").flatMap(Hex.bytes), randBytes.count == 8 else {
            return .failure(Problem("\(label): the long-term key is incomplete (ltk, ltk_type, central, enc_size, ediv, rand)"))
        }
        var irk: IdentityResolvingKey?
        if v["irk"] != nil {
            guard let bytes = key("irk") else { return .failure(Problem("\(label): irk is not 32 hex digits")) }
            irk = IdentityResolvingKey(address: address, value: bytes)
        }
        guard let since = int("since", 0...Int64.max) else { return .failure(Problem("\(label): no since")) }
        let ltk = LongTermKey(address: address, kind: type, central: UInt8(central), encryptionSize: UInt8(size),
                              ediv: UInt16(ediv), rand: ATTBytes.uint64(randBytes[...]), value: value)
        return .success(BondedPhone(label: label, admin: admin, ltk: ltk, irk: irk, since: since, seen: int("seen", 0...Int64.max)))
    }

    /// Why a line of the bonds file is not a phone.
    struct Problem: Error {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }
}

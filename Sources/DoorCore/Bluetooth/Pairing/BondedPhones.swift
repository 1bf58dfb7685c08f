/// Every phone the owner paired, as kept in the bonds file beside the PIN table
/// (`<table>.bonds`): a comment line, then one JSON object per phone.
public struct BondedPhones: Equatable, Sendable {
    /// More would be a list nobody reviews; the kernel's key lists are fine with far more.
    public static let capacity = 32

    public private(set) var phones: [BondedPhone]

    public init(_ phones: [BondedPhone] = []) { self.phones = phones }

    public subscript(label: String) -> BondedPhone? { phones.first { $0.label == label } }

    /// The phone with this identity address (what the kernel reports once it knows the IRK).
    public func phone(at address: LEAddress) -> BondedPhone? { phones.first { $0.address == address } }

    /// Adds a phone, replacing one with the same address (a phone that paired again).
    public mutating func add(_ phone: BondedPhone) {
        phones.removeAll { $0.address == phone.address }
        phones.append(phone)
    }

    /// Removes the phone with this label; returns it, or nil when no phone has it.
    public mutating func remove(label: String) -> BondedPhone? {
        guard let i = phones.firstIndex(where: { $0.label == label }) else { return nil }
        return phones.remove(at: i)
    }

    /// Notes that a phone wrote over its secure link; true when it is one of these phones.
    public mutating func touch(_ address: LEAddress, at wall: Int64) -> Bool {
        guard let i = phones.firstIndex(where: { $0.address == address }) else { return false }
        phones[i].seen = wall
        return true
    }

    /// A label for a new phone: the one asked for, or "phone N" with the first N not taken.
    public func label(for asked: String?) -> String {
        if let asked { return asked }
        var n = phones.count + 1
        while self["phone \(n)"] != nil { n += 1 }
        return "phone \(n)"
    }

    /// What the kernel must hold for these phones.
    public var kernelCommands: [ManagementCommand] {
        [.loadLongTermKeys(phones.map(\.ltk)), .loadIdentityResolvingKeys(phones.compactMap(\.irk))]
    }

    public func encoded() -> [UInt8] {
        var text = "# garaged bonded phones: one JSON object per line. The keys are secrets: keep this file 0600.\n"
        for p in phones { text += p.fileRecord.serialized + "\n" }
        return Array(text.utf8)
    }

    /// Reads the file; a bad line is refused with its number, so a hand edit gone wrong is
    /// noticed rather than a phone silently losing its bond.
    public static func decode(_ bytes: [UInt8]) -> Result<BondedPhones, LabelsError> {
        var list = BondedPhones()
        for (n, raw) in String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if raw.isEmpty || raw.hasPrefix("#") { continue }
            let value: JSONValue
            do { value = try JSONParser.parse(String(raw)) } catch {
                return .failure(.badLine(line: n + 1, reason: "not JSON: \(error)"))
            }
            switch BondedPhone.decode(value) {
            case .failure(let problem): return .failure(.badLine(line: n + 1, reason: problem.reason))
            case .success(let phone):
                guard list[phone.label] == nil else { return .failure(.badLine(line: n + 1, reason: "a second phone labelled \"\(phone.label)\"")) }
                list.add(phone)
            }
        }
        return .success(list)
    }
}

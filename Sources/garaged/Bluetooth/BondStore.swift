import DoorCore
import DoorSystem

/// The bonded phones, shared by the pairing agent (it adds them), the door loop (`phones`,
/// `unpair`) and every ATT bearer (is this peer a bonded phone, and which?). Each change is
/// saved before it is believed, under the one lock, so the file and memory never disagree.
final class BondStore: @unchecked Sendable {
    let file: BondsFile
    private let phones: Locked<(list: BondedPhones, seenChanged: Bool)>

    init(file: BondsFile) throws(StoreError) {
        self.file = file
        phones = Locked((try file.load(), false))
    }

    var all: BondedPhones { phones.withLock { $0.list } }

    func phone(at address: LEAddress) -> BondedPhone? { phones.withLock { $0.list.phone(at: address) } }

    /// Saves a new bond (replacing one with the same address, or the same label).
    func add(_ phone: BondedPhone) throws(StoreError) {
        try change { list in
            _ = list.remove(label: phone.label)
            list.add(phone)
        }
    }

    /// Forgets a phone; nil when no phone has that label.
    func remove(label: String) throws(StoreError) -> BondedPhone? {
        var removed: BondedPhone?
        try change { removed = $0.remove(label: label) }
        return removed
    }

    /// A bonded phone sent a command: remembered now, written by `saveSeen` (off the loop).
    func touch(_ address: LEAddress, at wall: Int64) {
        phones.withLock { if $0.list.touch(address, at: wall) { $0.seenChanged = true } }
    }

    /// Writes the "last seen" times if any changed; a failure is left for the next try.
    func saveSeen() throws(StoreError) {
        try change(only: { $0.seenChanged }) { _ in }
    }

    private func change(only when: ((list: BondedPhones, seenChanged: Bool)) -> Bool = { _ in true },
                        _ body: (inout BondedPhones) -> Void) throws(StoreError) {
        let result: Result<Void, StoreError> = phones.withLock { state in
            guard when(state) else { return .success(()) }
            var copy = state.list
            body(&copy)
            do throws(StoreError) { try file.save(copy) } catch { return .failure(error) }
            state = (copy, false)
            return .success(())
        }
        try result.get()
    }
}

import DoorCore
import DoorSystem
import Synchronization

/// The bonded phones, shared by the pairing agent (it adds them), the door loop (`phones`,
/// `unpair`) and every ATT bearer (is this peer a bonded phone, and which?). A change is
/// believed the moment it is made and then saved; a failed save takes it back. That order
/// matters after a pairing: the phone's first write follows within a radio interval, sooner
/// than an SD card finishes an fsync, and must find its bond. Saves are one at a time, and
/// lookups never wait for one.
final class BondStore: PhoneBonds, @unchecked Sendable {
    let file: BondsFile
    private let phones: Mutex<(list: BondedPhones, seenChanged: Bool)>
    /// Held for a whole change-and-save, so saves never interleave.
    private let writer = Mutex(())
    /// Asks the pairing agent to read the pairing events the kernel has already queued, on its
    /// own thread, and waits for it (set by the agent). The kernel queues a pairing's new key
    /// before the first ATT packet that follows it, so a lookup that misses a freshly paired
    /// phone catches up and looks again.
    var catchUp: (@Sendable () -> Void)?

    init(file: BondsFile) throws(StoreError) {
        self.file = file
        phones = Mutex((try file.load(), false))
    }

    var all: BondedPhones { phones.withLock { $0.list } }

    func phone(at address: LEAddress) -> BondedPhone? { phones.withLock { $0.list.phone(at: address) } }

    /// The bonded phone on a link the kernel says was paired with LE Secure Connections: when
    /// it is not known yet, its pairing has only just ended, so the pending events are read first.
    func pairedPhone(at address: LEAddress) -> BondedPhone? {
        if let phone = phone(at: address) { return phone }
        catchUp?()
        return phone(at: address)
    }

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

    /// A bonded phone wrote over its secure link: remembered now, written by `saveSeen` (off the loop).
    func touch(_ address: LEAddress, at wall: Int64) {
        phones.withLock { if $0.list.touch(address, at: wall) { $0.seenChanged = true } }
    }

    /// Writes the "last seen" times if any changed; a failure is left for the next try.
    func saveSeen() throws(StoreError) {
        guard phones.withLock({ $0.seenChanged }) else { return }
        try change { _ in }
    }

    private func change(_ body: (inout BondedPhones) -> Void) throws(StoreError) {
        let result: Result<Void, StoreError> = writer.withLock { _ in
            let (before, after) = phones.withLock { state -> (BondedPhones, BondedPhones) in
                let before = state.list
                body(&state.list)
                state.seenChanged = false
                return (before, state.list)
            }
            do throws(StoreError) { try file.save(after) } catch {
                phones.withLock { $0 = (before, true) }
                return .failure(error)
            }
            return .success(())
        }
        try result.get()
    }
}

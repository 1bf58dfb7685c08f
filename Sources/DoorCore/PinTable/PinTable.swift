/// The table of PINs, slot by slot, as the Arduino kept it: slot 0 is the master, the other
/// slots are free or hold one PIN each. Every mutation checks first and changes nothing on error.
public struct PinTable: Equatable, Sendable {
    /// One entry per slot; nil is a free slot. Index 0 is the master and is never nil.
    public private(set) var slots: [PIN?]

    public static let defaultCapacity = 16
    public static let maxCapacity = EEPROMLayout.size / EEPROMLayout.slotSize  // 170

    public var capacity: Int { slots.count }
    public var master: PIN { slots[0]! }

    /// The used slots after the master, in slot order (what `P` lists).
    public var entries: [(slot: Int, pin: PIN)] {
        slots.indices.dropFirst().compactMap { i in slots[i].map { (i, $0) } }
    }

    public init(master: PIN, capacity: Int = PinTable.defaultCapacity) throws(PinTableError) {
        guard (1...PinTable.maxCapacity).contains(capacity) else {
            throw .badCapacity(capacity)
        }
        slots = [master] + Array(repeating: nil, count: capacity - 1)
    }

    /// Builds a table from decoded slots (the codec's way in); slot 0 must be used.
    init(slots: [PIN?]) {
        precondition(!slots.isEmpty && slots[0] != nil)
        self.slots = slots
    }

    /// The slot holding `pin`, looking at every used slot so the time taken does not depend
    /// on where (or whether) it matched.
    public func slot(of pin: PIN) -> Int? {
        var found: Int? = nil
        for (i, stored) in slots.enumerated() {
            if let stored, stored.constantTimeEquals(pin), found == nil { found = i }
        }
        return found
    }

    /// Adds to the first free slot and returns it.
    public mutating func add(_ pin: PIN) throws(ErrorCode) -> Int {
        guard slot(of: pin) == nil else { throw .duplicate }
        guard let free = slots.indices.dropFirst().first(where: { slots[$0] == nil }) else {
            throw .full
        }
        slots[free] = pin
        return free
    }

    public mutating func edit(slot: Int, to pin: PIN) throws(ErrorCode) {
        try checkUserSlot(slot)
        guard self.slot(of: pin) == nil else { throw .duplicate }
        slots[slot] = pin
    }

    public mutating func delete(slot: Int) throws(ErrorCode) {
        try checkUserSlot(slot)
        slots[slot] = nil
    }

    /// Stores `pin` in a given free slot (importers rebuilding a table slot by slot).
    public mutating func put(_ pin: PIN, inSlot slot: Int) throws(ErrorCode) {
        guard slot >= 1, slot < capacity, slots[slot] == nil else { throw .slot }
        guard self.slot(of: pin) == nil else { throw .duplicate }
        slots[slot] = pin
    }

    /// Replaces the master PIN (the owner's offline tool only; never over the protocol).
    public mutating func setMaster(_ pin: PIN) throws(ErrorCode) {
        if let existing = slot(of: pin), existing != 0 { throw .duplicate }
        slots[0] = pin
    }

    /// Slot 0, out-of-range and free slots are all refused for E and D.
    private func checkUserSlot(_ slot: Int) throws(ErrorCode) {
        guard slot >= 1, slot < capacity, slots[slot] != nil else { throw .slot }
    }
}

/// Why a table's bytes or size are not acceptable; every message names the slot and the fix.
public enum PinTableError: Error, Equatable, Sendable, CustomStringConvertible {
    case badCapacity(Int)
    case wrongSize(Int)
    case badFlag(slot: Int, offset: Int, value: UInt8)
    case badPINByte(slot: Int, offset: Int, value: UInt8)
    case masterFree
    case garbageAfterTable(slots: Int, offset: Int, value: UInt8)

    public var description: String {
        switch self {
        case .badCapacity(let n):
            return "a table holds 1 to \(PinTable.maxCapacity) slots, not \(n)"
        case .wrongSize(let n):
            return "the table is \(n) bytes long; an EEPROM image is exactly \(EEPROMLayout.size) bytes"
        case .badFlag(let slot, let offset, let value):
            return "slot \(slot) has flag \(Hex.literal(value)) at byte \(offset); a flag must be 0 (free) or 1 (used)"
        case .badPINByte(let slot, let offset, let value):
            return "slot \(slot) holds byte \(Hex.literal(value)) at byte \(offset); a PIN is 5 printable ASCII characters"
        case .masterFree:
            return "slot 0 (the master PIN) is marked free; the table has no master"
        case .garbageAfterTable(let slots, let offset, let value):
            return "the table ends after \(slots) slots, but byte \(offset) is \(Hex.literal(value)); bytes past the table must be 0xFF"
        }
    }
}

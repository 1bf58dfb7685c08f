/// Reads a 1024-byte EEPROM dump taken from the book's Arduino (`avrdude -U eeprom:r:FILE:r`)
/// into a table. More forgiving than the table file, because the sketch was: it zeroed only
/// its own NUMBER_OF_PINS slots, so a slot whose six bytes still read 0xFF was never written
/// and is free, even with used slots after it. Anything else that is not the book's layout is
/// refused with the slot and byte at fault.
public enum EEPROMDump {
    /// What was found, for the owner to check before trusting the new table.
    public struct Report: Sendable {
        public var table: PinTable
        /// Used slots, master excluded.
        public var used: [Int]
        /// Slots the sketch zeroed (flag 0): free.
        public var zeroed: Int
        /// Slots still 0xFF inside the table (never written): free.
        public var neverWritten: Int
        /// The last slot the sketch wrote, plus one: its NUMBER_OF_PINS, as far as the dump tells.
        public var sketchSlots: Int
    }

    /// Builds the table; `capacity` (default: the sketch's own slot count) may only grow it.
    public static func read(_ bytes: [UInt8], capacity: Int? = nil) throws(EEPROMDumpError) -> Report {
        guard bytes.count == EEPROMLayout.size else {
            if bytes.first == UInt8(ascii: ":") { throw .intelHex }
            throw .wrongSize(bytes.count)
        }
        let slotCount = EEPROMLayout.size / EEPROMLayout.slotSize
        enum Slot { case used(PIN), zeroed, blank }
        var slots: [Slot] = []
        for s in 0..<slotCount {
            let base = s * EEPROMLayout.slotSize
            let raw = bytes[base..<base + EEPROMLayout.slotSize]
            switch raw.first! {
            case 0xFF:
                if let stray = raw.indices.first(where: { bytes[$0] != 0xFF }) {
                    throw .strayByte(slot: s, offset: stray, value: bytes[stray])
                }
                slots.append(.blank)
            case 0:
                slots.append(.zeroed)
            case 1:
                let pinBytes = raw.dropFirst()
                guard let pin = PIN(bytes: pinBytes) else {
                    let bad = pinBytes.indices.first { !PIN.isPINByte(bytes[$0]) }!
                    throw .badPINByte(slot: s, offset: bad, value: bytes[bad])
                }
                slots.append(.used(pin))
            default:
                throw .badFlag(slot: s, offset: base, value: raw.first!)
            }
        }
        let tail = slotCount * EEPROMLayout.slotSize
        if let stray = (tail..<EEPROMLayout.size).first(where: { bytes[$0] != 0xFF }) {
            throw .strayByte(slot: nil, offset: stray, value: bytes[stray])
        }
        guard case .used(let master) = slots[0] else {
            if case .blank = slots[0] { throw .blank }
            throw .masterFree
        }
        let written = slots.lastIndex { if case .blank = $0 { return false }; return true }! + 1
        let size = capacity ?? written
        guard size >= written, size <= PinTable.maxCapacity else {
            throw .capacityTooSmall(requested: size, needed: written)
        }
        var table: PinTable
        do { table = try PinTable(master: master, capacity: size) } catch { throw .capacityTooSmall(requested: size, needed: written) }
        var report = Report(table: table, used: [], zeroed: 0, neverWritten: 0, sketchSlots: written)
        for (s, slot) in slots.enumerated().dropFirst() where s < written {
            switch slot {
            case .used(let pin):
                do { try table.put(pin, inSlot: s) } catch {
                    let first = table.slot(of: pin) ?? 0
                    throw .duplicate(slot: s, sameAs: first)
                }
                report.used.append(s)
            case .zeroed: report.zeroed += 1
            case .blank: report.neverWritten += 1
            }
        }
        report.table = table
        return report
    }
}

/// Why a dump is not the book's EEPROM; each says what was found where.
public enum EEPROMDumpError: Error, Equatable, Sendable, CustomStringConvertible {
    case wrongSize(Int)
    case intelHex
    case blank
    case masterFree
    case badFlag(slot: Int, offset: Int, value: UInt8)
    case badPINByte(slot: Int, offset: Int, value: UInt8)
    case strayByte(slot: Int?, offset: Int, value: UInt8)
    case duplicate(slot: Int, sameAs: Int)
    case capacityTooSmall(requested: Int, needed: Int)

    public var description: String {
        switch self {
        case .wrongSize(let n):
            return "the dump is \(n) bytes; an Arduino Uno's EEPROM is \(EEPROMLayout.size). Read it whole with `avrdude -p m328p -c arduino -P PORT -U eeprom:r:dump.bin:r`"
        case .intelHex:
            return "the dump is Intel HEX text; read it again in raw format (`-U eeprom:r:dump.bin:r`, note the final :r)"
        case .blank:
            return "slot 0 still reads 0xFF: this EEPROM was never written by the book's sketch (no master PIN)"
        case .masterFree:
            return "slot 0 (the master PIN) is marked free; the book's sketch always keeps a master"
        case .badFlag(let slot, let offset, let value):
            return "slot \(slot) has flag \(Hex.literal(value)) at byte \(offset); the book's sketch writes 1 (used) or 0 (free), and 0xFF is never-written EEPROM. This is not a dump of the book's sketch"
        case .badPINByte(let slot, let offset, let value):
            return "slot \(slot) is marked used but holds byte \(Hex.literal(value)) at byte \(offset); a PIN is 5 printable ASCII characters"
        case .strayByte(let slot, let offset, let value):
            let where_ = slot.map { "slot \($0) starts with 0xFF (never written) but" } ?? "past the last slot,"
            return "\(where_) byte \(offset) is \(Hex.literal(value)); the book's sketch never writes there. This is not a dump of the book's sketch"
        case .duplicate(let slot, let sameAs):
            return "slot \(slot) holds the same PIN as slot \(sameAs); a PIN must be stored once. Fix the Arduino's table (delete one in the app) and dump again"
        case .capacityTooSmall(let requested, let needed):
            return "--slots \(requested) cannot hold this dump: it uses \(needed) slots (at most \(PinTable.maxCapacity))"
        }
    }
}

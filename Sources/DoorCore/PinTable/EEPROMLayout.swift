/// The book's EEPROM layout, byte for byte, so a dump read from the Arduino with avrdude and
/// our table file are the same thing: slot i at offset 6*i, one flag byte (1 used, 0 free)
/// then five PIN bytes; slot 0 the master; bytes past the table 0xFF (never-written EEPROM).
public enum EEPROMLayout {
    /// An Arduino Uno's EEPROM.
    public static let size = 1024
    public static let slotSize = 6
    static let used: UInt8 = 1
    static let free: UInt8 = 0
    static let erased: UInt8 = 0xFF

    public static func encode(_ table: PinTable) -> [UInt8] {
        var bytes = [UInt8](repeating: erased, count: size)
        for (i, pin) in table.slots.enumerated() {
            let base = i * slotSize
            bytes[base] = pin == nil ? free : used
            let pinBytes = pin?.bytes ?? [UInt8](repeating: 0, count: PIN.length)
            bytes.replaceSubrange(base + 1...base + PIN.length, with: pinBytes)
        }
        return bytes
    }

    /// Reads a table: the slots run until the first slot whose flag is 0xFF, and everything
    /// from there on must be 0xFF. Anything else is refused with the slot and byte at fault.
    public static func decode(_ bytes: [UInt8]) throws(PinTableError) -> PinTable {
        guard bytes.count == size else { throw .wrongSize(bytes.count) }
        var slots: [PIN?] = []
        var offset = 0
        while offset + slotSize <= size {
            let flag = bytes[offset]
            if flag == erased { break }
            let slot = offset / slotSize
            switch flag {
            case free:
                slots.append(nil)
            case used:
                let raw = bytes[offset + 1...offset + PIN.length]
                guard let pin = PIN(bytes: raw) else {
                    let bad = raw.indices.first { !PIN.isPINByte(bytes[$0]) }!
                    throw .badPINByte(slot: slot, offset: bad, value: bytes[bad])
                }
                slots.append(pin)
            default:
                throw .badFlag(slot: slot, offset: offset, value: flag)
            }
            offset += slotSize
        }
        guard let first = slots.first else {
            throw .badFlag(slot: 0, offset: 0, value: erased)
        }
        guard first != nil else { throw .masterFree }
        if let stray = (offset..<size).first(where: { bytes[$0] != erased }) {
            throw .garbageAfterTable(slots: slots.count, offset: stray, value: bytes[stray])
        }
        return PinTable(slots: slots)
    }
}

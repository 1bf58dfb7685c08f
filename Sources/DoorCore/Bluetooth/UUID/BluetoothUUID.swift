/// A Bluetooth UUID kept as its full 128-bit value, so a 16-bit UUID and its Base-UUID spelling
/// are one and the same (Core Vol 3 Part B 2.5.1: ATT compares types as 128-bit values), and
/// written on the wire in its shortest form, least significant byte first.
public struct BluetoothUUID: Hashable, Sendable {
    /// The 128 bits, most significant byte first: the order of the text form (and of iBeacon's field).
    public let bytes: [UInt8]

    /// 00000000-0000-1000-8000-00805F9B34FB: a 16-bit UUID xxxx is 0000xxxx-0000-1000-8000-00805F9B34FB.
    static let baseBytes: [UInt8] = [0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00,
                                     0x80, 0x00, 0x00, 0x80, 0x5F, 0x9B, 0x34, 0xFB]

    private init(checked bytes: [UInt8]) { self.bytes = bytes }

    /// A SIG-assigned 16-bit UUID.
    public init(_ short: UInt16) {
        var b = BluetoothUUID.baseBytes
        b[2] = UInt8(truncatingIfNeeded: short >> 8)
        b[3] = UInt8(truncatingIfNeeded: short)
        self.init(checked: b)
    }

    /// Sixteen bytes, most significant first; nil for any other count.
    public init?<C: Collection>(bigEndian: C) where C.Element == UInt8 {
        guard bigEndian.count == 16 else { return nil }
        self.init(checked: Array(bigEndian))
    }

    /// The bytes of an ATT UUID field: 2 or 16 of them, least significant first; nil otherwise.
    public init?<C: Collection>(wire: C) where C.Element == UInt8 {
        let b = Array(wire)
        switch b.count {
        case 2: self.init(UInt16(b[0]) | UInt16(b[1]) << 8)
        case 16: self.init(checked: b.reversed())
        default: return nil
        }
    }

    /// "2A00" (16-bit) or "6E400001-B5A3-F393-E0A9-E50E24DCCA9E" (128-bit), any letter case.
    public init?(_ string: String) {
        let chars = Array(string.utf8)
        var digits: [UInt8] = []
        switch chars.count {
        case 4:
            digits = chars
        case 36:
            for (i, c) in chars.enumerated() {
                if [8, 13, 18, 23].contains(i) {
                    guard c == UInt8(ascii: "-") else { return nil }
                } else {
                    digits.append(c)
                }
            }
        default:
            return nil
        }
        var nibbles: [UInt8] = []
        for c in digits {
            guard let n = Hex.nibble(c) else { return nil }
            nibbles.append(n)
        }
        let packed = stride(from: 0, to: nibbles.count, by: 2).map { nibbles[$0] << 4 | nibbles[$0 + 1] }
        if packed.count == 2 {
            self.init(UInt16(packed[0]) << 8 | UInt16(packed[1]))
        } else {
            self.init(checked: packed)
        }
    }

    /// The 16-bit alias when this UUID lies in the Bluetooth Base UUID range, else nil.
    public var shortValue: UInt16? {
        guard bytes[0] == 0, bytes[1] == 0, bytes[4...] == BluetoothUUID.baseBytes[4...] else { return nil }
        return UInt16(bytes[2]) << 8 | UInt16(bytes[3])
    }

    /// The ATT wire form: 2 bytes when a 16-bit alias exists, else 16; least significant first.
    public var wireBytes: [UInt8] {
        if let short = shortValue { return ATTBytes.uint16(short) }
        return bytes.reversed()
    }

    /// Always the 16-byte form, least significant first (AD type 0x07 lists, Find Information format 2).
    public var wireBytes128: [UInt8] { bytes.reversed() }
}

extension BluetoothUUID: CustomStringConvertible {
    /// "0x2A00" for a 16-bit UUID, else the usual 8-4-4-4-12 uppercase form.
    public var description: String {
        if let short = shortValue { return "0x" + Hex.string([UInt8(short >> 8), UInt8(short & 0xFF)], separator: "") }
        let hex = Hex.string(bytes, separator: "")
        var out = ""
        for (i, c) in hex.enumerated() {
            if [8, 12, 16, 20].contains(i) { out.append("-") }
            out.append(c)
        }
        return out
    }
}

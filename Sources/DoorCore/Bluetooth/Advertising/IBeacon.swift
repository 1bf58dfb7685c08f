/// The iBeacon the book's app watches for, so the daemon's own advertising can replace the book's
/// separate beacon: Apple's Manufacturer Specific Data layout, company 0x004C, type 0x02, length
/// 0x15, then UUID, major and minor big-endian, and the measured power.
public struct IBeacon: Equatable, Sendable {
    /// The book's beacon UUID.
    public static let bookProximityUUID = BluetoothUUID("00000000-0000-0000-0000-0000000000FF")!
    /// Apple's Bluetooth SIG company identifier, little-endian on the wire like every SIG field.
    public static let appleCompanyID: UInt16 = 0x004C
    /// The usual RSSI at 1 m of a 0 dBm transmitter (the book's beacon ran at TX power 0). iOS turns
    /// it into the immediate/near/far estimate; calibrate by averaging the RSSI an iPhone sees at 1 m.
    public static let defaultMeasuredPower: Int8 = -59

    public var proximityUUID: BluetoothUUID
    public var major: UInt16
    public var minor: UInt16
    /// Signed dBm, sent as one two's-complement octet.
    public var measuredPower: Int8

    public init(proximityUUID: BluetoothUUID = IBeacon.bookProximityUUID, major: UInt16 = 0,
                minor: UInt16 = 1, measuredPower: Int8 = IBeacon.defaultMeasuredPower) {
        self.proximityUUID = proximityUUID
        self.major = major
        self.minor = minor
        self.measuredPower = measuredPower
    }

    /// The Manufacturer Specific Data structure: 26 octets of data, 27 with its length octet.
    public var structure: ADStructure {
        var data = ATTBytes.uint16(IBeacon.appleCompanyID)  // 4C 00
        data += [0x02, 0x15]                                 // iBeacon type, 21 octets follow
        data += proximityUUID.bytes                          // big-endian, as written
        data += [UInt8(major >> 8), UInt8(major & 0xFF), UInt8(minor >> 8), UInt8(minor & 0xFF)]
        data.append(UInt8(bitPattern: measuredPower))
        return ADStructure(type: ADStructure.manufacturerSpecificData, data: data)
    }
}

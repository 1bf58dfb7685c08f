/// What the daemon advertises: connectable advertising data that is an iBeacon (so the app's
/// region monitoring sees the garage itself), and a scan response with the Nordic UART service
/// UUID and the name (what the app's 5 s scan filters on).
public struct GarageAdvertising: Equatable, Sendable {
    /// The book's beacon interval; LE Set Advertising Parameters counts in 0.625 ms units (400).
    public static let intervalMilliseconds = 250
    public static var intervalUnits: UInt16 { UInt16(intervalMilliseconds * 1000 / 625) }

    public var beacon: IBeacon
    public var name: String
    public var serviceUUID: BluetoothUUID

    public init(beacon: IBeacon = IBeacon(), name: String = GarageGATT.defaultName,
                serviceUUID: BluetoothUUID = GarageGATT.serviceUUID) {
        self.beacon = beacon
        self.name = name
        self.serviceUUID = serviceUUID
    }

    /// Flags 02 01 06, then the iBeacon: 30 octets.
    public func advertisingData() throws(AdvertisingError) -> [UInt8] {
        let flags = ADStructure(type: ADStructure.flags, data: [ADStructure.generalDiscoverableLEOnly])
        return try AdvertisingPayload.encode([flags, beacon.structure])
    }

    /// The 128-bit service UUID (complete list), then the name: complete when it fits, otherwise
    /// shortened (AD type 0x08) to whole UTF-8 characters; no name structure for an empty name.
    public func scanResponse() throws(AdvertisingError) -> [UInt8] {
        let uuids = ADStructure(type: ADStructure.completeList128BitServiceUUIDs, data: serviceUUID.wireBytes128)
        var structures = [uuids]
        if !name.isEmpty {
            let room = AdvertisingPayload.maxLength - uuids.encodedLength - 2
            let full = Array(name.utf8)
            if full.count <= room {
                structures.append(ADStructure(type: ADStructure.completeLocalName, data: full))
            } else {
                // Whole characters only, so the phone never shows a broken UTF-8 sequence. Should
                // not even the first character fit (an 11+ octet emoji sequence), no name is sent.
                var short: [UInt8] = []
                for c in name {
                    let next = short + Array(String(c).utf8)
                    if next.count > room { break }
                    short = next
                }
                if !short.isEmpty {
                    structures.append(ADStructure(type: ADStructure.shortenedLocalName, data: short))
                }
            }
        }
        return try AdvertisingPayload.encode(structures)
    }

    /// The text `garaged --print-advertising` prints: both payloads in hex, and the hcitool lines
    /// (LE Set Advertising Data, OCF 0x0008; LE Set Scan Response Data, OCF 0x0009) to try them by hand.
    public func report() throws(AdvertisingError) -> String {
        let adv = try advertisingData()
        let scan = try scanResponse()
        return """
        advertising data (\(adv.count) bytes): \(Hex.string(adv))
        scan response (\(scan.count) bytes): \(Hex.string(scan))
        hcitool -i hci0 cmd 0x08 0x0008 \(Hex.string(try AdvertisingPayload.hciParameters(adv)))
        hcitool -i hci0 cmd 0x08 0x0009 \(Hex.string(try AdvertisingPayload.hciParameters(scan)))
        """
    }
}

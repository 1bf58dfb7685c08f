/// The garage's GATT database, laid out like the book's nRF8001 board so the book's iPhone app
/// works unchanged: GAP, GATT (Service Changed, as BlueZ and Bumble add it), and the Nordic UART
/// service whose 6E400002 takes commands and whose 6E400003 notifies replies.
///
///     0x0001 Primary Service 0x1800 (GAP)                      .. 0x0005
///     0x0002   Characteristic: read, 0x0003, Device Name 0x2A00
///     0x0003   Device Name value (default "Garage"), read
///     0x0004   Characteristic: read, 0x0005, Appearance 0x2A01
///     0x0005   Appearance value (0x0702 Access Control: Garage Door), read
///     0x0006 Primary Service 0x1801 (GATT)                     .. 0x0009
///     0x0007   Characteristic: indicate, 0x0008, Service Changed 0x2A05
///     0x0008   Service Changed value, not readable
///     0x0009   CCCD 0x2902 (indications only), read/write
///     0x000A Primary Service 6E400001-B5A3-F393-E0A9-E50E24DCCA9E .. 0x000F
///     0x000B   Characteristic: write + write without response, 0x000C, 6E400002
///     0x000C   Command value: write/write command, not readable
///     0x000D   Characteristic: notify, 0x000E, 6E400003
///     0x000E   Reply value, not readable
///     0x000F   CCCD 0x2902 (notifications only), read/write
///
/// With `security: .paired` the writes to 0x000C and 0x000F also need a paired phone on an
/// LE Secure Connections link; the layout and every other byte stay the same.
public struct GarageGATT: Equatable, Sendable {
    // Force-unwrapped: literals, checked by the tests.
    public static let serviceUUID = BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")!
    public static let commandUUID = BluetoothUUID("6E400002-B5A3-F393-E0A9-E50E24DCCA9E")!
    public static let replyUUID = BluetoothUUID("6E400003-B5A3-F393-E0A9-E50E24DCCA9E")!

    public static let defaultName = "Garage"
    /// Category Access Control (0x01C) << 6 | subcategory Garage Door (0x02): Assigned Numbers 2.6.
    public static let garageDoorAppearance: UInt16 = 0x0702

    public let database: GATTDatabase
    public let name: String
    public let security: BluetoothSecurityMode
    public let deviceNameHandle: UInt16
    public let appearanceHandle: UInt16
    public let serviceChangedConfigurationHandle: UInt16
    /// Where the phone writes commands (6E400002's value).
    public let commandHandle: UInt16
    /// Where replies are notified (6E400003's value).
    public let replyHandle: UInt16
    /// The phone writes 0x0001 here to receive replies.
    public let replyConfigurationHandle: UInt16

    public init(name: String = GarageGATT.defaultName, appearance: UInt16 = GarageGATT.garageDoorAppearance,
                security: BluetoothSecurityMode = .open) throws(DeviceNameError) {
        let nameBytes = Array(name.utf8)
        guard !nameBytes.isEmpty else { throw .empty }
        guard nameBytes.count <= DeviceNameError.maxOctets else { throw .tooLong(octets: nameBytes.count) }
        self.name = name
        self.security = security
        let guarded: GATTPermissions = security == .paired ? .pairedWrite : []

        var b = GATTDatabaseBuilder()
        b.addService(.genericAccessService)
        deviceNameHandle = b.addCharacteristic(.deviceName, properties: .read, permissions: .read,
                                               value: .variable(nameBytes)).value
        appearanceHandle = b.addCharacteristic(.appearance, properties: .read, permissions: .read,
                                               value: .fixed(ATTBytes.uint16(appearance))).value

        // Service Changed: the layout never changes while garaged runs, so no indication is ever
        // sent; its presence tells clients not to cache handles across connections unless bonded
        // (Core Vol 3 Part G 2.5.2), which keeps future layout changes safe.
        b.addService(.genericAttributeService)
        b.addCharacteristic(.serviceChanged, properties: .indicate, permissions: [], value: .none)
        serviceChangedConfigurationHandle = b.addDescriptor(
            .clientCharacteristicConfiguration, permissions: [.read, .write],
            value: .clientConfiguration(allowed: 0x0002))

        b.addService(GarageGATT.serviceUUID)
        commandHandle = b.addCharacteristic(GarageGATT.commandUUID, properties: [.write, .writeWithoutResponse],
                                            permissions: [.write, .writeCommand, guarded], value: .sink).value
        replyHandle = b.addCharacteristic(GarageGATT.replyUUID, properties: .notify, permissions: [],
                                          value: .none).value
        replyConfigurationHandle = b.addDescriptor(
            .clientCharacteristicConfiguration, permissions: [.read, .write, guarded],
            value: .clientConfiguration(allowed: 0x0001))
        database = b.build()
    }
}

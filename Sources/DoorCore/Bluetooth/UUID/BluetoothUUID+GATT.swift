/// The SIG-assigned UUIDs the garage's database uses (Assigned Numbers 3.4-3.8), named so the
/// layout reads like the spec instead of like hex.
extension BluetoothUUID {
    public static let primaryService = BluetoothUUID(0x2800)
    public static let secondaryService = BluetoothUUID(0x2801)
    public static let include = BluetoothUUID(0x2802)
    public static let characteristic = BluetoothUUID(0x2803)
    public static let clientCharacteristicConfiguration = BluetoothUUID(0x2902)

    public static let genericAccessService = BluetoothUUID(0x1800)
    public static let genericAttributeService = BluetoothUUID(0x1801)

    public static let deviceName = BluetoothUUID(0x2A00)
    public static let appearance = BluetoothUUID(0x2A01)
    public static let serviceChanged = BluetoothUUID(0x2A05)

    /// True for the two types GATT uses to group a service's attributes (Core Vol 3 Part G 2.5.3).
    public var isServiceDeclaration: Bool { self == .primaryService || self == .secondaryService }
}

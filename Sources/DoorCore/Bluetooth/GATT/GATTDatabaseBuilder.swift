/// Lays out services, characteristics and descriptors the way GATT requires (Core Vol 3 Part G 3):
/// a service declaration, then per characteristic its declaration, its value right after it,
/// then its descriptors. Handles are handed out in order from 0x0001; group ends are filled in
/// by `build()`.
public struct GATTDatabaseBuilder: Sendable {
    private var rows: [(type: BluetoothUUID, permissions: GATTPermissions, value: GATTValue)] = []

    public init() {}

    private var nextHandle: UInt16 { UInt16(rows.count + 1) }

    private mutating func add(_ type: BluetoothUUID, _ permissions: GATTPermissions, _ value: GATTValue) -> UInt16 {
        precondition(rows.count < Int(UInt16.max), "ATT has 65535 handles")
        let handle = nextHandle
        rows.append((type, permissions, value))
        return handle
    }

    /// A primary (or secondary) service declaration; its value is the service UUID. Returns its handle.
    @discardableResult
    public mutating func addService(_ uuid: BluetoothUUID, primary: Bool = true) -> UInt16 {
        add(primary ? .primaryService : .secondaryService, .read, .fixed(uuid.wireBytes))
    }

    /// A characteristic declaration (properties, value handle, UUID) and its value attribute.
    @discardableResult
    public mutating func addCharacteristic(_ uuid: BluetoothUUID, properties: GATTCharacteristicProperties,
                                           permissions: GATTPermissions,
                                           value: GATTValue) -> (declaration: UInt16, value: UInt16) {
        let valueHandle = nextHandle + 1
        let declaration = [properties.rawValue] + ATTBytes.uint16(valueHandle) + uuid.wireBytes
        let d = add(.characteristic, .read, .fixed(declaration))
        let v = add(uuid, permissions, value)
        return (d, v)
    }

    /// A descriptor of the characteristic added last. Returns its handle.
    @discardableResult
    public mutating func addDescriptor(_ uuid: BluetoothUUID, permissions: GATTPermissions,
                                       value: GATTValue) -> UInt16 {
        add(uuid, permissions, value)
    }

    public func build() -> GATTDatabase {
        let last = UInt16(rows.count)
        var attributes: [GATTAttribute] = []
        for (i, row) in rows.enumerated() {
            let handle = UInt16(i + 1)
            var groupEnd = handle
            if row.type.isServiceDeclaration || row.type == .characteristic {
                // A service runs to the next service; a characteristic to the next characteristic
                // or service (Core Vol 3 Part G 3.1, 3.3).
                let endsGroup: (BluetoothUUID) -> Bool = row.type == .characteristic
                    ? { $0.isServiceDeclaration || $0 == .characteristic }
                    : { $0.isServiceDeclaration }
                let next = rows[(i + 1)...].firstIndex { endsGroup($0.type) }
                groupEnd = next.map { UInt16($0) } ?? last
            }
            attributes.append(GATTAttribute(handle: handle, type: row.type, permissions: row.permissions,
                                            value: row.value, groupEnd: groupEnd))
        }
        return GATTDatabase(attributes: attributes)
    }
}

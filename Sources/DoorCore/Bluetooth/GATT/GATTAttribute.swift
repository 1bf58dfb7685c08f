/// One row of the attribute database: handle, type, permissions, value. Declarations that open a
/// group (services, characteristics) also know the last handle of their group.
public struct GATTAttribute: Equatable, Sendable {
    public let handle: UInt16
    public let type: BluetoothUUID
    public let permissions: GATTPermissions
    public let value: GATTValue
    /// The last handle of the service or characteristic this declaration opens; `handle` for others.
    public let groupEnd: UInt16

    public init(handle: UInt16, type: BluetoothUUID, permissions: GATTPermissions,
                value: GATTValue, groupEnd: UInt16) {
        self.handle = handle
        self.type = type
        self.permissions = permissions
        self.value = value
        self.groupEnd = groupEnd
    }
}

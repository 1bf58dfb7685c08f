/// Write Request and Write Command (Core Vol 3 Part F 3.4.5): the same checks for both; only a
/// request learns the outcome. Writes to 6E400002 are handed out whole, one write one command.
extension ATTServer {
    /// Applies one write; returns the command bytes when the target is the command inbox.
    mutating func write(_ handle: UInt16, _ value: [UInt8],
                        permission: GATTPermissions) -> Result<[UInt8]?, ATTErrorCode> {
        // Read in place, not copied out: a phone's every command comes this way.
        let i = Int(handle) - 1
        guard gatt.database.attributes.indices.contains(i) else { return .failure(.invalidHandle) }
        let permissions = gatt.database.attributes[i].permissions
        guard permissions.contains(permission) else { return .failure(.writeNotPermitted) }
        if permissions.contains(.pairedWrite), let refusal = link.refusalForPairedWrite {
            return .failure(refusal)
        }
        // One write carries at most ATT_MTU-3 octets (Table 3.30); longer is refused, never cut.
        guard value.count <= Int(mtu) - 3 else { return .failure(.invalidAttributeValueLength) }
        switch gatt.database.attributes[i].value {
        case .sink:
            return .success(value)
        case .clientConfiguration(let allowed):
            guard value.count == 2 else { return .failure(.invalidAttributeValueLength) }
            let bits = UInt16(value[0]) | UInt16(value[1]) << 8
            guard bits & ~allowed == 0 else { return .failure(.cccdImproperlyConfigured) }
            configurations[handle] = bits
            return .success(nil)
        case .fixed, .variable, .none:
            return .failure(.writeNotPermitted)
        }
    }
}

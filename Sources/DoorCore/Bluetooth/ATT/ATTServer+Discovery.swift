/// The discovery requests: how a phone learns the database (GATT's primary service, characteristic
/// and descriptor discovery, Core Vol 3 Part G 4.4-4.7). Each fills the response up to ATT_MTU
/// with whole entries of one size, and stops at the first entry of another size.
extension ATTServer {
    func findInformation(_ range: ATTHandleRange) -> ATTServerPDU {
        let request = ATTRequest.findInformation(range)
        let candidates = database.attributes(in: range)
        guard let first = candidates.first else { return fail(request, range.start, .attributeNotFound) }
        let width = first.type.wireBytes.count
        var room = Int(mtu) - 2  // opcode + format
        var entries: [ATTServerPDU.HandleType] = []
        for a in candidates {
            guard a.type.wireBytes.count == width, room >= 2 + width else { break }
            entries.append(.init(handle: a.handle, type: a.type))
            room -= 2 + width
        }
        return .findInformation(entries)
    }

    func findByTypeValue(_ range: ATTHandleRange, type: BluetoothUUID, value: [UInt8]) -> ATTServerPDU {
        let request = ATTRequest.findByTypeValue(range, type: type, value: value)
        var room = Int(mtu) - 1
        var entries: [ATTServerPDU.HandleGroup] = []
        // Only attributes a client could read are compared (3.4.3.3); bytes and length must match.
        for a in database.attributes(in: range) where a.type == type {
            guard case .success(let v) = readValue(a), v == value else { continue }
            guard room >= 4 else { break }
            // Grouping types (services, characteristics) report their group end; others themselves.
            entries.append(.init(handle: a.handle, groupEnd: a.groupEnd))
            room -= 4
        }
        return entries.isEmpty ? fail(request, range.start, .attributeNotFound) : .findByTypeValue(entries)
    }

    func readByType(_ range: ATTHandleRange, type: BluetoothUUID) -> ATTServerPDU {
        let request = ATTRequest.readByType(range, type: type)
        let matches = database.attributes(in: range).filter { $0.type == type }
        guard let first = matches.first else { return fail(request, range.start, .attributeNotFound) }
        // The first match that cannot be read answers for the whole request; a later one ends the list.
        let firstValue: [UInt8]
        switch readValue(first) {
        case .success(let v): firstValue = v
        case .failure(let code): return fail(request, first.handle, code)
        }
        let maxValue = min(Int(mtu) - 4, 253)
        let length = min(firstValue.count, maxValue)
        var room = Int(mtu) - 2  // opcode + length
        var entries: [ATTServerPDU.HandleValue] = []
        for a in matches {
            guard case .success(let v) = readValue(a) else { break }
            let value = Array(v.prefix(maxValue))
            guard value.count == length, room >= 2 + length else { break }
            entries.append(.init(handle: a.handle, value: value))
            room -= 2 + length
        }
        return .readByType(entries)
    }

    func readByGroupType(_ range: ATTHandleRange, groupType: BluetoothUUID) -> ATTServerPDU {
        let request = ATTRequest.readByGroupType(range, groupType: groupType)
        // GATT groups by «Primary Service» and «Secondary Service» only (Core Vol 3 Part G 2.5.3).
        guard groupType.isServiceDeclaration else { return fail(request, range.start, .unsupportedGroupType) }
        let matches = database.attributes(in: range).filter { $0.type == groupType }
        guard let first = matches.first else { return fail(request, range.start, .attributeNotFound) }
        let firstValue: [UInt8]
        switch readValue(first) {
        case .success(let v): firstValue = v
        case .failure(let code): return fail(request, first.handle, code)
        }
        let maxValue = min(Int(mtu) - 6, 251)
        let length = min(firstValue.count, maxValue)
        var room = Int(mtu) - 2
        var entries: [ATTServerPDU.GroupValue] = []
        for a in matches {
            guard case .success(let v) = readValue(a) else { break }
            let value = Array(v.prefix(maxValue))
            guard value.count == length, room >= 4 + length else { break }
            entries.append(.init(handle: a.handle, groupEnd: a.groupEnd, value: value))
            room -= 4 + length
        }
        return .readByGroupType(entries)
    }
}

/// The discovery requests: how a phone learns the database (GATT's primary service, characteristic
/// and descriptor discovery, Core Vol 3 Part G 4.4-4.7). Each fills the response up to ATT_MTU
/// with whole entries of one size, and stops at the first entry of another size.
extension ATTServer {
    func findInformation(_ range: ATTHandleRange) -> Result<[UInt8], Refusal> {
        let candidates = database.attributes(in: range)
        guard let first = candidates.first else { return .failure(Refusal(handle: range.start, code: .attributeNotFound)) }
        // Format 0x01: handle + 16-bit UUID; 0x02: handle + 128-bit UUID (Table 3.9).
        let width = first.type.wireBytes.count
        var response = ATTFindInformationResponse()
        response.format = width == 2 ? 0x01 : 0x02
        var room = Int(mtu) - 2  // opcode + format
        for a in candidates {
            guard a.type.wireBytes.count == width, room >= 2 + width else { break }
            response.informationData += ATTBytes.uint16(a.handle) + a.type.wireBytes
            room -= 2 + width
        }
        return .success(response.bytes)
    }

    func findByTypeValue(_ range: ATTHandleRange, type: BluetoothUUID, value: [UInt8]) -> Result<[UInt8], Refusal> {
        var room = Int(mtu) - 1
        var response = ATTFindByTypeValueResponse()
        // Only attributes a client could read are compared (3.4.3.3); bytes and length must match.
        for a in database.attributes(in: range) where a.type == type {
            guard case .success(let v) = readValue(a), v == value else { continue }
            guard room >= 4 else { break }
            // Grouping types (services, characteristics) report their group end; others themselves.
            response.handlesInformation += ATTBytes.uint16(a.handle) + ATTBytes.uint16(a.groupEnd)
            room -= 4
        }
        return response.handlesInformation.isEmpty
            ? .failure(Refusal(handle: range.start, code: .attributeNotFound)) : .success(response.bytes)
    }

    func readByType(_ range: ATTHandleRange, type: BluetoothUUID) -> Result<[UInt8], Refusal> {
        attributeDataList(database.attributes(in: range).filter { $0.type == type }, in: range,
                          maxValue: min(Int(mtu) - 4, 253)) { ATTBytes.uint16($0.handle) }
            .map { length, list in
                var response = ATTReadByTypeResponse()
                (response.length, response.attributeDataList) = (length, list)
                return response.bytes
            }
    }

    func readByGroupType(_ range: ATTHandleRange, groupType: BluetoothUUID) -> Result<[UInt8], Refusal> {
        // GATT groups by «Primary Service» and «Secondary Service» only (Core Vol 3 Part G 2.5.3).
        guard groupType.isServiceDeclaration else { return .failure(Refusal(handle: range.start, code: .unsupportedGroupType)) }
        return attributeDataList(database.attributes(in: range).filter { $0.type == groupType }, in: range,
                                 maxValue: min(Int(mtu) - 6, 251)) { ATTBytes.uint16($0.handle) + ATTBytes.uint16($0.groupEnd) }
            .map { length, list in
                var response = ATTReadByGroupTypeResponse()
                (response.length, response.attributeDataList) = (length, list)
                return response.bytes
            }
    }

    /// The Attribute Data List of Read By Type and Read By Group Type: for each match its
    /// `header` (handle, or handle and group end) and its value cut to `maxValue`, all of the
    /// first entry's length, as many as fit after the opcode and the Length octet. The first
    /// match that cannot be read answers for the whole request; a later one ends the list.
    private func attributeDataList(_ matches: [GATTAttribute], in range: ATTHandleRange, maxValue: Int,
                                   header: (GATTAttribute) -> [UInt8]) -> Result<(UInt8, [UInt8]), Refusal> {
        guard let first = matches.first else { return .failure(Refusal(handle: range.start, code: .attributeNotFound)) }
        let length: Int
        switch readValue(first) {
        case .success(let v): length = min(v.count, maxValue)
        case .failure(let code): return .failure(Refusal(handle: first.handle, code: code))
        }
        let entryLength = header(first).count + length
        var room = Int(mtu) - 2
        var list: [UInt8] = []
        for a in matches {
            guard case .success(let v) = readValue(a) else { break }
            let value = v.prefix(maxValue)
            guard value.count == length, room >= entryLength else { break }
            list += header(a) + value
            room -= entryLength
        }
        return .success((UInt8(entryLength), list))
    }
}

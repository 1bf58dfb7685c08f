/// The reads by handle: Read, Read Blob and Read Multiple (Core Vol 3 Part F 3.4.4.3-3.4.4.8).
/// Values longer than fits are cut to ATT_MTU-1 as the spec says; Read Blob fetches the rest.
extension ATTServer {
    func read(_ handle: UInt16) -> ATTServerPDU {
        let request = ATTRequest.read(handle: handle)
        guard let a = database.attribute(handle) else { return fail(request, handle, .invalidHandle) }
        switch readValue(a) {
        case .success(let v): return .read(Array(v.prefix(Int(mtu) - 1)))
        case .failure(let code): return fail(request, handle, code)
        }
    }

    func readBlob(_ handle: UInt16, offset: UInt16) -> ATTServerPDU {
        let request = ATTRequest.readBlob(handle: handle, offset: offset)
        guard let a = database.attribute(handle) else { return fail(request, handle, .invalidHandle) }
        let value: [UInt8]
        switch readValue(a) {
        case .success(let v): value = v
        case .failure(let code): return fail(request, handle, code)
        }
        let start = Int(offset)
        guard start <= value.count else { return fail(request, handle, .invalidOffset) }
        // "May" in the spec: a fixed-length value that a Read already returns whole is not long.
        if a.value.isFixedLength, value.count <= Int(mtu) - 1 {
            return fail(request, handle, .attributeNotLong)
        }
        // Offset equal to the length gives an empty part: how a client learns it has everything.
        return .readBlob(Array(value[start..<min(value.count, start + Int(mtu) - 1)]))
    }

    func readMultiple(_ handles: [UInt16]) -> ATTServerPDU {
        let request = ATTRequest.readMultiple(handles: handles)
        var values: [UInt8] = []
        for h in handles {
            // The error names the first handle at fault (3.4.4.7).
            guard let a = database.attribute(h) else { return fail(request, h, .invalidHandle) }
            switch readValue(a) {
            case .success(let v): values += v
            case .failure(let code): return fail(request, h, code)
            }
        }
        return .readMultiple(Array(values.prefix(Int(mtu) - 1)))
    }
}

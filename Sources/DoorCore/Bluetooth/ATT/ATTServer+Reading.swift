/// The reads by handle: Read, Read Blob and Read Multiple (Core Vol 3 Part F 3.4.4.3-3.4.4.8).
/// Values longer than fits are cut to ATT_MTU-1 as the spec says; Read Blob fetches the rest.
extension ATTServer {
    func read(_ handle: UInt16) -> Result<[UInt8], Refusal> {
        readable(handle).map { value in
            var response = ATTReadResponse()
            response.value = Array(value.prefix(Int(mtu) - 1))
            return response.bytes
        }
    }

    func readBlob(_ handle: UInt16, offset: UInt16) -> Result<[UInt8], Refusal> {
        readable(handle).flatMap { value in
            let start = Int(offset)
            guard start <= value.count else { return .failure(Refusal(handle: handle, code: .invalidOffset)) }
            // "May" in the spec: a fixed-length value that a Read already returns whole is not long.
            if database.attribute(handle)?.value.isFixedLength == true, value.count <= Int(mtu) - 1 {
                return .failure(Refusal(handle: handle, code: .attributeNotLong))
            }
            // Offset equal to the length gives an empty part: how a client learns it has everything.
            var response = ATTReadBlobResponse()
            response.part = Array(value[start..<min(value.count, start + Int(mtu) - 1)])
            return .success(response.bytes)
        }
    }

    func readMultiple(_ handles: [UInt16]) -> Result<[UInt8], Refusal> {
        var response = ATTReadMultipleResponse()
        for h in handles {
            // The error names the first handle at fault (3.4.4.7).
            switch readable(h) {
            case .success(let v): response.values += v
            case .failure(let refusal): return .failure(refusal)
            }
        }
        response.values = Array(response.values.prefix(Int(mtu) - 1))
        return .success(response.bytes)
    }

    /// The value at `handle` a client may read, or why not, at that handle.
    private func readable(_ handle: UInt16) -> Result<[UInt8], Refusal> {
        guard let a = database.attribute(handle) else { return .failure(Refusal(handle: handle, code: .invalidHandle)) }
        return readValue(a).mapError { Refusal(handle: handle, code: $0) }
    }
}

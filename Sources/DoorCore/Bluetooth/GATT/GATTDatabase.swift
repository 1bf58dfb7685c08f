/// An attribute database: attributes with handles 0x0001, 0x0002, ... in order and without gaps
/// (GATTDatabaseBuilder guarantees it), so a handle is an index and a range is a slice.
public struct GATTDatabase: Equatable, Sendable {
    public let attributes: [GATTAttribute]

    init(attributes: [GATTAttribute]) { self.attributes = attributes }

    /// The attribute at `handle`, or nil for 0x0000 and handles past the last one.
    public func attribute(_ handle: UInt16) -> GATTAttribute? {
        let i = Int(handle) - 1
        return attributes.indices.contains(i) ? attributes[i] : nil
    }

    /// The attributes whose handles lie in `range`, in handle order.
    public func attributes(in range: ATTHandleRange) -> ArraySlice<GATTAttribute> {
        let lower = Int(range.start) - 1
        let upper = min(Int(range.end), attributes.count)
        guard lower < upper else { return [] }
        return attributes[lower..<upper]
    }
}

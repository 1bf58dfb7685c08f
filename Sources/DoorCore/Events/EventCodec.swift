/// The event file's framing: one line per record, `<crc32 as 8 hex digits> <json>\n`. A line
/// whose checksum does not match (a torn append after a power cut, a flipped bit) or that has
/// no newline yet is not a record: readers skip it and count it, never fail on it.
public enum EventCodec {
    public static func encode(_ record: EventRecord) -> [UInt8] {
        let payload = Array(record.json.serialized.utf8)
        var hex = String(CRC32.checksum(payload), radix: 16)
        hex = String(repeating: "0", count: 8 - hex.count) + hex
        return Array(hex.utf8) + [0x20] + payload + [0x0A]
    }

    /// One line without its newline; nil when it is not a sound record.
    public static func decode<C: Collection>(line: C) -> EventRecord? where C.Element == UInt8 {
        let bytes = Array(line)
        guard bytes.count > 9, bytes[8] == 0x20,
              let crc = UInt32(String(decoding: bytes[0..<8], as: UTF8.self), radix: 16) else { return nil }
        let payload = bytes[9...]
        guard CRC32.checksum(payload) == crc,
              let json = try? JSONParser.parse(String(decoding: payload, as: UTF8.self)) else { return nil }
        return EventRecord(json: json)
    }

    /// Every sound record in `bytes`, in order, and how many lines were skipped (a last line
    /// without its newline counts as torn).
    public static func decodeAll(_ bytes: [UInt8]) -> (records: [EventRecord], skipped: Int) {
        var records: [EventRecord] = []
        var skipped = 0
        var start = 0
        while start < bytes.count {
            guard let lf = bytes[start...].firstIndex(of: 0x0A) else {
                skipped += 1
                break
            }
            if lf > start {
                if let r = decode(line: bytes[start..<lf]) { records.append(r) } else { skipped += 1 }
            }
            start = lf + 1
        }
        return (records, skipped)
    }
}

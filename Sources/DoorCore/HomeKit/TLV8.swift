/// HAP's TLV8, the body of every pairing message: a type byte, a length byte and at most 255
/// bytes of value. A longer value travels as consecutive fragments of one type, every one but
/// the last exactly 255 bytes long, which the decoder joins again.
public enum TLV8 {
    /// Encodes the items in order; a value of more than 255 bytes is split into fragments (255,
    /// 255, ..., the rest) and an empty value is written as its type and a zero length.
    /// Two items of one type in a row would read back as one if the first ended in a full
    /// fragment, so such a value is closed with an empty fragment: what this writes always
    /// decodes to the same items (HAP itself puts a `separator` between list entries).
    public static func encode(_ items: [(UInt8, [UInt8])]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(items.reduce(0) { $0 + 2 * ($1.1.count / 255 + 2) + $1.1.count })
        for (index, (type, value)) in items.enumerated() {
            var start = 0
            repeat {
                let n = min(255, value.count - start)
                out.append(type)
                out.append(UInt8(n))
                out += value[start..<start + n]
                start += n
            } while start < value.count
            if !value.isEmpty, value.count % 255 == 0, index + 1 < items.count, items[index + 1].0 == type {
                out += [type, 0]
            }
        }
        return out
    }

    /// Decodes every item, joining a fragment to the item before it only when that item is of
    /// the same type and its last fragment was exactly 255 bytes; an item cut short throws.
    public static func decode(_ bytes: [UInt8]) throws(TLV8Error) -> [(type: UInt8, value: [UInt8])] {
        var items: [(type: UInt8, value: [UInt8])] = []
        var previousLength = 0
        var i = 0
        while i < bytes.count {
            let type = bytes[i]
            guard i + 1 < bytes.count else {
                throw TLV8Error(offset: i, reason: "item of type \(type) has no length byte")
            }
            let length = Int(bytes[i + 1])
            let remaining = bytes.count - i - 2
            guard length <= remaining else {
                throw TLV8Error(offset: i, reason: "item of type \(type) says \(length) bytes but only \(remaining) remain")
            }
            let value = bytes[i + 2..<i + 2 + length]
            if previousLength == 255, let last = items.last, last.type == type {
                items[items.count - 1].value += value
            } else {
                items.append((type, Array(value)))
            }
            previousLength = length
            i += 2 + length
        }
        return items
    }

    /// The value of the first item of `type`, the usual way a message's field is read.
    public static func first(_ type: UInt8, in items: [(type: UInt8, value: [UInt8])]) -> [UInt8]? {
        items.first { $0.type == type }?.value
    }

    /// The same, by the HAP name of the type.
    public static func first(_ type: HAPTLVType, in items: [(type: UInt8, value: [UInt8])]) -> [UInt8]? {
        first(type.rawValue, in: items)
    }
}

/// Why TLV8 bytes could not be decoded: where the bad item starts and what was wrong with it.
public struct TLV8Error: Error, Equatable, Sendable, CustomStringConvertible {
    public var offset: Int
    public var reason: String

    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    public var description: String { "\(reason) (item at byte \(offset))" }
}

/// The item types of HAP's pairing messages (HAP specification, table 5-6).
public enum HAPTLVType: UInt8, Sendable {
    case method = 0x00
    case identifier = 0x01
    case salt = 0x02
    case publicKey = 0x03
    case proof = 0x04
    case encryptedData = 0x05
    case state = 0x06
    case error = 0x07
    case retryDelay = 0x08
    case certificate = 0x09
    case signature = 0x0A
    case permissions = 0x0B
    case fragmentData = 0x0C
    case fragmentLast = 0x0D
    case flags = 0x13
    case separator = 0xFF
}

/// The value of a pairing message's `error` item, which tells the controller why a step
/// failed (a code sent on the wire, not a Swift error).
public enum HAPTLVError: UInt8, Sendable {
    case unknown = 1
    case authentication = 2
    case backoff = 3
    case maxTries = 4
    case maxPeers = 5
    case unavailable = 6
    case busy = 7
}

/// One parameter of an ATT PDU as the Core spec's format tables list it; the decoder reads every
/// request from these declarations (as Bumble's att.py declares its PDUs), so each length rule
/// lives in exactly one place.
enum ATTParameter: Equatable, Sendable {
    /// Two octets, little-endian: a handle, an offset, an MTU, a 16-bit UUID.
    case uint16(String)
    /// A UUID filling the rest of the PDU: exactly 2 or 16 octets.
    case uuid(String)
    /// Octets filling the rest of the PDU, at least `minimum` of them.
    case bytes(String, minimum: Int)
    /// Two or more handles filling the rest of the PDU.
    case handles(String)
}

/// A parameter's decoded value.
enum ATTParameterValue: Equatable, Sendable {
    case uint16(UInt16)
    case uuid(BluetoothUUID)
    case bytes([UInt8])
    case handles([UInt16])

    // The accessors trap only if a layout and the code that reads it disagree: a bug the decoder
    // tests catch, never something a peer's bytes can cause.
    var uint16: UInt16 {
        guard case .uint16(let v) = self else { preconditionFailure("ATT layout mismatch") }
        return v
    }

    var uuid: BluetoothUUID {
        guard case .uuid(let v) = self else { preconditionFailure("ATT layout mismatch") }
        return v
    }

    var bytes: [UInt8] {
        guard case .bytes(let v) = self else { preconditionFailure("ATT layout mismatch") }
        return v
    }

    var handles: [UInt16] {
        guard case .handles(let v) = self else { preconditionFailure("ATT layout mismatch") }
        return v
    }
}

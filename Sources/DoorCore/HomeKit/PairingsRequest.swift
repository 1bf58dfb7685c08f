/// `POST /pairings` (add 3, remove 4, list 5): how an admin controller shares the accessory with
/// others or takes it back. Pure: it returns the reply and the change to keep; the caller saves
/// the change before it answers.
public enum PairingsRequest {
    /// What the request asks of the kept state.
    public enum Change: Equatable, Sendable {
        case add(HAPPairing)
        case remove(String)
    }

    public static func answer(_ body: [UInt8], admin: Bool, state: HAPAccessoryState) -> (reply: [UInt8], change: Change?) {
        guard let items = try? TLV8.decode(body), items.firstValue(.state) == [1],
              let method = items.firstValue(.method)?.first else { return (error(.unknown), nil) }
        guard admin else { return (error(.authentication), nil) }
        switch method {
        case 3:
            guard let idBytes = items.firstValue(.identifier), let id = HAPPairing.id(idBytes),
                  let key = items.firstValue(.publicKey), key.count == 32,
                  let permissions = items.firstValue(.permissions)?.first else { return (error(.unknown), nil) }
            let pairing = HAPPairing(id: id, publicKey: key, admin: permissions & 1 == 1)
            var copy = state
            guard copy.add(pairing) else {
                return (error(state.pairing(id) != nil ? .unknown : .maxPeers), nil)
            }
            return (ok, .add(pairing))
        case 4:
            guard let idBytes = items.firstValue(.identifier), let id = String(validating: idBytes, as: UTF8.self) else {
                return (error(.unknown), nil)
            }
            // Removing a pairing that is not there is done already: nothing to keep.
            return (ok, state.pairing(id) == nil ? nil : .remove(id))
        case 5:
            var list: [(UInt8, [UInt8])] = [(HAPTLVType.state.rawValue, [2])]
            for (i, p) in state.pairings.enumerated() {
                if i > 0 { list.append((HAPTLVType.separator.rawValue, [])) }
                list += [(HAPTLVType.identifier.rawValue, Array(p.id.utf8)), (HAPTLVType.publicKey.rawValue, p.publicKey),
                         (HAPTLVType.permissions.rawValue, [p.admin ? 1 : 0])]
            }
            return (TLV8.encode(list), nil)
        default:
            return (error(.unknown), nil)
        }
    }

    static let ok = TLV8.encode([(HAPTLVType.state.rawValue, [2])])

    public static func error(_ code: HAPTLVError) -> [UInt8] {
        TLV8.encode([(HAPTLVType.state.rawValue, [2]), (HAPTLVType.error.rawValue, [code.rawValue])])
    }
}

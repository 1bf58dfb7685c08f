import DoorCore
import DoorSystem

/// The owner's side of Bluetooth pairing (`--ble-security paired`): `garage-pins pair` opens
/// the window and follows it, `phones` lists the bonds, `unpair` forgets one at once.
extension DoorLoop {
    /// Opens the window for one phone; the asking connection is told the passkey and the end.
    func pair(_ request: PairingWindow.Request, for connection: Connection) -> [Reply] {
        guard connection.canFollow else { return [.error(.command)] }
        guard let pairing, pairing.ready else { return [.error(.bluetooth)] }
        let label = pairing.bonds.all.label(for: request.label)
        // One window at a time: whoever followed the last one is told it was replaced.
        connection.follow(.pairing) { _ in false }
        pairing.open(request, label: label)
        return [.ok]
    }

    /// Forgets a phone: out of the file first (its next write is refused from then on), then
    /// out of the kernel, which drops its link.
    func unpair(_ label: String, by source: RequestSource) -> [Reply] {
        guard let pairing else { return [.error(.bluetooth)] }
        let phone: BondedPhone?
        do { phone = try pairing.bonds.remove(label: label) } catch {
            log.error("unpair-failed", ["label": label, "error": error.description])
            return [.error(.store)]
        }
        guard let phone else { return [.error(.phone)] }
        pairing.forget(phone.address)
        log.info("phone-unpaired", ["label": label, "address": phone.address.text, "by": source.description])
        record(EventRecord(time: EventRecord.now(), kind: .unpair, source: source.description, label: label, detail: phone.address.text))
        return [.ok]
    }

    /// Passes a report to the window's follower and the log (never the passkey: the journal
    /// is read by more people than the owner at the pairing prompt).
    func tell(_ report: PairingWindow.Report) {
        let record: JSONValue
        switch report {
        case .opened(let seconds, let label):
            record = .object([("pairing", .string("open")), ("seconds", .number(Int64(seconds))), ("label", .string(label))])
            log.info("pairing-window", ["state": "open", "seconds": String(seconds), "label": label])
        case .passkey(let passkey, let phone):
            record = .object([("passkey", .string(passkey)), ("phone", .string(phone.text))])
            log.info("pairing-passkey", ["phone": phone.text, "shown_to": "garage-pins pair"])
        case .paired(let phone):
            record = .object([("paired", .string(phone.label)), ("address", .string(phone.address.text)), ("admin", .bool(phone.admin))])
            self.record(EventRecord(time: EventRecord.now(), kind: .pair, source: "bluetooth \(phone.address.text)",
                                    label: phone.label, detail: phone.admin ? "admin" : "user"))
        case .refused(let why):
            record = .object([("refused", .string(why))])
            log.warning("pairing-refused", ["why": why])
        case .failed(let why):
            record = .object([("failed", .string(why))])
            log.warning("pairing-failed", ["why": why])
        case .closed(let why):
            record = .object([("closed", .string(why))])
            log.info("pairing-window", ["state": "closed", "why": why])
        }
        for c in followers(of: .pairing) { c.deliver([.record(record)]) }
    }
}

import DoorCore
import DoorSystem

/// The owner's side of Bluetooth pairing (`--ble-security paired`): `garage-pins pair` opens
/// the window and follows it, `phones` lists the bonds, `unpair` forgets one at once; what the
/// window does is told to whoever follows it, and to the log (never the passkey: the journal is
/// read by more people than the owner at the pairing prompt).
extension PairingAgent: OwnerCommands {
    func answer(_ query: Controller.LocalQuery, from connection: Connection, record: (EventRecord) -> Void) -> [Reply]? {
        switch query {
        case .pair(let request):
            return open(request, for: connection)
        case .phones:
            let phones = bonds.all.phones
            return phones.map { .record($0.publicRecord) } + [.listed(count: phones.count)]
        case .unpair(let label):
            return unpair(label, by: connection.source, record: record)
        default:
            return nil
        }
    }

    /// Opens the window for one phone; the asking connection is told the passkey and the end.
    private func open(_ request: PairingWindow.Request, for connection: Connection) -> [Reply] {
        guard connection.canFollow else { return [.error(.command)] }
        guard ready else { return [.error(.bluetooth)] }
        // One window at a time: whoever followed the last one is told now that it was replaced,
        // and follows no more (the new window's passkey is for the new asker alone).
        if let earlier = windowFollower, earlier !== connection, earlier.following == .pairing {
            let why = "replaced by a new garage-pins pair"
            earlier.deliver([.record(.object([("closed", .string(why))]))])
            earlier.stopFollowing()
            log.info("pairing-window", ["state": "closed", "why": why])
        }
        windowFollower = connection
        connection.follow(.pairing) { _ in false }
        open(request, label: bonds.all.label(for: request.label))
        return [.ok]
    }

    /// Forgets a phone: out of the file first (its next write is refused from then on), then
    /// out of the kernel, which drops its link.
    private func unpair(_ label: String, by source: RequestSource, record: (EventRecord) -> Void) -> [Reply] {
        let phone: BondedPhone?
        do { phone = try bonds.remove(label: label) } catch {
            log.error("unpair-failed", ["label": label, "error": error.description])
            return [.error(.store)]
        }
        guard let phone else { return [.error(.phone)] }
        forget(phone.address)
        log.info("phone-unpaired", ["label": label, "address": phone.address.text, "by": source.description])
        record(EventRecord(time: EventRecord.now(), kind: .unpair, source: source.description, label: label, detail: phone.address.text))
        return [.ok]
    }

    /// Hands the loop what the window did: a record for its follower, the history's record of a
    /// phone paired, and a log line (logged here, on the Bluetooth thread, as the window acts:
    /// a window's `open` line may come before the loop's line for the request that opened it).
    func tellOwner(_ report: PairingWindow.Report) {
        let shown: JSONValue
        switch report {
        case .opened(let seconds, let label):
            shown = .object([("pairing", .string("open")), ("seconds", .number(Int64(seconds))), ("label", .string(label))])
            log.info("pairing-window", ["state": "open", "seconds": String(seconds), "label": label])
        case .passkey(let passkey, let phone):
            shown = .object([("passkey", .string(passkey)), ("phone", .string(phone.text))])
            log.info("pairing-passkey", ["phone": phone.text, "shown_to": "garage-pins pair"])
        case .paired(let phone):
            shown = .object([("paired", .string(phone.label)), ("address", .string(phone.address.text)), ("admin", .bool(phone.admin))])
            inbox.record(EventRecord(time: EventRecord.now(), kind: .pair, source: "bluetooth \(phone.address.text)",
                                     label: phone.label, detail: phone.admin ? "admin" : "user"), summaryKey: "pairing")
        case .refused(let why):
            shown = .object([("refused", .string(why))])
            log.warning("pairing-refused", ["why": why])
        case .failed(let why):
            shown = .object([("failed", .string(why))])
            log.warning("pairing-failed", ["why": why])
        case .closed(let why):
            shown = .object([("closed", .string(why))])
            log.info("pairing-window", ["state": "closed", "why": why])
        }
        inbox.tellFollowers(of: .pairing, shown)
    }
}

import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
import Synchronization
#endif

/// garaged as the kernel's pairing agent and key store, the part of bluetoothd that
/// `--ble-security paired` needs: it sets the adapter up for Passkey Entry with the Pi as the
/// display, loads the bonded phones' keys whenever the adapter (re)appears, answers the
/// kernel's pairing events by the `PairingWindow`'s rules, and saves the bonds it accepts.
/// Runs on the Bluetooth thread, where it reports what the window did (`tellOwner`, under
/// `lock`). The door loop's thread asks it the owner's commands (`answer`, in
/// `PairingAgent+Owner.swift`): that reads `bonds` (its own lock) and `ready` (under `lock`),
/// hands `open` and `forget` over through `asked`, and alone keeps `windowFollower`. An ATT
/// bearer meeting an unknown peer asks it to catch up (`catchUp`), which it does on its own
/// thread while the bearer waits a moment. The window, the adapter and the socket are touched
/// only under `lock`.
final class PairingAgent: @unchecked Sendable {
    let bonds: BondStore
    private let socket: ManagementSocket
    let log: Logger
    private let clock = SystemMonotonicClock()
    /// Where what the window did goes (`tellOwner`): the door loop, which tells whoever asked
    /// for the window.
    let inbox: LoopInbox
    /// Guards `window`, `index` and the socket: one thread at a time.
    private let lock = Mutex(())
    private var window = PairingWindow()
    /// The adapter being served (hciN's N), when there is one.
    private var index: UInt16?
    /// The connection that asked for the open window (`garage-pins pair`), told first when a
    /// new request replaces it. The door loop's thread only.
    weak var windowFollower: (any Connection)?
    /// What the loop asked for, taken at the next turn; never waits for one.
    private let asked = Mutex((open: [(PairingWindow.Request, String)](), forget: [LEAddress]()))
    private let onAsked: @Sendable () -> Void
    /// Turns asked for by another thread, and turns taken since, by number.
    private let turns = Mutex((asked: UInt64(0), taken: UInt64(0)))
    /// Signalled each time the Bluetooth thread has taken a turn.
    private let turnTaken = WakeEvent()
    /// How long an ATT bearer waits for a catch-up turn (the Bluetooth thread takes one within
    /// a millisecond unless it is busy with the adapter).
    static let catchUpWithin: Duration = .milliseconds(200)

    var fd: Int32 { socket.fd }

    init(bonds: BondStore, log: Logger, wake: @escaping @Sendable () -> Void, inbox: LoopInbox) throws(BluetoothError) {
        self.bonds = bonds
        self.socket = try ManagementSocket()
        self.log = log
        self.onAsked = wake
        self.inbox = inbox
        bonds.catchUp = { [weak self] in _ = self?.catchUp(within: PairingAgent.catchUpWithin) }
    }

    /// True while an adapter is served, so a pairing window can be opened.
    var ready: Bool { lock.withLock { _ in index != nil } }

    /// Opens the pairing window for the owner (from the door loop).
    func open(_ request: PairingWindow.Request, label: String) {
        asked.withLock { $0.open.append((request, label)) }
        onAsked()
    }

    /// Removes an unpaired phone's keys from the kernel and drops its link (from the door
    /// loop, after the bonds file no longer has it).
    func forget(_ address: LEAddress) {
        asked.withLock { $0.forget.append(address) }
        onAsked()
    }

    /// The adapter is usable: Passkey Entry with this side as the display, Secure
    /// Connections on, no bonding outside a window, and the bonded phones' keys loaded.
    func prepare(index: UInt16) {
        let setup: [ManagementCommand] = [.setIOCapability(.displayOnly), .setSecureConnections(true), .setBondable(false)]
        lock.withLock { _ in
            self.index = index
            for c in setup + bonds.all.kernelCommands { send(c) }
        }
        log.info("pairing-agent", ["adapter": "hci\(index)", "phones": String(bonds.all.phones.count),
                                   "io": "display only (Passkey Entry)", "bonding": "only inside a pairing window"])
    }

    /// The adapter went away: no window can stay open on it.
    func adapterLost(_ why: String) {
        lock.withLock { _ in
            index = nil
            run(window.close("the Bluetooth adapter went away: \(why)"))
        }
    }

    /// When the window closes by itself, for the Bluetooth thread's poll.
    var nextDeadline: Instant? { lock.withLock { _ in window.closesAt } }

    /// Everything due, on the Bluetooth thread: the loop's requests, the kernel's events, the
    /// window's deadline, the phones' "last seen" times; then whoever asked for this turn hears.
    func turn() {
        let ticket = turns.withLock { $0.asked }
        lock.withLock { _ in takeTurn() }
        turns.withLock { $0.taken = max($0.taken, ticket) }
        turnTaken.signal()
    }

    /// Asks the Bluetooth thread for a turn now and waits until it has taken one, at most
    /// `within`: a write over a freshly paired link may come before this thread read the new key.
    /// False when the turn did not come in time.
    func catchUp(within: Duration) -> Bool {
        let ticket = turns.withLock { t -> UInt64 in
            t.asked += 1
            return t.asked
        }
        onAsked()
        let deadline = clock.now() + within
        var fds = [pollfd(fd: turnTaken.fd, events: Int16(POLLIN), revents: 0)]
        while turns.withLock({ $0.taken < ticket }) {
            let left = deadline - clock.now()
            if left <= .zero { return false }
            waitFor(&fds, timeout: left)
            turnTaken.drain()
        }
        return true
    }

    private func takeTurn() {
        let (open, forget) = asked.withLock { a -> ([(PairingWindow.Request, String)], [LEAddress]) in
            defer { a.open.removeAll(); a.forget.removeAll() }
            return (a.open, a.forget)
        }
        for address in forget {
            send(.unpairDevice(address, disconnect: true))
            log.info("phone-forgotten", ["address": address.text])
        }
        for (request, label) in open {
            if index == nil {
                tellOwner(.closed("no Bluetooth adapter is being served"))
            } else {
                run(window.open(request, label: label, at: clock.now()))
            }
        }
        for (eventIndex, event) in socket.events() where index == nil || eventIndex == index || eventIndex == 0xFFFF {
            if case .commandDone(let opcode, let status) = event, status != 0 {
                log.warning("bluetooth-management-refused", ["opcode": PairingAgent.hex(opcode),
                                                             "status": PairingWindow.reason(status)])
            }
            run(window.apply(event, wall: EventRecord.now()))
        }
        run(window.tick(at: clock.now()))
        do { try bonds.saveSeen() } catch { log.warning("bonds-save-failed", ["error": error.description]) }
    }

    private func run(_ actions: [PairingWindow.Action]) {
        for action in actions {
            switch action {
            case .send(let command):
                send(command)
            case .report(let r):
                tellOwner(r)
            case .bond(let phone):
                do {
                    try bonds.add(phone)
                    log.info("phone-paired", ["label": phone.label, "address": phone.address.text, "admin": String(phone.admin),
                                              "private_address": String(phone.irk != nil)])
                } catch {
                    // Without the file the bond would be gone at the next start: undo it now.
                    log.error("phone-pairing-not-saved", ["label": phone.label, "error": error.description])
                    send(.unpairDevice(phone.address, disconnect: true))
                    tellOwner(.failed("the bond could not be saved (\(error.description)); it was undone"))
                }
                for c in bonds.all.kernelCommands { send(c) }
            case .reloadKeys:
                for c in bonds.all.kernelCommands { send(c) }
            case .refusedOutside(let why, let address):
                log.warning("pairing-refused", ["address": address.text, "why": why])
            }
        }
    }

    private func send(_ command: ManagementCommand) {
        guard let index else { return }
        if !socket.send(command, index: index) {
            log.warning("bluetooth-management-failed", ["opcode": PairingAgent.hex(command.opcode), "error": String(cString: strerror(errno))])
        }
    }

    /// An opcode as doc/mgmt-api.txt writes it ("0x0013").
    static func hex(_ v: UInt16) -> String { "0x" + Hex.string([UInt8(v >> 8), UInt8(v & 0xFF)], separator: "") }
}

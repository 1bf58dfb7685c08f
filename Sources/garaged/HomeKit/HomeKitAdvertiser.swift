import CMDNS
import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
import Synchronization
#endif

/// HomeKit's discovery: `_hap._tcp` on the HomeKit port, published through avahi-daemon
/// (libavahi-client over D-Bus, docs/decisions.md) on a thread of its own, `mdns`, which drives
/// avahi's simple poll and nothing else. The TXT record follows the pairings (`sf`), told by the
/// door loop through a `Mutex` and the thread's wake-up. When avahi-daemon restarts the client is
/// made again and the service published again; a name another host has is replaced by avahi's
/// next one ("Garage Door #2"). With `--homekit-bind` on one address the record is published only
/// on the interface holding it, in its family, so no controller elsewhere finds an accessory it
/// cannot reach. Without avahi HomeKit still serves on its port, said once in
/// the log: a controller must then be given the address. avahi's client asks the daemon over
/// D-Bus and waits for the answers, which is why this is a thread and not the door loop.
final class HomeKitAdvertiser: Service, @unchecked Sendable {
    static let serviceType = "_hap._tcp"
    /// After avahi-daemon went away from a published record (a restart), how long it has to come
    /// back before the warning is logged.
    static let restartGrace: Duration = .seconds(10)
    /// Making the client again when the system bus is not there: from 1 s, doubling to this.
    static let maxRetry: Duration = .seconds(30)

    /// The TCP port HomeKit listens on (the kernel's choice when 0 was asked for).
    let port: Int
    /// The address it listens on: `--homekit-bind`, or "::" for every address.
    let bind: String
    private let log: Logger
    private let worker = Worker("mdns")
    private var wake: WakeEvent { worker.wake }
    private let clock = SystemMonotonicClock()
    /// The pairing state the door loop told last and the thread has not taken yet.
    private let told = Mutex<Bool?>(nil)
    private let id: String
    private let configNumber: Int
    private let category: Int
    private let setupHash: String

    /// Publishes `accessory` under its name (`--homekit-name`) on the port of the HomeKit
    /// listener among `listeners`, and hooks its `pairingsChanged`.
    init(accessory: HomeKitAccessory, listeners: [Listener], log: Logger) {
        guard let listener = listeners.lazy.compactMap({ $0 as? HomeKitListener }).first else {
            preconditionFailure("HomeKitAdvertiser needs the HomeKit listener (Daemon.startHomeKit makes it)")
        }
        port = listener.port
        bind = listener.address
        self.log = log
        let state = accessory.state
        id = state.id
        configNumber = state.configNumber
        category = accessory.database.category
        setupHash = HomeKitAdvertiser.setupHash(setupID: state.setupID, id: state.id, crypto: accessory.crypto)
        serviceName = HomeKitAdvertiser.label(accessory.database.name)
        paired = state.isPaired
        accessory.pairingsChanged = { [weak self] paired in self?.pairingsChanged(paired) }
    }

    /// On the door loop's thread: the accessory was paired, or its last pairing went.
    func pairingsChanged(_ paired: Bool) {
        told.withLock { $0 = paired }
        wake.signal()
    }

    var name: String { worker.name }

    func start() { worker.start { [self] in run() } }

    /// Withdraws the record (avahi-daemon sends its goodbye) and ends the thread; at most 1 s.
    func stop() -> Bool { worker.stop(within: .seconds(1)) }

    // MARK: - The record

    /// A DNS label holds 63 bytes: a longer `--homekit-name` is cut (on a character) for mDNS
    /// only, rather than refused by avahi; the Home app shows the full name from the accessory.
    static func label(_ name: String) -> String {
        var cut = name
        while cut.utf8.count > 63 { cut.removeLast() }
        return cut
    }

    /// HAP's TXT record (HAP 1.1, §6.4): configuration number, not certified, the accessory's
    /// id, the model, protocol 1.1, state 1, whether it may be paired, its category and the
    /// setup hash a QR code's setup id is matched with.
    static func txt(id: String, configNumber: Int, category: Int, setupHash: String, paired: Bool) -> [String] {
        ["c#=\(configNumber)", "ff=0", "id=\(id)", "md=garaged", "pv=1.1", "s#=1", "sf=\(paired ? 0 : 1)",
         "ci=\(category)", "sh=\(setupHash)"]
    }

    /// `sh`: base64 of the first 4 bytes of SHA-512(setup id + accessory id).
    static func setupHash(setupID: String, id: String, crypto: any HAPCrypto) -> String {
        LibCrypto.base64(Array(crypto.sha512(Array((setupID + id).utf8)).prefix(4)))
    }

    // MARK: - Where

    /// Where the record is published: an interface index and address family, as avahi takes them.
    struct Scope: Equatable {
        /// `CMDNS_IF_ANY`, or the index of `interfaceName`.
        var interface: Int32
        var interfaceName: String?
        /// `CMDNS_PROTO_ANY`, `CMDNS_PROTO_INET` or `CMDNS_PROTO_INET6`.
        var proto: Int32

        static let everywhere = Scope(interface: Int32(CMDNS_IF_ANY), interfaceName: nil, proto: Int32(CMDNS_PROTO_ANY))

        /// For the log: where a controller can find the accessory.
        var description: String {
            guard let interfaceName else { return "every interface" }
            return "\(interfaceName) (\(proto == Int32(CMDNS_PROTO_INET6) ? "IPv6" : "IPv4"))"
        }
    }

    /// No interface holds the bound address (or the interfaces could not be listed): `why`.
    struct Unplaced: Error {
        let why: String
    }

    /// Only where the listener answers, so no controller finds what it cannot reach: a wildcard
    /// everywhere, one address on its interface.
    static func scope(bind address: String) throws(Unplaced) -> Scope {
        // Not an address: the listener refused it already; nothing to narrow.
        guard let (family, bytes) = addressBytes(address) else { return .everywhere }
        if bytes.allSatisfy({ $0 == 0 }) { return .everywhere }
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else {
            throw Unplaced(why: "the interfaces cannot be listed: \(String(cString: strerror(errno)))")
        }
        defer { freeifaddrs(list) }
        var at = list
        while let entry = at {
            at = entry.pointee.ifa_next
            guard let sa = entry.pointee.ifa_addr, let held = addressBytes(sa), held.family == family, held.bytes == bytes else { continue }
            guard let index = Int32(exactly: if_nametoindex(entry.pointee.ifa_name)), index != 0 else { continue }
            return Scope(interface: index, interfaceName: String(cString: entry.pointee.ifa_name),
                         proto: Int32(family == AF_INET6 ? CMDNS_PROTO_INET6 : CMDNS_PROTO_INET))
        }
        throw Unplaced(why: "no interface has the address \(address) HomeKit listens on")
    }

    /// As bytes, to compare with the interfaces' addresses; IPv4-mapped IPv6 as IPv4, all such a
    /// socket answers.
    static func addressBytes(_ text: String) -> (family: Int32, bytes: [UInt8])? {
        var v6 = in6_addr(), v4 = in_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            let b = withUnsafeBytes(of: &v6) { Array($0) }
            // ::ffff:a.b.c.d: a socket bound to it answers IPv4 only.
            if b[0..<10].allSatisfy({ $0 == 0 }), b[10] == 0xff, b[11] == 0xff { return (AF_INET, Array(b[12...])) }
            return (AF_INET6, b)
        }
        if inet_pton(AF_INET, text, &v4) == 1 { return (AF_INET, withUnsafeBytes(of: &v4) { Array($0) }) }
        return nil
    }

    /// An interface's address (IPv4 or IPv6) as bytes, the form the bound address is compared in.
    static func addressBytes(_ sa: UnsafeMutablePointer<sockaddr>) -> (family: Int32, bytes: [UInt8])? {
        switch Int32(sa.pointee.sa_family) {
        case AF_INET:
            return sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { (AF_INET, withUnsafeBytes(of: $0.pointee.sin_addr) { Array($0) }) }
        case AF_INET6:
            return sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { (AF_INET6, withUnsafeBytes(of: $0.pointee.sin6_addr) { Array($0) }) }
        default:
            return nil
        }
    }

    // MARK: - The thread

    /// The service's name now: `--homekit-name`, or avahi's next one after a collision.
    private var serviceName: String
    private var paired: Bool
    /// The service is committed to the daemon (registering or established).
    private var registered = false
    private var established = false
    /// It was published once: the daemon going away is then a restart until the grace runs out.
    private var everPublished = false
    private var retryAt: Instant?
    private var backoff: Duration = .seconds(1)
    /// Why avahi cannot be reached, and when to say so (`homekit-mdns-unavailable`).
    private var unreachable: (why: String, at: Instant)?
    /// Said for this outage: the warning is not repeated until the record is published again.
    private var warned = false
    /// Where the record is published now; `takeTold` must update it in the same place.
    private var scope = Scope.everywhere
    /// `homekit-mdns-interface-unknown` was said: not repeated until the interface is found again.
    private var warnedUnplaced = false

    private func run() {
        guard let m = cmdns_new(wake.fd) else {
            log.error("homekit-mdns-failed", ["why": "out of memory for avahi's poll", "effect": effect])
            return
        }
        defer { cmdns_destroy(m) }
        connect(m)
        while true {
            takeEvents(m)
            takeTold(m)
            let now = clock.now()
            if let at = retryAt, now >= at {
                retryAt = nil
                connect(m)
                continue
            }
            if let u = unreachable, now >= u.at, !warned {
                warned = true
                log.warning("homekit-mdns-unavailable", ["why": u.why, "effect": effect,
                                                         "fix": "sudo apt install avahi-daemon; sudo systemctl enable --now avahi-daemon"])
            }
            if worker.stopping { break }
            let due = [retryAt, warned ? nil : unreachable?.at].compactMap { $0 }.min()
            // Rounded up, so the poll never wakes just before what is due and spins.
            let timeout = due.map { Int32(clamping: max(0, ($0 - now).nanoseconds + 999_999) / 1_000_000) } ?? -1
            if cmdns_iterate(m, timeout) != 0 {
                log.error("homekit-mdns-failed", ["why": "polling avahi's connection failed: \(String(cString: strerror(errno)))", "effect": effect])
                return
            }
            wake.drain()
        }
        if established { log.info("homekit-mdns-withdrawn", ["name": serviceName]) }
    }

    private var effect: String {
        "HomeKit still serves on port \(port), but iPhones will not find the accessory; a controller must be given this machine's address and the port"
    }

    private var txtBytes: [CChar] {
        let record = HomeKitAdvertiser.txt(id: id, configNumber: configNumber, category: category, setupHash: setupHash, paired: paired)
        return record.flatMap { Array($0.utf8CString) }
    }

    /// Makes the client; with no system bus at all, tries again later (1 s doubling to 30 s).
    private func connect(_ m: OpaquePointer) {
        registered = false
        established = false
        let rc = cmdns_connect(m)
        guard rc != 0 else {
            backoff = .seconds(1)
            return
        }
        retryAt = clock.now() + backoff
        backoff = min(backoff * 2, HomeKitAdvertiser.maxRetry)
        cannotReach("there is no system D-Bus to reach avahi-daemon through (avahi: \(String(cString: cmdns_strerror(rc))))")
    }

    private func cannotReach(_ why: String) {
        guard unreachable == nil else { return }
        unreachable = (why, clock.now() + (everPublished ? HomeKitAdvertiser.restartGrace : .zero))
    }

    /// Looked up at each publish, not once: an interface made again (a bridge, a VLAN) has a new
    /// index.
    private func place() -> Scope {
        do {
            let found = try HomeKitAdvertiser.scope(bind: bind)
            warnedUnplaced = false
            return found
        } catch {
            if !warnedUnplaced {
                warnedUnplaced = true
                let effect = "the record is published on every interface: a controller on another network may find the accessory but cannot reach it"
                log.warning("homekit-mdns-interface-unknown", ["address": bind, "why": error.why, "effect": effect])
            }
            return .everywhere
        }
    }

    private func publish(_ m: OpaquePointer) {
        scope = place()
        for _ in 0..<16 {
            let bytes = txtBytes
            let rc = cmdns_publish(m, scope.interface, scope.proto, serviceName, HomeKitAdvertiser.serviceType, Int32(port), bytes, bytes.count)
            if rc == 0 {
                registered = true
                return
            }
            // A local service (another program through the same daemon) has the name already.
            guard rc == Int32(CMDNS_ERR_COLLISION) else {
                log.error("homekit-mdns-failed", ["name": serviceName, "why": String(cString: cmdns_strerror(rc)), "effect": effect])
                return
            }
            rename()
        }
        log.error("homekit-mdns-failed", ["name": serviceName, "why": "every name tried is taken", "effect": effect])
    }

    private func rename() {
        var next = [CChar](repeating: 0, count: 256)
        cmdns_alternative_name(serviceName, &next, next.count)
        log.info("homekit-mdns-renamed", ["from": serviceName, "to": text(next), "why": "another service on the network has the name"])
        serviceName = text(next)
    }

    private func takeEvents(_ m: OpaquePointer) {
        var e = cmdns_event()
        while cmdns_next_event(m, &e) == 1 {
            switch e.kind {
            case Int32(CMDNS_RUNNING):
                if !registered { publish(m) }
            case Int32(CMDNS_CONNECTING):
                cannotReach("avahi-daemon is not running (the client waits for it)")
            case Int32(CMDNS_REGISTERING), Int32(CMDNS_HOST_COLLISION):
                // The daemon is (re)establishing its host name: publish again once it runs.
                cmdns_withdraw(m)
                registered = false
                established = false
            case Int32(CMDNS_FAILED):
                registered = false
                if established { log.info("homekit-mdns-lost", ["why": String(cString: cmdns_strerror(e.code)), "effect": "published again when avahi-daemon is back"]) }
                established = false
                if e.code == Int32(CMDNS_ERR_DISCONNECTED) {
                    connect(m)
                } else {
                    retryAt = clock.now() + backoff
                    backoff = min(backoff * 2, HomeKitAdvertiser.maxRetry)
                    cannotReach("avahi's client failed: \(String(cString: cmdns_strerror(e.code)))")
                }
            case Int32(CMDNS_ESTABLISHED):
                established = true
                everPublished = true
                unreachable = nil
                warned = false
                log.info("homekit-mdns", ["name": serviceName, "type": HomeKitAdvertiser.serviceType, "port": String(port),
                                          "id": id, "sf": paired ? "0" : "1", "config_number": String(configNumber),
                                          "on": scope.description])
            case Int32(CMDNS_NAME_COLLISION):
                rename()
                registered = false
                publish(m)
            case Int32(CMDNS_GROUP_FAILED):
                registered = false
                established = false
                log.error("homekit-mdns-failed", ["name": serviceName, "why": String(cString: cmdns_strerror(e.code)), "effect": effect])
            default:
                break
            }
        }
    }

    /// The pairing state the door loop told: `sf` changes in the published record.
    private func takeTold(_ m: OpaquePointer) {
        guard let now = told.withLock({ v in let value = v; v = nil; return value }), now != paired else { return }
        paired = now
        guard registered else { return }
        let bytes = txtBytes
        let rc = cmdns_update_txt(m, scope.interface, scope.proto, serviceName, HomeKitAdvertiser.serviceType, bytes, bytes.count)
        if rc == 0 {
            log.info("homekit-mdns-updated", ["name": serviceName, "sf": paired ? "0" : "1"])
        } else {
            // The record is published again whole, with the new value.
            registered = false
            publish(m)
        }
    }
}

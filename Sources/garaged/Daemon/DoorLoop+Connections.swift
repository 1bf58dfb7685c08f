import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
#endif

/// The loop's connections: accepting them (and making room when full or out of
/// descriptors), reading what they sent, dropping them.
extension DoorLoop {
    /// The loop's budget of places: the local socket's and the remote peers' counted apart.
    var budget: ConnectionBudget { ConnectionBudget(total: connectionLimit) }

    /// Connections accepted from one listener per turn, at most: a connect flood waits in the
    /// kernel's queue instead of holding up the answers to those already in.
    static let maxAcceptsPerTurn = 16

    /// Accepts the waiting connections, a few a turn. When a connection's pool is full, the
    /// idlest that stands no higher makes room (`ConnectionBudget`: the shell's clients are
    /// counted apart, a stranger only ever pushes out a stranger), or the newcomer is closed;
    /// out of descriptors, the spare one is used.
    func acceptConnections(from listener: Listener) {
        var took = 0
        for _ in 0..<DoorLoop.maxAcceptsPerTurn {
            let before = PacketSocket.realtimeNow()
            let connection: Connection?
            do {
                connection = try listener.accept(at: clock.now(), emptyMark: acceptedAfter(listener))
            } catch let failure where failure.outOfDescriptors {
                guard acceptWithSpare(listener) else { return }
                continue
            } catch {
                log.error("accept-failed", ["listener": listener.description, "error": String(cString: strerror(error.errno)),
                                            "action": "trying again in \(DoorLoop.acceptPause.nanoseconds / 1_000_000) ms"])
                pausedListeners[listener.fd] = clock.now() + DoorLoop.acceptPause
                return
            }
            guard let connection else {
                // Nobody waits: whoever comes next came after this.
                listenerMarks[listener.fd] = before
                if let problem = listener.took(took) {
                    log.warning("connect-times-off", ["listener": listener.description, "problem": problem,
                                                      "action": "its connections are dated by the loop's looks, every \(DoorLoop.longestWait.nanoseconds / 1_000_000) ms"])
                }
                return
            }
            took += 1
            admit(connection)
        }
    }

    /// What a connection accepted now from `listener` sent arrived after this (CLOCK_REALTIME
    /// ns): the loop's last look at the listener, or the kernel's connect time when later.
    func acceptedAfter(_ listener: Listener) -> Int64 {
        max(listenerMarks[listener.fd] ?? startedAt, listener.connectedAfter() ?? .min)
    }

    /// Out of descriptors: gives up the spare to take the waiting connection, makes room by
    /// dropping the idlest, and takes the spare back. False (the listener pauses) when even
    /// that fails.
    func acceptWithSpare(_ listener: Listener) -> Bool {
        if spareFD >= 0 { close(spareFD); spareFD = -1 }
        let connection = try? listener.accept(at: clock.now(), emptyMark: acceptedAfter(listener))
        if let connection { admit(connection, mustFree: true) }
        spareFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
        if connection == nil || spareFD < 0 {
            log.warning("out-of-descriptors", ["listener": listener.description, "connections": String(connections.count),
                                               "action": "new connections wait \(DoorLoop.acceptPause.nanoseconds / 1_000_000) ms; raise LimitNOFILE"])
            pausedListeners[listener.fd] = clock.now() + DoorLoop.acceptPause
            return false
        }
        return true
    }

    /// Takes a new connection in, making room for it by the budget's rules, or closes it when
    /// everyone in its pool stands higher (both said once per burst, under one key for all).
    func admit(_ connection: Connection, mustFree: Bool = false) {
        let requesters = connections.values.filter { $0.following == nil }.map { (id: $0.fd, holder: $0.holder) }
        switch budget.verdict(for: connection.holder, among: requesters, mustFree: mustFree) {
        case .room:
            break
        case .evict(let fd):
            guard let victim = connections[fd] else { break }
            logOncePerBurst(.warning, "connection-evicted", key: "connection-evicted", [
                ("source", victim.source.description),
                ("why", "its pool (\(victim.pool == ConnectionBudget.Pool.local ? "the local socket" : "remote peers")) is full; this one was the idlest that stood no higher than the newcomer")])
            drop(victim, quietly: true)
        case .refuse:
            logOncePerBurst(.warning, "connection-refused", key: "connection-refused", [
                ("source", connection.source.description),
                ("why", "every place for remote peers is held by one that has proved more; a stranger pushes out only strangers")])
            connection.close()
            return
        }
        connections[connection.fd] = connection
    }

    /// Packets taken from one connection per wake-up, so one busy peer cannot hold up the others.
    static let maxPacketsPerTurn = 16

    /// Packets taken from strangers (HomeKit connections before pair-verify) per turn, in all:
    /// each may be a key exchange (pair-verify M1: X25519 and Ed25519 on this thread), so however
    /// many connections a stranger floods from, a turn does at most this many before it comes
    /// round again to the owner and everyone else.
    static let maxStrangerPacketsPerTurn = 8

    /// Serves strangers after everyone else, one packet each, in turn by descriptor from the one
    /// after the stranger served last, until `maxStrangerPacketsPerTurn`. Those left wait for
    /// the next turn, which comes without a wait (their sockets are still readable, or their
    /// requests already read are `mayHaveMore`), and keep the arrival of what they sent: what
    /// is still in the socket is not marked empty, and what was read keeps its own.
    func serveStrangers(_ waiting: [(Connection, hungUp: Bool)], polled: Int64) {
        let ring = waiting.sorted { $0.0.fd < $1.0.fd }
        let first = ring.firstIndex { $0.0.fd > lastStranger } ?? 0
        for i in 0..<min(ring.count, DoorLoop.maxStrangerPacketsPerTurn) {
            let (connection, hungUp) = ring[(first + i) % ring.count]
            lastStranger = connection.fd
            // Dropped meanwhile (a newcomer took its place), or its descriptor reused.
            guard connections[connection.fd] === connection else { continue }
            serve(connection, hungUp: hungUp, polled: polled)
            if connection.closing { drop(connection) }
        }
    }

    /// Judges what a connection sent, one packet at a time (`maxPacketsPerTurn` at most, one
    /// from a stranger): each request is answered (and its press started) before the next packet
    /// is even read. `hungUp`: the poll saw the peer close its end entirely (a half-close still
    /// gets answers). `polled`: when this turn's wait began (the empty mark of a read that finds
    /// nothing: `Connection.receive`).
    func serve(_ connection: Connection, hungUp: Bool, polled: Int64) {
        let packets = connection.standing == .stranger ? 1 : DoorLoop.maxPacketsPerTurn
        for _ in 0..<packets where !connection.closing {
            switch connection.receive(hungUp: hungUp, polled: polled) {
            case .empty:
                return
            case .left:
                drop(connection)
                return
            case .packet(let incoming):
                connection.lastHeard = clock.now()
                for item in incoming where !connection.closing {
                    switch item {
                    case .refused(let reply, let why):
                        logRequest(connection.source, command: "?", result: reply, changed: false, extra: [("why", why)])
                        connection.answered(Verdict(replies: [reply], accepted: false))
                    case .request(var request, let receivedAt):
                        if let receivedAt { request.arrived = arrival(receivedAt) }
                        perform(request, answering: connection)
                    }
                }
            }
        }
    }

    /// Closes a connection, saying why when it decided that itself (once per burst under one
    /// key for every remote peer: anyone can make connections fail at will).
    func drop(_ connection: Connection, quietly: Bool = false) {
        if let why = connection.closeReason, !quietly {
            let key = connection.pool == .local ? "connection-dropped \(connection.source.summaryKey)" : "connection-dropped remote"
            logOncePerBurst(.warning, "connection-dropped", key: key, [("source", connection.source.description), ("why", why)])
        }
        connection.close()
        connections[connection.fd] = nil
        dropped &+= 1
        pausedListeners.removeAll()  // a descriptor is free again
    }
}

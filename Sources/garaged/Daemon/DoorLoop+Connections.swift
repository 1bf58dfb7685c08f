import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
#endif

/// The loop's connections: accepting them (and making room when full or out of
/// descriptors), reading what they sent, dropping them.
extension DoorLoop {
    /// Accepts every waiting connection. When the loop is full, the connection that has been
    /// silent longest makes room (a throttled one before one of the owner's), so idle
    /// connections can never shut the owner out; out of descriptors, the spare one is used.
    func acceptConnections(from listener: Listener) {
        while true {
            let connection: Connection?
            do {
                connection = try listener.accept(at: clock.now())
            } catch let failure where failure.outOfDescriptors {
                guard acceptWithSpare(listener) else { return }
                continue
            } catch {
                log.error("accept-failed", ["listener": listener.description, "error": String(cString: strerror(error.errno)),
                                            "action": "trying again in \(DoorLoop.acceptPause.nanoseconds / 1_000_000) ms"])
                pausedListeners[listener.fd] = clock.now() + DoorLoop.acceptPause
                return
            }
            guard let connection else { return }
            makeRoom()
            connections[connection.fd] = connection
        }
    }

    /// Out of descriptors: gives up the spare to take the waiting connection, makes room by
    /// dropping the idlest, and takes the spare back. False (the listener pauses) when even
    /// that fails.
    func acceptWithSpare(_ listener: Listener) -> Bool {
        if spareFD >= 0 { close(spareFD); spareFD = -1 }
        let connection = try? listener.accept(at: clock.now())
        if let connection {
            makeRoom(evictingAtLeastOne: true)
            connections[connection.fd] = connection
        }
        spareFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
        if connection == nil || spareFD < 0 {
            log.warning("out-of-descriptors", ["listener": listener.description, "connections": String(connections.count),
                                               "action": "new connections wait \(DoorLoop.acceptPause.nanoseconds / 1_000_000) ms; raise LimitNOFILE"])
            pausedListeners[listener.fd] = clock.now() + DoorLoop.acceptPause
            return false
        }
        return true
    }

    /// Drops the idlest requesting connection (one that proved nothing first, then a throttled
    /// one, the owner's last) while the loop is full, or at least one when asked to.
    func makeRoom(evictingAtLeastOne: Bool = false) {
        let requesters = connections.values.filter { !isFollower($0) }
        func rank(_ c: Connection) -> Int { c.source.isOwner ? 2 : c.proven ? 1 : 0 }
        guard requesters.count >= connectionLimit || evictingAtLeastOne, let victim = requesters.min(by: {
            (rank($0), $0.lastHeard) < (rank($1), $1.lastHeard)
        }) else { return }
        if logBursts.note("evicted", LogLine(event: "connection-evicted", fields: []), at: clock.now()) {
            log.warning("connection-evicted", ["source": victim.source.description,
                                               "why": "\(requesters.count) connections open (at most \(connectionLimit)); this one was the idlest"])
        }
        drop(victim)
    }

    /// Packets taken from one connection per wake-up, so one busy peer cannot hold up the others.
    static let maxPacketsPerTurn = 16

    /// Judges what a connection sent, one packet at a time: each request is answered (and its
    /// press started) before the next packet is even read. `hungUp`: the poll saw the peer
    /// close its end entirely (a half-close still gets answers).
    func serve(_ connection: Connection, hungUp: Bool) {
        for _ in 0..<DoorLoop.maxPacketsPerTurn where !connection.closing {
            switch connection.receive(hungUp: hungUp) {
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
                        connection.deliver([reply])
                    case .request(let bytes, let receivedAt):
                        connection.deliver(handle(bytes, receivedAt: receivedAt, from: connection))
                        flushPushes()
                    case .commands(let commands):
                        connection.judged(commands.map { handle($0) })
                    }
                }
            }
        }
    }

    func drop(_ connection: Connection) {
        if let why = connection.closeReason {
            log.warning("connection-dropped", ["source": connection.source.description, "why": why])
        }
        connection.close()
        connections[connection.fd] = nil
        dropped &+= 1
        pausedListeners.removeAll()  // a descriptor is free again
    }
}

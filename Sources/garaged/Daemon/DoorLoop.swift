import CLinux
import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// The book's `loop`, on one thread: it waits in ppoll for requests on the local socket or for
/// the door's next deadline (travel end, auto-close), hands each request to the controller,
/// sends the replies, and passes presses to the pulse driver. The controller is touched only
/// here, so it needs no locks.
final class DoorLoop: @unchecked Sendable {
    static let maxClients = 128

    private var controller: Controller
    private let pulser: PulseDriver
    private let clock: any MonotonicClock
    private let log: Logger
    private let listener: Int32
    private let socketPath: String
    private let trustedUIDs: Set<uid_t>
    private var clients: [Int32: LocalClient] = [:]
    private let wake = WakeEvent()
    private let stopRequested = Locked(false)
    private let finished = WakeEvent()
    private let finishedFlag = Locked(false)

    init(controller: Controller, pulser: PulseDriver, listener: Int32, socketPath: String,
         clock: any MonotonicClock, log: Logger) {
        self.controller = controller
        self.pulser = pulser
        self.listener = listener
        self.socketPath = socketPath
        self.clock = clock
        self.log = log
        trustedUIDs = [0, getuid()]
    }

    func start() { startThread(name: "door-loop") { [self] in run() } }

    /// Stops taking requests, closes every connection and removes the socket file; returns
    /// when the loop has finished.
    func stop() {
        stopRequested.withLock { $0 = true }
        wake.signal()
        var fds = [pollfd(fd: finished.fd, events: Int16(POLLIN), revents: 0)]
        while !finishedFlag.withLock({ $0 }) { waitFor(&fds, timeout: .seconds(1)) }
    }

    private func run() {
        while !stopRequested.withLock({ $0 }) {
            var fds = [pollfd(fd: wake.fd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
            for c in clients.values {
                fds.append(pollfd(fd: c.fd, events: Int16(POLLIN) | (c.wantsWrite ? Int16(POLLOUT) : 0), revents: 0))
            }
            let n = waitFor(&fds, timeout: controller.door.nextDeadline.map { $0 - clock.now() })
            if n < 0 && errno != EINTR {
                log.error("poll-failed", ["error": String(cString: strerror(errno))])
            }
            wake.drain()
            runDoorEvents(controller.tick(at: clock.now()))
            for pfd in fds where pfd.revents != 0 {
                if pfd.fd == wake.fd { continue }
                if pfd.fd == listener { acceptClients(); continue }
                guard let client = clients[pfd.fd] else { continue }
                if pfd.revents & Int16(POLLOUT) != 0 { client.flush() }
                if pfd.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { serve(client) }
                if client.closing { drop(client) }
            }
        }
        for c in Array(clients.values) { drop(c) }
        close(listener)
        unlink(socketPath)
        finishedFlag.withLock { $0 = true }
        finished.signal()
    }

    /// Accepts every waiting connection. When the table of clients is full, the connection
    /// that has been silent longest makes room (one of another user's before one of the
    /// owner's), so idle connections can never shut the owner out.
    private func acceptClients() {
        while true {
            let fd = clinux_accept_nonblocking(listener)
            if fd < 0 { return }
            let uid = LocalSocket.peerUID(fd)
            let trusted = uid.map { trustedUIDs.contains($0) } ?? false
            let source = RequestSource("local uid=\(uid.map { String($0) } ?? "?")", throttled: !trusted)
            if clients.count >= DoorLoop.maxClients, let victim = clients.values.min(by: {
                ($0.source.throttled ? 0 : 1, $0.lastHeard) < ($1.source.throttled ? 0 : 1, $1.lastHeard)
            }) {
                log.warning("client-evicted", ["source": victim.source.description,
                                               "why": "\(DoorLoop.maxClients) connections open; this one was the idlest"])
                drop(victim)
            }
            clients[fd] = LocalClient(fd: fd, source: source, at: clock.now())
        }
    }

    private func serve(_ client: LocalClient) {
        guard let bytes = client.read() else {
            drop(client)
            return
        }
        if !bytes.isEmpty { client.lastHeard = clock.now() }
        for item in client.framer.feed(bytes) {
            let replies: [Reply]
            switch item {
            case .tooLong:
                replies = [.error(.format)]
                log.info("request", ["source": client.source.description, "result": "ERR FORMAT", "why": "line longer than 64 bytes"])
            case .line(let line):
                replies = handle(line, from: client.source)
            }
            if !client.queue(replies) {
                log.warning("client-dropped", ["source": client.source.description, "why": "it stopped reading its replies"])
                drop(client)
                return
            }
        }
    }

    /// Judges one request and performs what it asks; returns its replies.
    private func handle(_ line: [UInt8], from source: RequestSource) -> [Reply] {
        let outcome = controller.handle(line, from: source, at: clock.now())
        runDoorEvents(outcome.doorEvents)
        log.info("request", ["source": source.description, "command": outcome.command ?? "?",
                  "slot": outcome.slot.map { String($0) } ?? "-", "result": outcome.result.text])
        if let lock = outcome.lockout {
            log.warning("lockout", ["source": source.description, "seconds": String(lock.secondsRoundedUp),
                                    "failures": String(controller.throttle.failures)])
        }
        if let press = outcome.press { pulser.press(press) }
        return outcome.replies
    }

    private func runDoorEvents(_ events: [Door.Event]) {
        for event in events {
            switch event {
            case .arrived(let position):
                log.info("door", ["state": position.rawValue])
            case .pressed(let press):
                log.info("auto-close", ["after_s": controller.door.timing.autoClose.map { String($0.secondsRoundedUp) } ?? "-"])
                pulser.press(press)
            }
        }
    }

    private func drop(_ client: LocalClient) {
        close(client.fd)
        clients[client.fd] = nil
    }
}

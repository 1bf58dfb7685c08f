import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// One client the door loop serves, whatever carries it (a line on the local socket, an ATT
/// bearer over Bluetooth or the test seam). The loop owns every connection and calls these
/// from its one thread only; a connection never blocks. Each is one of the loop's audiences
/// (`DoorSubscriber`): a phone takes pushes, a follower what it follows.
protocol Connection: DoorSubscriber {
    var fd: Int32 { get }
    var source: RequestSource { get }
    /// When the peer last sent anything: the idlest connection makes room when the loop is full.
    var lastHeard: Instant { get set }
    /// True while replies wait for the socket to take them.
    var wantsWrite: Bool { get }
    /// Set when the connection should be dropped (a dead peer, or one that misbehaved).
    var closing: Bool { get }
    /// Why `closing` was set, for the log, when the connection decided it itself.
    var closeReason: String? { get }

    /// Reads one packet and returns the requests it carried, in order: the loop judges them
    /// before it reads the next, so a press never waits behind the rest of a burst.
    /// `hungUp`: the loop's poll saw the peer close its end (POLLHUP) before this turn.
    /// `polled`: when this turn's wait began (CLOCK_REALTIME ns); a read that finds the socket
    /// empty marks it so at that moment, before the read, so whatever comes later arrived after.
    func receive(hungUp: Bool, polled: Int64) -> Received
    /// Sends records nobody asked for just now (what a follower follows, a window's news), or
    /// queues what the socket cannot take yet. A request's answer goes by `answered`.
    func deliver(_ replies: [Reply])
    /// Writes queued replies, never blocking.
    func flush()
    /// Closes the socket.
    func close()
    /// When what it reads arrived: the kernel's stamps, or the socket's empty mark, which the
    /// loop keeps up to date (every turn that polled the socket and found nothing to read).
    var arrivals: Arrivals { get set }
    /// The loop's verdict on one request it handed over (`Incoming.request`), in the order
    /// they came: the one way every connection is answered.
    func answered(_ verdict: Verdict)
    /// How far the peer has proved who it is: a stranger (a HomeKit connection before
    /// pair-verify) only ever pushes out another stranger, so strangers opening connections never
    /// push out the controllers that hold idle sessions for days, the phones, or the shell.
    var standing: ConnectionBudget.Standing { get }
    /// The count it is in: the local socket's clients are counted apart from remote peers.
    var pool: ConnectionBudget.Pool { get }
    /// True when requests it already read may still wait in its own buffer (a stream socket's
    /// pipelined requests, beyond what one turn serves): the loop serves it again without
    /// waiting for the socket, which may never be readable again.
    var mayHaveMore: Bool { get }
    /// Whether it can follow anything: only the local socket's clients can.
    var canFollow: Bool { get }
    /// What it follows (status, the history, a pairing window), nil when nothing.
    var following: LocalCommand.FollowTopic? { get }
    /// Starts following `topic`, seeing of the doors those `watching` allows (when `canFollow`).
    func follow(_ topic: LocalCommand.FollowTopic, watching: @escaping (Int) -> Bool)
    /// Follows nothing from now on (a pairing window it followed was replaced).
    func stopFollowing()
}

extension Connection {
    /// The connection as the budget of places sees it.
    var holder: ConnectionBudget.Holder { ConnectionBudget.Holder(pool: pool, standing: standing, lastHeard: lastHeard) }
    /// A connection that answers in records sends the verdict's replies.
    func answered(_ verdict: Verdict) { deliver(verdict.replies) }
    var standing: ConnectionBudget.Standing { .proven }
    var pool: ConnectionBudget.Pool { .remote }
    var mayHaveMore: Bool { false }
    var following: LocalCommand.FollowTopic? { nil }
    var canFollow: Bool { false }
    func follow(_ topic: LocalCommand.FollowTopic, watching: @escaping (Int) -> Bool) {}
    func stopFollowing() {}
}

/// What one read of a connection found.
enum Received {
    /// A packet, and the requests it carried (none for an ATT read or a refused PDU).
    case packet([Incoming])
    /// Nothing waits now.
    case empty
    /// The peer left.
    case left
}

/// What a connection found in what it read.
enum Incoming {
    /// One request, whatever carries it (a socket line, an ATT write, one of HomeKit's writes):
    /// the loop judges it and gives its verdict back with `Connection.answered`. `receivedAt`,
    /// when the transport has the kernel's stamp (ns since the epoch, CLOCK_REALTIME:
    /// `Arrivals`), is when it arrived at the latest; the loop reads it on its own clock.
    case request(DoorRequest, receivedAt: Int64? = nil)
    /// A request refused by the transport itself (e.g. a socket line over 64 bytes).
    case refused(Reply, why: String)
}

/// The loop's answer to one request a connection handed it.
struct Verdict {
    /// The replies for the request's wire: the controller's, or the loop's own for a query.
    var replies: [Reply]
    /// True when the request was done (HomeKit answers 204, or its error status).
    var accepted: Bool
}

/// A socket that new connections arrive on. Made on one thread (the Bluetooth supervisor makes
/// L2CAP listeners) and handed to the door loop, which alone uses it from then on.
protocol Listener: AnyObject, Sendable {
    var fd: Int32 { get }
    /// What it is, for the log ("local socket /run/garaged/garaged.sock").
    var description: String { get }
    /// Takes one waiting connection; nil when none is waiting. Throws when accepting failed
    /// for a reason that waiting will not cure (out of file descriptors). `emptyMark`: when the
    /// listener was last seen with nobody waiting (what the connection sent came after it).
    func accept(at now: Instant, emptyMark: Int64) throws(AcceptFailure) -> Connection?
    /// Stops listening (and removes what it created on disk).
    func close()
    /// What the loop's sleep must allow for at CLOCK_REALTIME `now`; `quiet`: its last wait found nothing to do.
    func need(at now: Int64, quiet: Bool) -> ListenerNeed
    /// The loop's wait begun at `polled` found nobody waiting.
    func sawEmpty(at polled: Int64)
    /// When its waiting connections connected at the earliest, from the kernel, if later than the loop's last look.
    func connectedAfter() -> Int64?
    /// Nobody waits any more, `count` connections accepted since it was last told; returns, once, why it can no longer date them itself.
    func took(_ count: Int) -> String?
}

/// What a listener needs of the loop's sleep for what its connections send before accept to be dated.
enum ListenerNeed: Equatable {
    /// A look every `DoorLoop.longestWait`: the last look dates them.
    case looks
    /// A look begun at this CLOCK_REALTIME ns or later.
    case lookAt(Int64)
    /// Nothing: the loop may sleep as long as it likes.
    case nothing
}

extension Listener {
    func need(at now: Int64, quiet: Bool) -> ListenerNeed { .looks }
    func sawEmpty(at polled: Int64) {}
    func connectedAfter() -> Int64? { nil }
    func took(_ count: Int) -> String? { nil }
}

/// A listener on a Unix socket's file, whose connections `ConnectTimes` dates while the loop sleeps.
protocol SocketFileListener: Listener {
    /// Nil where the file's access times cannot date connections (the loop then keeps looking).
    var connectTimes: ConnectTimes? { get }
}

extension SocketFileListener {
    func need(at now: Int64, quiet: Bool) -> ListenerNeed { connectTimes?.need(at: now, quiet: quiet) ?? .looks }
    func sawEmpty(at polled: Int64) { connectTimes?.sawEmpty(at: polled) }
    func connectedAfter() -> Int64? { connectTimes?.connectedAfter() }
    func took(_ count: Int) -> String? { connectTimes?.took(count) }
}

/// accept() failed with `errno` (EMFILE, ENFILE, ENOBUFS, ENOMEM): the connection is still
/// waiting in the kernel, so polling the listener again at once would spin.
struct AcceptFailure: Error {
    var errno: Int32
    var outOfDescriptors: Bool { errno == EMFILE || errno == ENFILE }
}

/// The descriptor an accept call returned, nil when nothing was waiting (or the peer left
/// before it was accepted), or the failure.
func accepted(_ fd: Int32) throws(AcceptFailure) -> Int32? {
    if fd >= 0 { return fd }
    switch errno {
    case EAGAIN, EWOULDBLOCK, EINTR, ECONNABORTED, EPROTO, EPERM: return nil
    default: throw AcceptFailure(errno: errno)
    }
}

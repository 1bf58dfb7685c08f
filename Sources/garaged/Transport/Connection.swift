import DoorCore

/// One client the door loop serves, whatever carries it (a line on the local socket, an ATT
/// bearer over Bluetooth or the test seam). The loop owns every connection and calls these
/// from its one thread only; a connection never blocks.
protocol Connection: AnyObject {
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

    /// Reads what arrived and returns the requests it carried, in order; nil when the peer left.
    func receive() -> [Incoming]?
    /// Sends the replies to one request (or queues what the socket cannot take yet).
    func deliver(_ replies: [Reply])
    /// Writes queued replies, never blocking.
    func flush()
    /// Closes the socket.
    func close()
}

/// What a connection found in what it read.
enum Incoming {
    /// Request bytes for the controller (one socket line, one ATT write).
    case request([UInt8])
    /// A request refused by the transport itself (e.g. a socket line over 64 bytes).
    case refused(Reply, why: String)
}

/// A socket that new connections arrive on.
protocol Listener: AnyObject {
    var fd: Int32 { get }
    /// What it is, for the log ("local socket /run/garaged/garaged.sock").
    var description: String { get }
    /// Takes one waiting connection; nil when none is waiting.
    func accept(at now: Instant) -> Connection?
    /// Stops listening (and removes what it created on disk).
    func close()
}

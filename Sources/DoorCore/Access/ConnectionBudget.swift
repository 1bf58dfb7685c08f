/// Who keeps a place when the daemon's connections are full. The local socket's clients and the
/// remote ones (Bluetooth, HomeKit, the ATT test socket) are counted apart, so no remote peer
/// ever takes a place from the shell; within a pool a newcomer may only push out someone who
/// stands no higher than itself (a stranger only a stranger), the idlest first. Unproven peers
/// therefore share what proven ones leave, and a flood of them only churns among themselves.
public struct ConnectionBudget: Sendable, Equatable {
    /// Which count a connection is in.
    public enum Pool: Sendable, Equatable { case local, remote }

    /// How far a connection has proved who it is.
    public enum Standing: Int, Sendable, Comparable {
        /// A remote peer that has proved nothing yet (a HomeKit connection before pair-verify).
        case stranger
        /// A peer the transport vouches for: a Bluetooth link, a verified HomeKit controller,
        /// a local user in the socket's group.
        case proven
        /// The owner at the shell (root, or garaged's own user).
        case owner

        public static func < (a: Standing, b: Standing) -> Bool { a.rawValue < b.rawValue }
    }

    /// One connection as the budget sees it.
    public struct Holder: Sendable, Equatable {
        public var pool: Pool
        public var standing: Standing
        /// When it last sent anything.
        public var lastHeard: Instant

        public init(pool: Pool, standing: Standing, lastHeard: Instant) {
            self.pool = pool
            self.standing = standing
            self.lastHeard = lastHeard
        }
    }

    /// What to do with a newcomer.
    public enum Verdict<ID: Sendable & Equatable>: Sendable, Equatable {
        /// Its pool has room.
        case room
        /// Drop this one to make room.
        case evict(ID)
        /// Everyone in its pool stands higher: the newcomer goes.
        case refuse
    }

    public let localLimit: Int
    public let remoteLimit: Int

    /// `total` places split so that the shell always keeps a quarter (at most 32, at least 1).
    public init(total: Int) {
        let local = max(1, min(32, total / 4))
        self.init(localLimit: local, remoteLimit: max(1, total - local))
    }

    public init(localLimit: Int, remoteLimit: Int) {
        self.localLimit = localLimit
        self.remoteLimit = remoteLimit
    }

    /// Who makes room for `newcomer` among `holders` (the newcomer not among them); with
    /// `mustFree` (out of descriptors) someone goes even when the pool has room.
    public func verdict<ID: Sendable & Equatable>(for newcomer: Holder, among holders: [(id: ID, holder: Holder)],
                                                  mustFree: Bool = false) -> Verdict<ID> {
        let pool = holders.filter { $0.holder.pool == newcomer.pool }
        guard mustFree || pool.count >= (newcomer.pool == .local ? localLimit : remoteLimit) else { return .room }
        let victim = pool.filter { $0.holder.standing <= newcomer.standing }
            .min { ($0.holder.standing, $0.holder.lastHeard) < ($1.holder.standing, $1.holder.lastHeard) }
        return victim.map { .evict($0.id) } ?? .refuse
    }
}

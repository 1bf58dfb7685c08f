/// How many key exchanges HomeKit does for peers that have proved nothing: each pair-verify M1
/// is an X25519 agreement and an Ed25519 signature on the door loop's thread, so a stranger
/// pipelining M1s on many connections could hold up everyone's answers. A few a second in all,
/// fewer per address; past that M1 is answered Busy without any crypto (a controller retries).
public struct HandshakeBudget: Sendable {
    /// Key exchanges in all: 16 at once, then one every 62.5 ms (16 a second).
    public static let all = (capacity: 16, refill: Duration.milliseconds(62) + .microseconds(500))
    /// Per address: 4 at once, then one every 250 ms (4 a second).
    public static let perPeer = (capacity: 4, refill: Duration.milliseconds(250))
    /// Addresses tracked at most (the idlest is forgotten past it: a fresh allowance is safe,
    /// the allowance in all still holds).
    public static let maxPeers = 64

    private var everyone = ErrorBudget(capacity: HandshakeBudget.all.capacity, refill: HandshakeBudget.all.refill)
    private var peers: [String: (budget: ErrorBudget, used: Instant)] = [:]

    public init() {}

    /// Spends one exchange for `peer` (an address); false when it must wait (answer Busy).
    public mutating func spend(peer: String, at now: Instant) -> Bool {
        var mine = peers[peer]?.budget ?? ErrorBudget(capacity: HandshakeBudget.perPeer.capacity, refill: HandshakeBudget.perPeer.refill)
        guard mine.hasUnit(at: now), everyone.spend(at: now) else { return false }
        _ = mine.spend(at: now)
        if peers[peer] == nil, peers.count >= HandshakeBudget.maxPeers, let idlest = peers.min(by: { $0.value.used < $1.value.used })?.key {
            peers[idlest] = nil
        }
        peers[peer] = (mine, now)
        return true
    }
}

/// How many key exchanges HomeKit does for peers that have proved nothing: each pair-verify M1
/// is an X25519 agreement and an Ed25519 signature on the door loop's thread, so a stranger
/// pipelining M1s on many connections could hold up everyone's answers. Enough for a household's
/// controllers reconnecting at once, then a few a second, in all and per address; past that M1
/// is answered Busy without any crypto (a controller retries). Pair-setup has its own, smaller
/// allowance (`PairSetup.maxStartsPerMinute`). What bounds a turn of the loop is the loop's: it
/// serves strangers last, a few requests a turn in all, so neither exchanges nor Busy answers
/// hold up the owner.
public struct HandshakeBudget: Sendable {
    /// Key exchanges in all: 32 at once, then one every 31.25 ms (32 a second).
    public static let all = (capacity: 32, refill: Duration.milliseconds(31) + .microseconds(250))
    /// Per address: 16 at once, then one every 125 ms (8 a second).
    public static let perPeer = (capacity: 16, refill: Duration.milliseconds(125))
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

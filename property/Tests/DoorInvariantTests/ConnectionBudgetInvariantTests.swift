import DoorCore
import PropertyBased
import Testing

/// The connection budget's promises (docs/threat-model.md, the channel contract), over generated
/// sets of open connections and newcomers: a stranger never pushes out the owner, a phone or a
/// verified session; a remote peer never takes a place from the shell; whoever goes is the idlest
/// of those that stand no higher; and a pool with room pushes out nobody.
@Suite struct ConnectionBudgetInvariantTests {
    static let holder = zip(Gen.bool, Gen.int(in: 0...2), Gen.int(in: 0...1_000)).map { local, standing, heard in
        ConnectionBudget.Holder(pool: local ? .local : .remote, standing: ConnectionBudget.Standing(rawValue: standing)!,
                                lastHeard: Instant(nanoseconds: UInt64(heard) * 1_000_000))
    }

    @Test func noNewcomerPushesOutSomeoneWhoStandsHigherOrInAnotherPool() async {
        await propertyCheck(count: 3_000, input: Gen.int(in: 1...8), Gen.int(in: 1...8), Self.holder.array(of: 0...24), Self.holder,
                            Gen.bool) { localLimit, remoteLimit, open, newcomer, mustFree in
            let budget = ConnectionBudget(localLimit: localLimit, remoteLimit: remoteLimit)
            let holders = open.enumerated().map { (id: $0.offset, holder: $0.element) }
            let pool = holders.filter { $0.holder.pool == newcomer.pool }
            let limit = newcomer.pool == .local ? localLimit : remoteLimit
            switch budget.verdict(for: newcomer, among: holders, mustFree: mustFree) {
            case .room:
                #expect(!mustFree && pool.count < limit, "room said for a full pool")
            case .evict(let id):
                let victim = open[id]
                #expect(mustFree || pool.count >= limit, "nobody goes while there is room")
                #expect(victim.pool == newcomer.pool, "a remote peer never takes a place from the shell, nor the reverse")
                #expect(victim.standing <= newcomer.standing, "\(newcomer.standing) pushed out \(victim.standing)")
                let idler = pool.contains { $0.holder.standing <= newcomer.standing
                    && ($0.holder.standing, $0.holder.lastHeard) < (victim.standing, victim.lastHeard) }
                #expect(!idler, "the one that goes is the idlest of the lowest standing")
            case .refuse:
                #expect(mustFree || pool.count >= limit)
                #expect(pool.allSatisfy { $0.holder.standing > newcomer.standing }, "refused though someone stood no higher")
            }
        }
    }
}

import DoorCore
import PropertyBased
import Testing

/// Every audience of the status is a pure view of (the snapshot it was last given, the new one):
/// HomeKit's events, Home Assistant's retained values, systemd's line and the phones' pushes.
/// Over generated garages and steps, snapshotted after each step as the loop would: a snapshot
/// unchanged sends nothing to anyone, and an audience that applies every change it was sent, in
/// order, shows what the last snapshot shows (so no audience needs a copy of its own).
@Suite struct AudienceViewInvariantTests {
    /// The snapshots a run gives its audiences, one list per daemon (a restart starts the
    /// audiences over): the first, then one after each step.
    private func runs(_ garage: Garage, _ steps: [Step]) -> [[StatusSnapshot]] {
        let world = World(garage)
        var out = [[world.snapshot()]]
        for step in steps {
        world.perform(step)
        if case .restart = step { out.append([]) }
        out[out.count - 1].append(world.snapshot())
        }
        world.run(for: .seconds(120))
        out[out.count - 1].append(world.snapshot())
        return out
    }

    @Test func eachAudienceSendsNothingForNothingAndReachesTheLastSnapshot() async {
        await propertyCheck(count: 500, input: Scenarios.garage, Scenarios.steps) { garage, steps in
            for all in runs(garage, steps) { check(all, garage, steps) }
        }
    }

    private func check(_ all: [StatusSnapshot], _ garage: Garage, _ steps: [Step]) {
        let first = all[0], last = all[all.count - 1]
        let now = Instant(nanoseconds: 1_000_000_000)
        let until = { (s: Int) in "+\(s)s" }
        let database = HAPDatabase(name: "Garage", doors: [.init(name: "Garage", has: first.doors[0].capabilities)], firmware: "1", serial: "s")
        let ha = HomeAssistant(prefix: "garaged", discoveryPrefix: "homeassistant", node: "d", name: "G", commandsEnabled: true,
                               version: "0", covers: [.init(id: nil, name: nil, has: first.doors[0].capabilities)])
        func homeKit(_ s: StatusSnapshot?) -> [HAPCharacteristicID: JSONValue] {
            let views = database.views(of: s)
            return Dictionary(uniqueKeysWithValues: database.notifying.map { ($0.0, $0.1.value(among: views)) })
        }
        func retained(_ s: StatusSnapshot) -> [String: String] {
            Dictionary(ha.retained(s, at: now).map { ($0.topic, $0.value) }, uniquingKeysWith: { $1 })
        }
        // Before the first snapshot HomeKit reads every door unknown and Home Assistant has nothing.
        var shownByHomeKit = homeKit(nil), shownByHA: [String: String] = [:]
        for (id, value) in database.events(from: nil, to: first) { shownByHomeKit[id] = value }
        for (topic, value) in ha.retained(from: nil, to: first, at: now) { shownByHA[topic] = value }
        var line = first.serviceLine(since: nil, at: now, until: until)
        var noticesPushed = 0
        for (old, new) in zip(all, all.dropFirst()) {
            let events = database.events(from: old, to: new), values = ha.retained(from: old, to: new, at: now)
            let service = new.serviceLine(since: old, at: now, until: until), pushes = new.phonePushes(since: old, at: now)
            if old == new {
                #expect(events.isEmpty && values.isEmpty && service == nil && pushes.isEmpty, "\(garage)\n\(steps)")
            }
            for (id, value) in events { shownByHomeKit[id] = value }
            for (topic, value) in values { shownByHA[topic] = value }
            if let service { line = service }
            noticesPushed += pushes.filter { if case .status = $0 { false } else { true } }.count
        }
        #expect(shownByHomeKit == homeKit(last), "HomeKit: \(garage)\n\(steps)")
        #expect(shownByHA == retained(last), "Home Assistant: \(garage)\n\(steps)")
        #expect(line == last.serviceLine(at: now, until: until), "systemd: \(garage)\n\(steps)")
        #expect(noticesPushed == last.notices.count - first.notices.count, "every notice pushed once: \(garage)\n\(steps)")
    }
}

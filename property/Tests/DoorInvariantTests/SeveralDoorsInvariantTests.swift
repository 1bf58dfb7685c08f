import DoorCore
import PropertyBased
import Testing

/// Several doors behind one controller: whatever is asked of one door, on any channel and with
/// any PIN, never moves or changes another, every permit names the door that decided it, no
/// door is pressed while its own relay still presses, and a PIN limited to some doors never
/// presses another. Three doors (one with a warning output, one with switches), requests that
/// name a door by number, by name or not at all, MQTT commands per door, time and releases.
@Suite struct SeveralDoorsInvariantTests {
    /// One thing that happens: a request, an MQTT command, time passing, a relay releasing.
    enum Act: Sendable, CustomStringConvertible {
        case ask(who: Int, door: Int?, byName: Bool, what: Int, channel: Int)
        case mqtt(door: Int, Controller.ChannelCommand)
        case wait(Int)
        case release(door: Int)

        static let asks = ["O=1", "O=0", "S", "H=5", "H=0", "L=1", "C=30", "P"]
        static let ids = ["left", "gate", "shed"]

        var description: String {
            switch self {
            case .ask(let who, let door, let byName, let what, let channel):
                return "ask(\(["master", "guest", "limited", "stranger"][who]) \(door.map { byName ? "@\(Act.ids[$0]):" : "@\($0 + 1):" } ?? "")\(Act.asks[what]) on \(channel))"
            case .mqtt(let door, let c): return "mqtt(\(Act.ids[door]) \(c.rawValue))"
            case .wait(let ms): return "wait(\(ms) ms)"
            case .release(let door): return "release(\(Act.ids[door]))"
            }
        }
    }

    static let act = zip(Gen.int(in: 0...99), Gen.int(in: 0...9_999)).map { kind, n -> Act in
        switch kind {
        case 0..<55:
            return .ask(who: n % 4, door: (n / 4) % 4 == 3 ? nil : (n / 4) % 4, byName: (n / 16) % 2 == 0,
                        what: (n / 32) % Act.asks.count, channel: (n / 256) % 3)
        case 55..<70: return .mqtt(door: n % 3, Controller.ChannelCommand.allCases[(n / 3) % 3])
        case 70..<85: return .release(door: n % 3)
        default: return .wait(50 + n % 20_000)
        }
    }

    @Test func noRequestForOneDoorTouchesAnother() async {
        await propertyCheck(count: 1_000, input: Self.act.array(of: 1...150)) { acts in
            let violations = Self.run(acts)
            #expect(violations.isEmpty, "\(acts.map(\.description).joined(separator: "\n"))\n\(violations.joined(separator: "\n"))")
        }
    }

    /// Runs the acts against three doors; returns every broken invariant.
    static func run(_ acts: [Act]) -> [String] {
        var now = Instant(nanoseconds: 1_000_000_000)
        let plain = DoorTiming(pulse: .milliseconds(300), travel: .seconds(10), autoClose: .seconds(30))
        let warned = DoorTiming(pulse: .milliseconds(300), travel: .seconds(10), autoClose: .seconds(30), warning: .seconds(5))
        let doors = [DoorUnit(door: Door(timing: plain, index: 0), id: "left"),
                     DoorUnit(door: Door(timing: warned, index: 1), id: "gate"),
                     DoorUnit(door: Door(timing: plain, sensing: DoorSensing(closedSwitch: true), closed: true, index: 2), id: "shed")]
        var table = try! PinTable(master: PIN("12345")!, capacity: 4)
        _ = try! table.add(PIN("guest")!)
        _ = try! table.add(PIN("limit")!)
        var c = Controller(table: table, doors: doors, store: NoStore(), access: DoorAccess([2: ["left"]]))
        var pressing = [false, false, false]
        var violations: [String] = []

        /// Checks an outcome about `door`, and every other door left as it was.
        func check(_ outcome: Controller.Outcome, before: Controller, asked: String, limitedToLeft: Bool) {
            for p in outcome.presses {
                if p.door != outcome.doorIndex { violations.append("\(asked): a permit for door \(p.door) in door \(outcome.doorIndex)'s outcome") }
                if pressing[p.door] { violations.append("\(asked): door \(p.door) pressed while its relay pressed") }
                if limitedToLeft, p.door != 0, !outcome.replies.isEmpty { violations.append("\(asked): a PIN limited to left pressed door \(p.door)") }
                pressing[p.door] = true
            }
            for i in c.doors.indices where i != outcome.doorIndex && c.doors[i].door != before.doors[i].door {
                violations.append("\(asked): door \(i) changed, though the outcome was door \(outcome.doorIndex)'s")
            }
        }

        for act in acts {
            let before = c
            switch act {
            case .ask(let who, let door, let byName, let what, let channel):
                let pin = ["12345", "guest", "limit", "wrong"][who]
                let selector = door.map { byName ? "@\(Act.ids[$0]):" : "@\($0 + 1):" } ?? ""
                let source = [RequestSource("bluetooth 00:11:22:33:44:55", channel: .remote),
                              RequestSource("local uid=1000", channel: .local, isLocal: true),
                              RequestSource("local uid=0", channel: nil, isLocal: true)][channel]
                let outcome = c.judgeAndAccount(Array((pin + selector + Act.asks[what]).utf8), from: source, at: now, age: .milliseconds(2))
                if outcome.doorIndex != (door ?? 0), !outcome.replies.contains(.error(.format)) {
                    violations.append("\(act): judged against door \(outcome.doorIndex)")
                }
                check(outcome, before: before, asked: act.description, limitedToLeft: who == 2)
            case .mqtt(let door, let command):
                let outcome = c.command(command, for: door, from: RequestSource("mqtt", channel: nil), at: now, age: .milliseconds(1))
                check(outcome, before: before, asked: act.description, limitedToLeft: false)
            case .release(let door):
                guard pressing[door] else { continue }
                pressing[door] = false
                now = now + .milliseconds(300)
                let outcome = c.pressEnded(door, at: now)
                check(outcome, before: before, asked: act.description, limitedToLeft: false)
            case .wait(let ms):
                now = now + .milliseconds(ms)
                // The loop ticks each door whose deadline fell due, one at a time, in order.
                for i in c.doors.indices {
                    guard let due = c.doors[i].door.nextDeadline, due <= now else { continue }
                    let turn = c
                    check(c.tick(i, at: now), before: turn, asked: "\(act) tick \(i)", limitedToLeft: false)
                }
            }
        }
        return violations
    }
}

import DoorCore
import PropertyBased

/// One garage as a test case sets it up: which switches, a warning or not, the debounce, the
/// travel time garaged is told and the one the opener really takes, auto-close, bounce, and
/// where the door starts.
struct Garage: Sendable, CustomStringConvertible {
    var sensing: DoorSensing
    var warning: Bool
    var debounceMs: Int
    var travelS: Int
    var realTravelS: Int
    var autoCloseS: Int?
    var autoCloseAny: Bool
    var bounce: Bool
    /// 0 closed, 1 open, between: stopped halfway.
    var start: Double
    /// A door reported by a Security+ 2.0 opener (`sensing.opener`): its reports reach garaged
    /// up to this many ms after each change (in the order sent), some twice.
    var reportDelayMs = 0
    /// Where the opener world's delays and duplicates come from.
    var seed = 0

    /// True for a door reported by an opener on its own wire instead of switches and a relay.
    var opener: Bool { sensing.opener != nil }

    static let warningS = 5
    static let pulseMs = 300

    var timing: DoorTiming {
        DoorTiming(pulse: .milliseconds(Garage.pulseMs), travel: .seconds(travelS), autoClose: autoCloseS.map { .seconds($0) },
                   warning: warning ? .seconds(Garage.warningS) : nil)
    }

    var description: String {
        if opener {
            return "Garage(opener, reports delayed up to \(reportDelayMs) ms, seed \(seed), warning: \(warning), travel \(travelS) s (really \(realTravelS) s), auto-close \(autoCloseS.map { "\($0) s" } ?? "off")\(autoCloseAny ? "" : " (own openings)"), start at \(start))"
        }
        return "Garage(switches: \(sensing.description), warning: \(warning), debounce \(debounceMs) ms, travel \(travelS) s (really \(realTravelS) s), auto-close \(autoCloseS.map { "\($0) s" } ?? "off")\(autoCloseAny ? "" : " (own openings)"), bounce: \(bounce), start at \(start))"
    }
}

/// One thing that happens at the garage, on any channel.
enum Step: Sendable, CustomStringConvertible {
    enum Channel: Sendable, CaseIterable { case bluetooth, localUser, owner }
    enum Who: Sendable, CaseIterable { case master, guest, stranger }
    enum Ask: String, Sendable, CaseIterable {
        case open = "O=1", close = "O=0", holdOn = "H=1", holdOff = "H=0", status = "S"
    }

    /// A request over Bluetooth or the local socket, with a PIN.
    case ask(Channel, Who, Ask)
    /// A command from Home Assistant.
    case mqtt(Controller.ChannelCommand)
    /// A HomeKit controller's write of TargetDoorState (open or close), or its identify.
    case homekit(Controller.ChannelCommand?)
    /// A HomeKit controller's write of TargetDoorState (0 open, 1 closed) as the session maps
    /// it: through the door's view (`HAPDoorView`, `HAPDoorView.move(toTarget:)`).
    case homekitTarget(Int)
    /// Time passes, in ms.
    case wait(Int)
    /// Someone presses the opener's own remote (no request of garaged's).
    case remote
    /// Something in the doorway: the next close reverses halfway.
    case obstacle
    /// Someone steps into the photo-eye's beam, or out of it again.
    case beam
    /// The daemon stalls this many ms (a stopped process, a slow SD card); a request arrives
    /// in the middle and is judged when it wakes.
    case stall(Int, Controller.ChannelCommand)
    /// garaged restarts (an upgrade, a crash): only the table and the kept files survive.
    case restart
    /// The next time the warning output is switched on, it fails.
    case warningFails
    /// A switch sticks on (a wiring fault), or comes free again.
    case stick(DoorSwitch)
    /// One channel floods the door with a stored PIN: `O=0`, `O=1`, `H=1`, `H=0` over and over,
    /// this many, 10 ms apart.
    case flood(Channel, Int)
    /// The opener repeats its state now (an answer to GET_STATUS); every n-th time its state
    /// nibble names none (`unknown`). Nothing for a relay's door.
    case report(Int)
    /// The opener goes silent, or answers again; garaged hears of it this many ms later.
    /// Nothing for a relay's door.
    case silence(Int)

    var description: String {
        switch self {
        case .ask(let c, let w, let a): return "ask(\(c), \(w), \(a.rawValue))"
        case .mqtt(let c): return "mqtt(\(c.rawValue))"
        case .homekit(let c): return "homekit(\(c?.rawValue ?? "identify"))"
        case .homekitTarget(let t): return "homekitTarget(\(t == 0 ? "open" : "closed"))"
        case .wait(let ms): return "wait(\(ms) ms)"
        case .remote: return "remote"
        case .obstacle: return "obstacle"
        case .beam: return "beam"
        case .stall(let ms, let c): return "stall(\(ms) ms, mqtt \(c.rawValue))"
        case .restart: return "restart"
        case .warningFails: return "warningFails"
        case .stick(let s): return "stick(\(s))"
        case .flood(let c, let n): return "flood(\(c), \(n))"
        case .report(let n): return "report(\(n % 7 == 0 ? "unknown" : "state"))"
        case .silence(let ms): return "silence(told after \(ms) ms)"
        }
    }
}

/// The generators: a garage, and a sequence of steps across every channel. Each is built from
/// plain integers so that shrinking a failure shrinks toward short, simple cases.
enum Scenarios {
    static let garage = zip(Gen.int(in: 0...3), Gen.bool, Gen.int(in: 0...2), Gen.int(in: 0...2), Gen.int(in: 0...3),
                            Gen.int(in: 0...2)).map { s, warning, debounce, travel, auto, start -> Garage in
        var sensing = [DoorSensing.none, DoorSensing(closedSwitch: true), DoorSensing(openSwitch: true),
                       DoorSensing(closedSwitch: true, openSwitch: true)][s]
        // The photo-eye is wired in half the garages.
        sensing.obstructionSwitch = (s + debounce + start) % 2 == 1
        return Garage(sensing: sensing, warning: warning, debounceMs: [0, 50, 100][debounce], travelS: [8, 10, 12][travel],
                      realTravelS: [6, 10, 14][(travel + auto) % 3], autoCloseS: [nil, 5, 30, 30][auto], autoCloseAny: auto != 3,
                      bounce: (s + travel + start) % 2 == 0, start: [0, 1, 0.5][start])
    }

    static let step = zip(Gen.int(in: 0...99), Gen.int(in: 0...999)).map { kind, n -> Step in
        switch kind {
        case 0..<30:
            return .ask(Step.Channel.allCases[n % 3], Step.Who.allCases[(n / 3) % 3], Step.Ask.allCases[(n / 9) % 5])
        case 30..<37: return .mqtt(Controller.ChannelCommand.allCases[n % 3])
        case 37..<42: return .homekit([.open, .close, nil][n % 3])
        case 42..<68: return .wait(100 + n * 20)
        case 68..<72: return .remote
        case 72..<75: return n % 2 == 0 ? .obstacle : .beam
        case 75..<79: return .stall(500 + n * 5, Controller.ChannelCommand.allCases[n % 3])
        case 79..<82: return .restart
        case 82..<85: return .warningFails
        case 85..<88: return .stick(n % 2 == 0 ? .closed : .open)
        case 88..<91: return .flood(Step.Channel.allCases[n % 3], 10 + n / 10)
        default: return .wait(30_000 + n * 60)
        }
    }

    static let steps = step.array(of: 1...120)

    /// A garage whose door a Security+ 2.0 opener reports and drives: no switches, no relay,
    /// its reports delayed by up to none, 40 or 400 ms.
    static let openerGarage = zip(Gen.bool, Gen.int(in: 0...2), Gen.int(in: 0...3), Gen.int(in: 0...2), Gen.int(in: 0...2),
                                  Gen.int(in: 0...999)).map { warning, travel, auto, start, delay, seed -> Garage in
        Garage(sensing: .reported(by: "the Security+ 2.0 opener on /dev/ttyS0"), warning: warning, debounceMs: 0, travelS: [8, 10, 12][travel],
               realTravelS: [6, 10, 14][(travel + auto) % 3], autoCloseS: [nil, 5, 30, 30][auto], autoCloseAny: auto != 3,
               bounce: false, start: [0, 1, 0.5][start], reportDelayMs: [0, 40, 400][delay], seed: seed)
    }

    /// The steps at an opener's door: those of any garage (but stuck switches, it has none),
    /// plus the opener's own reports at any time and its silences.
    static let openerStep = zip(Gen.int(in: 0...99), Gen.int(in: 0...999)).map { kind, n -> Step in
        switch kind {
        case 0..<24:
            return .ask(Step.Channel.allCases[n % 3], Step.Who.allCases[(n / 3) % 3], Step.Ask.allCases[(n / 9) % 5])
        case 24..<30: return .mqtt(Controller.ChannelCommand.allCases[n % 3])
        case 30..<33: return .homekit([.open, .close, nil][n % 3])
        case 33..<36: return .homekitTarget(n % 2)
        case 36..<58: return .wait(100 + n * 20)
        case 58..<62: return .remote
        case 62..<66: return n % 3 == 0 ? .obstacle : .beam
        case 66..<69: return .stall(500 + n * 5, Controller.ChannelCommand.allCases[n % 3])
        case 69..<71: return .restart
        case 71..<73: return .warningFails
        case 73..<75: return .flood(Step.Channel.allCases[n % 3], 10 + n / 10)
        case 75..<85: return .report(n)
        case 85..<90: return .silence(n * 8)
        default: return .wait(30_000 + n * 60)
        }
    }

    static let openerSteps = openerStep.array(of: 1...120)
}

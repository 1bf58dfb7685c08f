import XCTest
@testable import DoorCore

/// A Security+ 1.0 opener on its wall wire, in memory: every byte garaged writes comes back to
/// garaged (the shared wire's echo, 5 ms later), the three questions are answered 20 ms after
/// they are asked, a door press toggles the door (as `Kind` says this opener does), a light
/// press toggles the light, a lock held 3 s or more toggles the lock. A wall panel may poll it
/// every `panelEvery`, and its radio remote moves the door with nothing on the wire.
struct WireOpener {
    /// How this opener's toggle behaves: the notes' model, or one of the others the peers report.
    enum Kind: CaseIterable {
        /// closed -> opening -> stopped -> closing -> opening; open -> closing.
        case notes
        /// A toggle while closing stops the door; a stopped door then goes the other way.
        case stopsAndRemembers
        /// A toggle while opening reverses the door.
        case reversesWhileOpening
    }

    /// Who put a byte on the wire.
    enum Who: Equatable { case garaged, opener, panel }

    var kind: Kind
    private(set) var state: OpenerDoorState
    /// 0 closed, 1 open.
    private(set) var position: Double
    private var lastDirection: OpenerDoorState = .opening
    private var movedAt: Instant
    var travel: Duration = .seconds(40)
    private(set) var light = false
    private(set) var unlocked = true
    var obstructed = false
    /// false: it answers nothing (unplugged).
    var answering = true
    private var lockPressedAt: Instant?
    /// Bytes on their way to garaged, with when they arrive.
    private(set) var toGaraged: [(at: Instant, byte: UInt8)] = []
    /// Every byte on the wire: when, which, whose, and where the door was then.
    private(set) var wire: [(at: Instant, byte: UInt8, who: Who, state: OpenerDoorState)] = []
    var panelEvery: Duration?
    private var panelNext: Instant?
    private var panelIndex = 0
    /// A wall panel's order (an 889LM's, as ratgdo and homekit-ratgdo32 read it).
    static let panelPolls: [UInt8] = [SecPlus1Wire.askDoor, SecPlus1Wire.askLightLock, SecPlus1Wire.askObstruction]

    init(_ state: OpenerDoorState, kind: Kind = .notes, at now: Instant) {
        self.kind = kind
        self.state = state
        movedAt = now
        switch state {
        case .closed, .unknown: position = 0
        case .open: position = 1
        case .stopped, .opening, .closing: position = 0.5
        }
        if state == .closing { lastDirection = .closing }
    }

    /// What garaged wrote, in order.
    var written: [UInt8] { wire.filter { $0.who == .garaged }.map(\.byte) }

    /// The door moves on to `now`: a moving door reaches its end after its share of the travel.
    mutating func advance(to now: Instant) {
        let dt = Double((now - movedAt).nanoseconds) / Double(travel.nanoseconds)
        movedAt = now
        switch state {
        case .opening:
            position = min(1, position + dt)
            if position >= 1 { state = .open }
        case .closing:
            position = max(0, position - dt)
            if position <= 0 { state = .closed }
        default:
            break
        }
        if let every = panelEvery {
            let next = panelNext ?? now
            if now >= next {
                let question = Self.panelPolls[panelIndex % Self.panelPolls.count]
                panelIndex += 1
                put(question, .panel, at: now)
                heard(question, at: now)
                panelNext = next + every
            }
        }
    }

    /// The opener's radio remote: the door toggles, nothing on the wire.
    mutating func remote(at now: Instant) {
        advance(to: now)
        toggle()
    }

    /// garaged wrote `byte` at `now`: it comes back to garaged, and the opener acts on it.
    mutating func garagedWrote(_ byte: UInt8, at now: Instant) {
        advance(to: now)
        wire.append((now, byte, .garaged, state))
        toGaraged.append((now + .milliseconds(5), byte))
        heard(byte, at: now)
    }

    /// The bytes that reach garaged by `now`, taken off the wire.
    mutating func arriving(by now: Instant) -> [UInt8] {
        let due = toGaraged.filter { $0.at <= now }.map(\.byte)
        toGaraged.removeAll { $0.at <= now }
        return due
    }

    /// When something happens next on its own: a byte arrives, the panel asks, the door arrives.
    var nextEvent: Instant? {
        var times = toGaraged.map(\.at)
        if let every = panelEvery { times.append(panelNext ?? movedAt + every) }
        if state == .opening || state == .closing {
            let left = state == .opening ? 1 - position : position
            times.append(movedAt + .nanoseconds(Int64(left * Double(travel.nanoseconds)) + 1))
        }
        return times.min()
    }

    /// The answer to a question as a real opener gives it.
    func answer(_ question: UInt8) -> UInt8 {
        switch question {
        case SecPlus1Wire.askDoor:
            switch state {
            case .opening: return 0x01
            case .open: return 0x52
            case .closing: return 0x04
            case .closed: return 0x55
            case .stopped, .unknown: return 0x56
            }
        case SecPlus1Wire.askObstruction: return obstructed ? 0x01 : 0x00
        default: return 0x50 | (light ? 0x04 : 0) | (unlocked ? 0x08 : 0)
        }
    }

    private mutating func put(_ byte: UInt8, _ who: Who, at now: Instant) {
        wire.append((now, byte, who, state))
        toGaraged.append((now, byte))
    }

    /// The opener hears a byte on the wire (garaged's or the panel's).
    private mutating func heard(_ byte: UInt8, at now: Instant) {
        switch byte {
        case SecPlus1Wire.askDoor, SecPlus1Wire.askObstruction, SecPlus1Wire.askLightLock:
            if answering {
                let value = answer(byte)
                wire.append((now + .milliseconds(20), value, .opener, state))
                toGaraged.append((now + .milliseconds(20), value))
            }
        case SecPlus1Wire.doorPress:
            toggle()
        case SecPlus1Wire.lightPress:
            light.toggle()
        case SecPlus1Wire.lockPress:
            lockPressedAt = now
        case SecPlus1Wire.lockRelease:
            if let at = lockPressedAt, now - at >= .seconds(3) { unlocked.toggle() }
            lockPressedAt = nil
        default:
            break
        }
    }

    /// The door button, as this kind of opener takes it.
    private mutating func toggle() {
        let next: OpenerDoorState
        switch (state, kind) {
        case (.closed, _): next = .opening
        case (.opening, .reversesWhileOpening): next = .closing
        case (.opening, _): next = .stopped
        case (.open, _): next = .closing
        case (.closing, .stopsAndRemembers): next = .stopped
        case (.closing, _): next = .opening
        case (.stopped, .stopsAndRemembers): next = lastDirection == .opening ? .closing : .opening
        case (.stopped, _): next = .closing
        case (.unknown, _): next = .unknown
        }
        if state == .opening || state == .closing { lastDirection = state }
        if next == .opening || next == .closing { lastDirection = next }
        state = next
    }
}

/// A door, its Security+ 1.0 session and the opener on the wire, joined as the daemon's loop
/// joins them (`DoorLoop+Door.swift`), on injected time. It checks, at every byte garaged
/// writes, that a door toggle that may send the door down comes after the whole warning.
final class SecPlus1Rig {
    var session: SecPlus1Session
    var opener: WireOpener
    var door: Door
    private(set) var now: Instant
    private(set) var told: [OpenerEvent] = []
    private(set) var doorEvents: [Door.Event] = []
    private(set) var permits: [PressPermit] = []
    /// When the warning was last confirmed shown; nil while it is off.
    private(set) var warningShownAt: Instant?
    /// Door toggles that could send the door down, written for a permit that was not warned,
    /// while the beam was broken, or (for the door's own permits) without the whole warning
    /// before them and still on.
    private(set) var unsafeToggles: [String] = []
    /// The permit the session was last given.
    private var carried: PressPermit?
    /// The last permit came from the door (its warning is checked), not from the test.
    private var fromDoor = false
    let warning: Duration

    /// A rig whose opener's door is `state`; the session's timing shortened to listen 1 s unless
    /// `timing` says otherwise. It runs until the door knows where it is.
    init(_ state: OpenerDoorState, kind: WireOpener.Kind = .notes, panelEvery: Duration? = nil, warning: Duration = .seconds(5),
         timing: SecPlus1Session.Timing? = nil, ready: Bool = true) {
        now = t(0)
        var fast = SecPlus1Session.Timing()
        fast.listenFor = .seconds(1)
        session = SecPlus1Session(device: "/dev/ttyAMA0", timing: timing ?? fast, at: now)
        opener = WireOpener(state, kind: kind, at: now)
        opener.panelEvery = panelEvery
        self.warning = warning
        door = Door(timing: DoorTiming(pulse: .milliseconds(300), travel: .seconds(60), autoClose: nil, warning: warning),
                    sensing: .reported(by: "the Security+ 1.0 opener on /dev/ttyAMA0", kind: .secPlus1, device: "/dev/ttyAMA0"), at: now)
        if ready { run(for: .seconds(5)) }
    }

    /// The notes the session asked to log, by event name.
    func notes(_ event: String) -> [OpenerNote] {
        told.compactMap { if case .note(let n) = $0, n.event == event { return n } else { return nil } }
    }

    /// `O=1` or `O=0` now.
    @discardableResult
    func request(open: Bool) -> Door.Decision {
        let d = door.request(open: open, at: now)
        carry(d.events)
        serve()
        return d
    }

    /// Home Assistant's STOP now.
    @discardableResult
    func stop() -> Decision {
        let d = door.stop(at: now)
        carry(d.events)
        serve()
        return d
    }
    typealias Decision = Door.Decision

    /// `L=1` or `L=0` now.
    func setLight(_ on: Bool) {
        carry(door.setLight(on: on, at: now).events)
        serve()
    }

    /// The lock of the opener's remotes now.
    func lockRemotes(_ locked: Bool) {
        carry(door.lockRemotes(locked, at: now).events)
        serve()
    }

    func run(for d: Duration) { run(until: now + d) }

    /// Time passes to `end`: the opener moves, bytes arrive, the door's timers and the session's
    /// wakes fire, each at its instant.
    func run(until end: Instant) {
        while now <= end {
            opener.advance(to: now)
            let bytes = opener.arriving(by: now)
            if !bytes.isEmpty { feed(session.received(bytes, at: now)) }
            carry(door.advance(to: now))
            serve()
            var next = end + .nanoseconds(1)
            for candidate in [session.nextWake, opener.nextEvent, door.nextDeadline] {
                if let c = candidate, c > now, c < next { next = c }
            }
            if let wake = session.nextWake, wake <= now { next = min(next, now + .milliseconds(1)) }
            now = next
        }
        now = end
    }

    /// What the session writes now, each byte to the wire (checked), each write confirmed.
    func serve() {
        for _ in 0..<4 {
            let step = session.due(at: now)
            feed(step.events)
            guard let bytes = step.write else { break }
            for byte in bytes { check(byte) }
            for byte in bytes { opener.garagedWrote(byte, at: now) }
            feed(session.wrote(ok: true, at: now))
        }
    }

    /// Gives the session a permit the test made (not this rig's door's), as the loop would.
    @discardableResult
    func carryOut(_ permit: PressPermit) -> String? {
        carried = permit
        fromDoor = false
        let refused = session.carryOut(permit, deadline: now + Door.maxRequestAge, at: now)
        serve()
        return refused
    }

    /// The invariant: a door toggle that may send the door down from where the door really is
    /// is only ever for a warned permit, never while the beam is broken, and for the door's own
    /// permits a whole warning after the warning was shown, with the warning still on.
    private func check(_ byte: UInt8) {
        guard byte == SecPlus1Wire.doorPress else { return }
        opener.advance(to: now)
        guard SecPlus1Toggle.mayGoDown(from: opener.state) else { return }
        let at = "at \(now) from \(opener.state)"
        if carried?.warned != true { unsafeToggles.append("\(at): the permit was not warned") }
        if opener.obstructed { unsafeToggles.append("\(at): the beam was broken") }
        if fromDoor && (!door.warningOn || warningShownAt.map({ now - $0 < warning }) ?? true) {
            unsafeToggles.append("\(at): the warning was shown at \(warningShownAt.map(\.description) ?? "never")")
        }
    }

    /// The door's decisions, to the session (as `DoorLoop.carryOut` does).
    private func carry(_ events: [Door.Event]) {
        doorEvents += events
        for event in events {
            switch event {
            case .press(let permit):
                permits.append(permit)
                carried = permit
                fromDoor = true
                if session.carryOut(permit, deadline: now + Door.maxRequestAge, at: now) != nil { carry(door.pressEnded(at: now)) }
            case .warning(let on):
                if !on { warningShownAt = nil }
                _ = session.ask(.flashing(on), at: now)
            case .light(let on):
                _ = session.ask(.light(on), at: now)
            case .remotesLock(let locked):
                _ = session.ask(.remotesLocked(locked), at: now)
            default:
                break
            }
        }
    }

    /// What the session said, to the door (as `DoorLoop.carryOut(_:door:)` does).
    private func feed(_ events: [OpenerEvent]) {
        told += events
        for event in events {
            switch event {
            case .status(let state, let obstructed, let light, let locked):
                carry(door.openerReported(state, obstructed: obstructed, at: now))
                door.openerReported(light: light, remotesLocked: locked)
            case .answering(let answering):
                carry(door.openerAnswered(answering))
            case .pressOver:
                carry(door.pressEnded(at: now))
            case .pressNotSent(let permit, let why):
                carry(door.pressNotSent(permit, why: why, at: now))
            case .warningShown(let at):
                warningShownAt = at
                door.warningShown(at: at)
            case .warningFailed:
                carry(door.warningFailed(at: now))
            default:
                break
            }
        }
    }
}

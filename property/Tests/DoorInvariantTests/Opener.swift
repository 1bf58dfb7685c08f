import DoorCore

/// A garage door on a one-button opener, as the relay's contacts see it: the fake for the one
/// part that cannot run here, behaving like the real thing, timing included. A press starts a
/// door at rest toward the other end (from halfway: the other way from its last travel), stops
/// a rising door, and reverses a closing one; an armed obstacle (the photo-eye, a bicycle)
/// reverses the next close halfway. The limit switches read what the door's place says,
/// unless one is stuck (a wiring fault).
struct Opener: Sendable {
    enum Motion: Sendable { case idle, up, down }

    /// 0 is closed, 1 is open.
    private(set) var place: Double
    private(set) var motion: Motion = .idle
    private var lastTravel: Motion = .down
    /// The whole way from one end to the other.
    let travel: Duration
    var obstacle = false
    /// Someone stands in the photo-eye's beam (its output reads active meanwhile).
    var beamBroken = false
    /// A switch forced to read active, whatever the door does.
    var stuck: Set<DoorSwitch> = []
    /// A Security+ 2.0 opener that answers on its wire (false: silent, and deaf to commands).
    var answering = true

    init(place: Double, travel: Duration) {
        self.place = place
        self.travel = travel
    }

    /// What a press of the button (the relay's, or the remote's) does.
    mutating func press() {
        switch motion {
        case .up: motion = .idle; lastTravel = .up
        case .down: motion = .up; lastTravel = .up
        case .idle:
            if place <= 0 { motion = .up } else if place >= 1 { motion = .down } else { motion = lastTravel == .up ? .down : .up }
            lastTravel = motion
        }
        // Reversed at the very end it was going to: it is there, at rest.
        if motion == .up && place >= 1 || motion == .down && place <= 0 { motion = .idle }
    }

    /// What an explicit command on a Security+ 2.0 opener's wire does (never a toggle): open
    /// raises a door that is not rising or open, close lowers one that is not falling or
    /// closed (not while its photo-eyes see something: it refuses), stop halts a moving door.
    mutating func command(_ action: DoorAction) {
        switch action {
        case .open:
            guard motion != .up, !(motion == .idle && place >= 1) else { return }
            motion = .up
        case .close:
            guard !beamBroken, motion != .down, !(motion == .idle && place <= 0) else { return }
            motion = .down
        case .stop:
            guard motion != .idle else { return }
            lastTravel = motion
            motion = .idle
            return
        }
        lastTravel = motion
        atRestAtItsEnd()
    }

    /// The opener's own safety: a closing door whose photo-eyes' beam breaks goes back up.
    mutating func reverseIfClosingOnTheBeam() {
        guard beamBroken, motion == .down else { return }
        motion = .up
        lastTravel = .up
        atRestAtItsEnd()
    }

    /// Sent toward the very end it is at: it is there, at rest.
    private mutating func atRestAtItsEnd() {
        if motion == .up && place >= 1 || motion == .down && place <= 0 { motion = .idle }
    }

    /// What a Security+ 2.0 opener's STATUS says of its door now.
    var reportedState: OpenerDoorState {
        switch motion {
        case .up: return .opening
        case .down: return .closing
        case .idle: return place <= 0 ? .closed : place >= 1 ? .open : .stopped
        }
    }

    /// The level a switch reads now.
    func reads(_ which: DoorSwitch) -> Bool {
        if stuck.contains(which) { return true }
        switch which {
        case .closed: return place <= 0
        case .open: return place >= 1
        case .obstruction: return beamBroken
        }
    }

    /// How long until the door reaches an end or the obstacle turns it, nil at rest.
    var nextChange: Duration? {
        let perUnit = Double(travel.nanoseconds)
        switch motion {
        case .idle: return nil
        case .up: return .nanoseconds(Int64(((1 - place) * perUnit).rounded(.up)))
        case .down:
            let to = obstacle && place > 0.5 ? place - 0.5 : place
            return .nanoseconds(Int64((to * perUnit).rounded(.up)))
        }
    }

    /// Moves the door on by `d` (no further than `nextChange`).
    mutating func advance(by d: Duration) {
        guard d > .zero else { return }
        let step = Double(d.nanoseconds) / Double(travel.nanoseconds)
        switch motion {
        case .idle: return
        case .up:
            place = min(1, place + step)
            if place >= 1 { place = 1; motion = .idle }
        case .down:
            if obstacle && place > 0.5 && place - step <= 0.5 {
                place = 0.5
                obstacle = false
                motion = .up
                lastTravel = .up
                return
            }
            place = max(0, place - step)
            if place <= 0 { place = 0; motion = .idle }
        }
    }
}

extension Door.Event {
    /// What the history keeps of something the door did on its own or saw: presses it decided
    /// (auto-close, a close after its warning), movement no press explains, faults, warnings
    /// and their cancelling, "left open", the end of a hold. Nil for what a request's own
    /// record already says, and for outputs switching.
    public func record(at time: Int64, autoCloseInterval: Duration?) -> EventRecord? {
        func r(_ kind: EventRecord.Kind, _ detail: String) -> EventRecord {
            EventRecord(time: time, kind: kind, source: "garaged", detail: detail)
        }
        switch self {
        case .press(.autoClose):
            return r(.autoClose, "pressed after \(autoCloseInterval?.secondsRoundedUp ?? 0) s open")
        case .press(.close):
            return r(.close, "pressed after the warning")
        case .press(.open):
            return r(.open, "pressed")
        case .press(.stop):
            return r(.halt, "pressed")
        case .moved(let p, bySomeoneElse: true):
            return r(.door, p == .stopped ? "STOPPED between the ends" : "\(p.rawValue), not by garaged")
        case .moved(.stopped, bySomeoneElse: false):
            return r(.door, "STOPPED between the ends")
        case .fault(let f):
            return r(.fault, "\(f.rawValue): \(f.explanation)")
        case .warning(on: true):
            return r(.warning, "closing after the warning")
        case .closeCancelled(let why):
            return r(.warning, "close called off: \(why)")
        case .leftOpen(let d):
            return r(.leftOpen, "open \(d.nanoseconds / 60_000_000_000) min")
        case .holdEnded:
            return r(.hold, "OK: ended")
        case .moved, .warning(on: false), .light:
            return nil
        }
    }

    /// What phones that enabled notifications are told of it (one record, at most 20 bytes).
    public func push(_ door: Door, at now: Instant) -> Reply? {
        switch self {
        case .moved(let p, _): return .status(p, autoCloseIn: p == door.position ? door.closesIn(at: now) : nil)
        case .warning(on: true): return .warning(seconds: door.timing.warning?.secondsRoundedUp ?? 0)
        case .closeCancelled: return .warningOff
        case .fault(let f): return .fault(f)
        case .leftOpen(let d): return .leftOpen(minutes: Int(d.nanoseconds / 60_000_000_000))
        case .press, .warning(on: false), .light, .holdEnded: return nil
        }
    }
}

extension Door.Event {
    /// What the history keeps of something the door did on its own or saw: presses it decided
    /// (auto-close, a close after its warning), movement no press explains, faults, warned
    /// presses and their cancelling, "left open", the end of a hold. Nil for what a request's own
    /// record already says, and for outputs switching.
    public func record(at time: Int64, autoCloseInterval: Duration?) -> EventRecord? {
        func r(_ kind: EventRecord.Kind, _ detail: String) -> EventRecord {
            EventRecord(time: time, kind: kind, source: "garaged", detail: detail)
        }
        switch self {
        case .press(let permit):
            switch permit.reason {
            case .autoClose: return r(.autoClose, "pressed after \(autoCloseInterval?.secondsRoundedUp ?? 0) s open")
            case .close: return r(.close, "pressed after the warning")
            case .open: return r(.open, "pressed")
            case .stop: return r(.halt, "pressed")
            }
        case .moved(let p, bySomeoneElse: true, let who):
            let by = who.map { " (\($0))" } ?? ""
            return r(.door, p == .stopped ? "STOPPED between the ends" + by : "\(p.rawValue), not by garaged" + by)
        case .moved(.stopped, bySomeoneElse: false, _):
            return r(.door, "STOPPED between the ends")
        case .fault(let f):
            return r(.fault, "\(f.rawValue): \(f.explanation)")
        case .pressWarned(let p):
            return r(.warning, p == .close || p == .autoClose ? "closing after the warning"
                     : "\(p.rawValue) press after the warning (the door is not closed, so a press may close it)")
        case .pressCancelled(let p, let why):
            return r(.warning, "\(p == .autoClose ? "close" : p.rawValue) called off: \(why)")
        case .leftOpen(let d):
            return r(.leftOpen, "open \(d.nanoseconds / 60_000_000_000) min")
        case .holdEnded:
            return r(.hold, "OK: ended")
        case .moved, .warning, .light, .remotesLock:
            return nil
        }
    }

    /// What phones that enabled notifications are told of it (one record, at most 20 bytes):
    /// warnings, faults, "left open". The door's state (`S`) reaches them from the status.
    public func push(_ timing: DoorTiming) -> Reply? {
        switch self {
        case .pressWarned: return .warning(seconds: timing.warning?.secondsRoundedUp ?? 0)
        case .pressCancelled: return .warningOff
        case .fault(let f): return .fault(f)
        case .leftOpen(let d): return .leftOpen(minutes: Int(d.nanoseconds / 60_000_000_000))
        case .press, .moved, .warning, .light, .holdEnded, .remotesLock: return nil
        }
    }
}

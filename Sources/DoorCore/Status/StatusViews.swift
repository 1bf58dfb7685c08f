/// What each audience of the status is sent when the snapshot changes from `old` to `new`:
/// pure functions of the two, so each is tested here and the daemon only delivers them.
extension StatusSnapshot {
    /// Phones that enabled notifications, everything they are pushed: `S <STATE>` for each door
    /// whose state changed (`@2:S <STATE>` with several doors), then the doors' notices since
    /// `old` in order (`W`, `W OFF`, `F`, `LEFT OPEN`); nothing for the first snapshot, which no
    /// phone saw change.
    public func phonePushes(since old: StatusSnapshot?, at now: Instant) -> [Reply] {
        guard let old, old.doors.count == doors.count else { return [] }
        let states: [Reply] = doors.indices.compactMap { i in
            guard doors[i].position != old.doors[i].position else { return nil }
            let push = doors[i].push(at: now)
            return doors.count == 1 ? push : .about(door: i + 1, push)
        }
        return states + notices.since(old.notices)
    }

    /// `status --follow`: the record of each door that changed, for those `mayWatch` lets the
    /// follower see (its PIN's doors).
    public func followerRecords(since old: StatusSnapshot?, at now: Instant, mayWatch: (Int) -> Bool) -> [Reply] {
        changedDoors(since: old).filter(mayWatch).map { .record(record(door: $0, at: now)) }
    }

    /// systemd's STATUS= line: each door's state, a fault and how it is known (named by its door
    /// when there are several), the lockouts (until a wall-clock time, which `until` writes from
    /// the seconds left: a countdown would be stale the moment it is sent) and each channel's part.
    public func serviceLine(at now: Instant, until: (Int) -> String) -> String {
        let door = doors.map { status in
            var text = (doors.count > 1 ? "\(status.id ?? "door \(status.index + 1)") " : "") + status.position.rawValue
            if let fault = status.fault { text += ", fault \(fault.rawValue)" }
            if status.capabilities.position == .believed { text += " (believed: no sensors)" }
            return text
        }.joined(separator: "; ")
        let locked = locked(at: now).map { "\($0.channel.rawValue) until \(until($0.seconds))" }
        var parts = [(doors.count > 1 ? "doors" : "door", door), ("lockout", locked.isEmpty ? "none" : locked.joined(separator: ", "))]
        for name in ["bluetooth", "mqtt"] {
            if let c = channels.first(where: { $0.name == name }) { parts.append((name, c.line)) }
        }
        return parts.map { "\($0.0) \($0.1)" }.joined(separator: "; ")
    }

    /// systemd's STATUS= line to send for the change from `old`: nil when the line reads as it
    /// did (both written at `now`), the line for the first snapshot.
    public func serviceLine(since old: StatusSnapshot?, at now: Instant, until: (Int) -> String) -> String? {
        let line = serviceLine(at: now, until: until)
        return old.map { $0.serviceLine(at: now, until: until) } == line ? nil : line
    }
}

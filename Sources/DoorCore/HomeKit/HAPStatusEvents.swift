/// HomeKit's view of the status snapshot, pure: what each door reads as (`views(of:)`) and the
/// characteristics whose value the snapshot changed (`events(from:to:)`), which every subscribed
/// session is sent as one `EVENT/1.0`. garaged keeps no door value of its own for HomeKit: it
/// reads these from the last snapshot it was given.
extension HAPDatabase {
    /// Each door of the database as HomeKit reads it in `snapshot`, by door index; a door the
    /// snapshot lacks (there is none before the first) reads `HAPDoorView.unknown`.
    public func views(of snapshot: StatusSnapshot?) -> [HAPDoorView] {
        let doors = snapshot?.doors ?? []
        return self.doors.indices.map { doors.indices.contains($0) ? HAPDoorView(doors[$0]) : .unknown }
    }

    /// The characteristics that send events and read differently in `new` than in `old` (every
    /// door unknown when there is no `old`), with their new values: door by door, in the
    /// database's order. Empty when nothing HomeKit shows changed.
    public func events(from old: StatusSnapshot?, to new: StatusSnapshot) -> [(HAPCharacteristicID, JSONValue)] {
        let before = views(of: old), after = views(of: new)
        let notifying = self.notifying
        return after.indices.flatMap { door in
            notifying.compactMap { id, c -> (HAPCharacteristicID, JSONValue)? in
                guard c.door == door, c.value(in: before[door]) != c.value(in: after[door]) else { return nil }
                return (id, c.value(in: after[door]))
            }
        }
    }
}

extension HAPDoorView {
    /// A door before the first snapshot: closed, clear, nothing said by an opener.
    public static let unknown = HAPDoorView(current: HAPDoorView.closed, target: HAPDoorView.closed, obstruction: false, light: nil)
}

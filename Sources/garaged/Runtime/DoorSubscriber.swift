import DoorCore

/// An audience of the doors, one list of them for the loop: systemd's status line, Home
/// Assistant, HomeKit, and every connection (phones, `status --follow`, `log --follow`). Each is
/// told the status snapshot when it changed, with the one before it (none at start; the doors'
/// notices for phones are in it), and the history's events as they are recorded. All come on the door loop's thread, in order, and must return at once (anything
/// slow goes to a thread of its own). What each sends is a pure view of DoorCore's; a front end
/// is one of these and nothing more.
protocol DoorSubscriber: AnyObject {
    func statusChanged(from old: StatusSnapshot?, to new: StatusSnapshot, at now: Instant)
    func eventRecorded(_ record: EventRecord)
}

extension DoorSubscriber {
    func statusChanged(from old: StatusSnapshot?, to new: StatusSnapshot, at now: Instant) {}
    func eventRecorded(_ record: EventRecord) {}
}

import DoorCore

/// An audience of the doors: told their status (a `DoorStatus` per door, the first first: the
/// whole value at start and each time it changes) and, if it wants them, the history's events as they are recorded. Both come
/// on the door loop's thread, in order, and must return at once (anything slow goes to a thread
/// of its own). A front end (Home Assistant, systemd's status line, and whatever comes next) is
/// one of these and nothing more.
protocol DoorSubscriber: AnyObject, Sendable {
    func statusChanged(_ doors: [DoorStatus], at now: Instant)
    func eventRecorded(_ record: EventRecord)
}

extension DoorSubscriber {
    func eventRecorded(_ record: EventRecord) {}
}

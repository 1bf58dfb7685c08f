/// How long the loop may wait with every request still dated (docs/decisions.md, "An idle loop
/// sleeps"): its looks are needed only by a connection whose requests count from its empty mark
/// and by a listener whose connections cannot be dated otherwise.
extension DoorLoop {
    /// The longest this turn's wait may last from `polled` (CLOCK_REALTIME ns, read before it).
    func sleepLimit(at polled: Int64) -> Duration {
        if connections.values.contains(where: { $0.arrivals.needsLooks }) { return DoorLoop.longestWait }
        var limit = DoorLoop.longestSleep
        for (fd, listener) in listeners where pausedListeners[fd] == nil {
            switch listener.need(at: polled, quiet: quiet) {
            case .nothing: continue
            case .looks: return DoorLoop.longestWait
            case .lookAt(let t): limit = min(limit, .nanoseconds(max(0, t - polled)))
            }
        }
        return limit
    }
}

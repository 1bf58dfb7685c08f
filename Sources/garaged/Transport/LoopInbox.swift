import DoorCore
#if canImport(Glibc)
import Glibc
import Synchronization
#endif

/// What the parts below the door loop hand it, and the wake-up that tells it: from other threads,
/// listeners that come and go with the Bluetooth adapter, each relay door's releases and
/// overruns (a serial opener's drive is served on the loop's own thread and reports there), Home
/// Assistant's commands stamped with when they may have arrived, the pairing agent's news for
/// its follower, how each channel stands; and history records from below, HomeKit's pairings and
/// wrong setup codes (from the loop's own thread: HomeKit is served by the loop) and the phones
/// paired. Every part that feeds the loop is given this at construction, so none holds the loop
/// itself; the loop takes everything at the top of each turn (and tells every audience at once
/// when it changes the status), and the relays' releases also straight after a wait the inbox
/// woke.
final class LoopInbox: Sendable {
    /// Everything handed over since the loop last looked.
    struct Items: Sendable {
        var add: [any Listener] = []
        var remove: [Int32] = []
        /// Releases and overruns, by door (`Door.index`).
        var released: [Int: Int] = [:]
        var overruns: [Int: Int] = [:]
        /// Requests from channels that run on threads of their own (Home Assistant's commands).
        var requests: [DoorRequest] = []
        /// Records for the followers of a topic (what the pairing window did), in order.
        var followerNews: [(topic: LocalCommand.FollowTopic, record: JSONValue)] = []
        /// History records, each with what a burst of it is summarised under.
        var records: [(record: EventRecord, summaryKey: String)] = []
        /// The latest state of each channel that changed, by name.
        var channels: [String: ChannelStatus] = [:]

        /// True when what was taken may change the doors' status (anything but listeners).
        var changesStatus: Bool {
            !released.isEmpty || !overruns.isEmpty || !requests.isEmpty || !followerNews.isEmpty || !records.isEmpty
                || !channels.isEmpty
        }
    }

    private let items = Mutex(Items())
    /// The loop polls this: something was handed over.
    let wake = WakeEvent()

    init() {}

    /// A listener to serve (the loop closes it when it stops).
    func add(_ listener: any Listener) { hand { $0.add.append(listener) } }

    /// A listener to close (its connections stay until their peers leave).
    func remove(listenerFD fd: Int32) { hand { $0.remove.append(fd) } }

    /// Door `door`'s relay finished a press (`overran`: it was held up past its end).
    func relayReleased(door: Int, overran: Bool) {
        hand {
            $0.released[door, default: 0] += 1
            if overran { $0.overruns[door, default: 0] += 1 }
        }
    }


    /// A request from a channel's own thread (Home Assistant's), stamped with when it arrived.
    func request(_ request: DoorRequest) {
        hand { $0.requests.append(request) }
    }

    /// A record for whoever follows `topic` (the pairing agent's news for the owner).
    func tellFollowers(of topic: LocalCommand.FollowTopic, _ record: JSONValue) { hand { $0.followerNews.append((topic, record)) } }

    /// A record for the history; an attempt is summarised per burst of the same `summaryKey`.
    func record(_ record: EventRecord, summaryKey: String) { hand { $0.records.append((record, summaryKey)) } }

    /// How a channel stands now (it replaces what the loop has not yet taken).
    func channel(_ status: ChannelStatus) { hand { $0.channels[status.name] = status } }

    /// Only the relays' releases and overruns, leaving the rest (the loop's thread, straight
    /// after its wait: a release comes before anything else that turn brings).
    func takeRelays() -> (released: [Int: Int], overruns: [Int: Int]) {
        items.withLock { i in
            defer { i.released = [:]; i.overruns = [:] }
            return (i.released, i.overruns)
        }
    }

    /// Everything handed over, emptying the inbox (the loop's thread).
    func take() -> Items {
        items.withLock { i in
            let taken = i
            i = Items()
            return taken
        }
    }

    private func hand(_ change: (inout Items) -> Void) {
        items.withLock { change(&$0) }
        wake.signal()
    }
}

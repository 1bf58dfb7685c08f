/// One request to the doors, from any source: who asks, what, and when it arrived. Every
/// channel hands the loop these (a protocol line from the local socket or a phone, a move from
/// Home Assistant or HomeKit, HomeKit's light and identify), and so does time (a door's timers),
/// and `Controller.judge` decides each the same way: its age, then what it asks, whose every
/// press passes the door's gate.
public struct DoorRequest: Sendable {
    /// What is asked.
    public enum Ask: Sendable, Equatable {
        /// A line of the book's protocol, with its PIN (`<PIN>O=1`, `L...`).
        case line([UInt8])
        /// Open, close or stop a door, from a channel that vouches for its senders itself
        /// (the broker's ACL, a HomeKit pairing): no PIN.
        case move(Controller.ChannelCommand, door: Int)
        /// A door's light on or off (HomeKit's Lightbulb).
        case light(Bool, door: Int)
        /// Show a door for a moment (HomeKit's identify): its light, or its warning.
        case identify(door: Int)
        /// Lock (true) or unlock a door's opener's remotes and keypads (HomeKit's lock, Home
        /// Assistant's; `garage-pins remotes` comes as a `.line`).
        case remotes(locked: Bool, door: Int)
        /// Time passed for a door and one of its timers is due (auto-close, a hold or a warning
        /// running out, the travel, the light, "left open"): from the loop, never a channel.
        case time(door: Int)

        /// A protocol line: its history records are made from the decoded command.
        var isLine: Bool {
            if case .line = self { return true }
            return false
        }
    }

    public var ask: Ask
    public var source: RequestSource
    /// When it arrived at the latest (the kernel's stamp, or the socket's empty mark), on the
    /// judging clock; nil when the channel cannot tell (it is then judged as fresh).
    public var arrived: Instant?

    public init(_ ask: Ask, from source: RequestSource, arrived: Instant?) {
        self.ask = ask
        self.source = source
        self.arrived = arrived
    }
}

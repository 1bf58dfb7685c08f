extension Controller {
    /// Everything one input (a request, time passing, a switch, the relay's release)
    /// produced, decided here so the daemon's loop only carries it out: the replies, what the
    /// door does (presses first), what the history records (what phones are told is in the
    /// status snapshot: `Controller.notices`).
    public struct Outcome: Sendable {
        /// The door it is about (`Door.index`): each outcome is one door's.
        public var doorIndex = 0
        public var replies: [Reply] = []
        /// What the door decided or saw, in order: presses, warning and light switching,
        /// movement, faults.
        public var door: [Door.Event] = []
        /// What the history keeps of it (attempts among them are summarised by the caller).
        public var records: [EventRecord] = []
        /// The command's name, when the request could be decoded.
        public var command: String?
        /// The slot whose PIN matched, when one did; logged instead of the PIN.
        public var slot: Int?
        /// Set when this wrong PIN started or extended a lockout: how long, and after how many
        /// wrong PINs on the request's channel.
        public var lockout: (duration: Duration, failures: Int)?
        /// A local request the caller answers itself (the history lives in the daemon).
        public var query: LocalQuery?
        /// The decoded command, when the request could be decoded.
        public var decoded: Command?
        /// Why a save failed (`ERR STORE`), for the log: the file and the system's reason.
        public var storeError: String?
        /// Why the request was refused (before it was judged, `ERR STALE`; by the rate of its
        /// channel, `ERR RATE`; by the door's gate, `ERR FAULT`, `ERR BUSY`...), or why it was
        /// answered OK with nothing done ("already closed: nothing pressed"), with what to do:
        /// for the log, and for the channels that answer in words (`wordedReplies`).
        public var refusal: String?

        /// Set once a request passed the door and access checks: its log name says which door.
        var namesItsDoor = false

        /// A request's door events not yet described (records, notices): set while it is judged.
        var undescribed: Undescribed?
        /// What the history keeps of a channel's request itself (HomeKit's or Home Assistant's
        /// move), written by `account` after what the door did, as a line's request records are.
        var ownRecords: [EventRecord] = []
        /// Who a channel's move opens the door for (its source), noted in `account` after what
        /// the door did, as a line's PIN holder is.
        var opener: String?

        /// The groups of door events a judged request reported, the first held inline: judging
        /// a press allocates no list for them.
        struct Undescribed: Sendable {
            private(set) var first: DoorEvents?
            private(set) var more: [DoorEvents] = []

            mutating func append(_ group: DoorEvents) {
                if first == nil { first = group } else { more.append(group) }
            }

            /// Every group, in the order reported.
            var all: [DoorEvents] { (first.map { [$0] } ?? []) + more }
        }

        /// Door events as one call reported them, with what their description needs.
        struct DoorEvents: Sendable {
            var events: [Door.Event]
            var byRequest: Bool
            var autoCloseInterval: Duration?
        }

        public init() {}

        /// The last reply, which is what the log records as the result.
        public var result: Reply { replies.last ?? .ok }

        /// The replies as a channel that answers in words carries them (the local socket, for
        /// `garage-pins`): the reason, when there is one, as a `{"reason":"..."}` record just
        /// before the final record, which is the code (`ERR FAULT`, `OK`) as ever. Bluetooth
        /// carries `replies`, the book's bytes.
        public var wordedReplies: [Reply] {
            guard let refusal, let final = replies.last else { return replies }
            return replies.dropLast() + [Reply.reason(refusal), final]
        }

        /// The presses among the door's events, in order: the caller carries them out first.
        public var presses: [PressPermit] { door.presses }
        /// Identify at a door with neither a light nor a warning wired: the log line is all it
        /// shows, and it is still done.
        public var nothingToShow = false
        /// True when the request was done (a front end answers it as accepted).
        public var accepted: Bool { !result.isError || nothingToShow }

        /// True when the request changed the door or a setting (a press, a warned press, a lock
        /// of the opener's remotes asked): the log keeps these in full; everything else may be
        /// summarised.
        public var changedSomething: Bool {
            if door.contains(where: {
                switch $0 {
                case .press, .pressWarned, .remotesLock: return true
                default: return false
                }
            }) {
                return true
            }
            switch decoded {
            case .add, .edit, .delete, .hold, .closeAfter, .local(.add), .local(.label), .local(.doors), .local(.unlock):
                return !result.isError
            case .light:
                // The light switched; the light asked for as it is can be repeated at will.
                return !result.isError && door.contains { if case .light = $0 { return true } else { return false } }
            default:
                return false
            }
        }
    }

    /// Local requests the controller authorises but cannot answer: the caller serves them.
    public enum LocalQuery: Equatable, Sendable {
        /// The status record: the daemon holds the status with its channels (`DoorStatus`).
        case status
        case log(since: Int64?)
        case follow(LocalCommand.FollowTopic, since: Int64?)
        /// The Bluetooth pairing agent and the bonds live in the daemon.
        case pair(PairingWindow.Request)
        case phones
        case unpair(String)
        /// HomeKit's accessory lives in the daemon.
        case homekit(LocalCommand.HomeKitVerb)
    }
}

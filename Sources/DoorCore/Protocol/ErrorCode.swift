/// The protocol's error replies: each one means "nothing was changed", and says why.
public enum ErrorCode: String, Error, Sendable, CaseIterable {
    /// Unknown PIN, or a non-master PIN for P/A/E/D.
    case pin = "PIN"
    /// Too many wrong PINs; the reply carries the seconds left.
    case locked = "LOCKED"
    /// Malformed request: wrong length, bad characters, an over-long socket line.
    case format = "FORMAT"
    /// Unknown command letter.
    case command = "CMD"
    /// Index out of range, slot 0, or a free slot for E/D.
    case slot = "SLOT"
    /// No free slot for A.
    case full = "FULL"
    /// The new PIN is already stored (master included).
    case duplicate = "DUP"
    /// The door is believed to be moving the other way.
    case busy = "BUSY"
    /// The table could not be saved to disk; the change was not made (our extension).
    case store = "STORE"
    /// The request waited too long between arriving and being judged (a stalled daemon), so
    /// it was not performed: send it again (our extension).
    case stale = "STALE"
    /// Too many clients already follow the daemon; the owner at the shell is never refused
    /// (our extension).
    case limit = "LIMIT"
    /// A phone not paired as admin asked to manage PINs (`--ble-security paired`; our extension).
    case admin = "ADMIN"
    /// Pairing was asked for, but the daemon is not in `--ble-security paired` mode or has no
    /// adapter (our extension).
    case bluetooth = "BLUETOOTH"
    /// No bonded phone has that label (our extension).
    case phone = "PHONE"
    /// The door has a fault that stops every press: both position switches report their end
    /// at once, or its opener does not answer (our extension). The local socket says which.
    case fault = "FAULT"
    /// This channel asked for the warning, a hold, the opener's light or its remotes' lock too
    /// often; wait (our extension).
    case rate = "RATE"
    /// No door has that number or name (our extension, with several doors).
    case door = "DOOR"
    /// This PIN is limited to other doors (our extension, with several doors).
    case denied = "DENIED"
    /// A press that may close the door while the photo-eye's beam is broken (our extension,
    /// with `--sensor-obstruction`).
    case obstructed = "OBSTRUCTED"
    /// `Lhomekit` while HomeKit is off.
    case homekit = "HOMEKIT"

    /// What the error means to a person, and what to do about it.
    public var meaning: String {
        switch self {
        case .pin: return "wrong PIN (or not the master PIN for managing PINs)"
        case .locked: return "too many wrong PINs on this channel"
        case .format: return "the daemon could not parse the request"
        case .command: return "the daemon does not know that command"
        case .slot: return "no such slot, or the slot is free"
        case .full: return "the PIN table is full; delete a PIN first"
        case .duplicate: return "that PIN is already stored"
        case .busy: return "the door is moving the other way, or the relay is still pressing; wait a moment"
        case .store: return "the daemon could not save the PIN table; nothing was changed (see its log for why)"
        case .stale: return "the request waited too long inside the daemon (was it stalled?) and was not performed; send it again"
        case .limit: return "too many clients already follow the daemon; close one (the owner at the shell is never refused)"
        case .admin: return "this phone may open the door but not manage PINs; pair it again with garage-pins pair --admin"
        case .bluetooth: return "pairing needs garaged to run with --ble-security paired and a working Bluetooth adapter (see garage-pins status)"
        case .phone: return "no paired phone has that label; see garage-pins phones"
        case .fault: return "the door has a fault that stops every press (its position switches contradict each other, or its opener does not answer); garage-pins status shows which"
        case .rate: return "this channel asked for the warning, a hold, the opener's light or its remotes' lock too often; wait (a minute, up to 15 for the remotes' lock: garaged's log says how long)"
        case .door: return "garaged drives no door of that number or name; garage-pins status lists the doors your PIN may use"
        case .denied: return "this PIN may not use that door; the owner sets which doors it may with garage-pins edit SLOT --doors"
        case .obstructed: return "something breaks the photo-eye's beam across the doorway; garaged presses nothing that could close the door then; clear the doorway and try again"
        case .homekit: return "HomeKit is off; start garaged with --homekit (or homekit = on in its config); if it is on, garaged's log says why it is off (homekit-off)"
        }
    }
}

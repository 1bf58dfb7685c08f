/// Security+ 1.0's wall-button wire, byte by byte: the single bytes a wall panel sends (its
/// buttons, its three questions) and what the opener's one-byte answers mean. Read from
/// ratgdo's esphome-ratgdo (`secplus1.cpp`), homekit-ratgdo32 (`comms.cpp`) and Konnected's
/// gdolib, as docs/openers.md and the shared notes give them; where they disagree, it says
/// which is followed and why.
enum SecPlus1Wire {
    /// The door button: press, release. The opener acts on the press (all three peers).
    static let doorPress: UInt8 = 0x30
    static let doorRelease: UInt8 = 0x31
    /// The light button: each press toggles the light. ratgdo releases it 500 ms after; to flash
    /// the light homekit-ratgdo32 presses alone every 500 ms and releases (several times) only
    /// afterwards, which garaged's warning follows; it also sends two releases after a plain
    /// press (some openers act on each light byte): garaged sends one, and checks the answers.
    static let lightPress: UInt8 = 0x32
    static let lightRelease: UInt8 = 0x33
    /// The lock button (the lock of the opener's radio remotes): held, then released.
    static let lockPress: UInt8 = 0x34
    static let lockRelease: UInt8 = 0x35
    /// What some older panels (398LM-type) ask instead of 0x38; openers mostly do not answer it,
    /// and homekit-ratgdo32 refuses those panels (ratgdo slips its own 0x38 in after one).
    static let askDoor0x37: UInt8 = 0x37
    /// The three questions a panel asks, each answered with one byte.
    static let askDoor: UInt8 = 0x38
    static let askObstruction: UInt8 = 0x39
    static let askLightLock: UInt8 = 0x3A
    /// Sent by the line when idle, with bad parity (the kernel drops those on a real UART).
    static let idle: UInt8 = 0xFF
    /// Lead bytes of pairs seen on real wires that nobody has explained (40 00, 40 80, 53 01,
    /// C0 3F, F8 3F, FE 3F); 0x53 is also in ratgdo's start. Ignored with their second byte.
    static let unexplained: Set<UInt8> = [0x40, 0x53, 0xC0, 0xF8, 0xFE]

    /// ratgdo's start when it stands in for a panel: releases (harmless), 0x53 twice, then each
    /// question, before the polling loop. No door press is in it. (homekit-ratgdo32 starts with
    /// four door releases, 0x31, as an 889LM panel does; ratgdo's has none, so garaged's neither:
    /// no door byte ever goes out but for a permit.)
    static let standInStart: [UInt8] = [0x35, 0x35, 0x35, 0x35, 0x33, 0x33, 0x53, 0x53, 0x38, 0x3A, 0x3A, 0x3A, 0x39]
    /// The polling loop, one question a slot: the door every other slot, so a move reaches the
    /// audiences within two polls of 250 ms (ratgdo asks it one slot in three, then the light and
    /// the photo-eye; here those two take turns in the slots between).
    static let polls: [UInt8] = [askDoor, askLightLock, askDoor, askObstruction]
    /// While a sequence of toggles runs: the door asked two slots in three, so two answers in a
    /// row agree soon after it moves, the photo-eye and the light still in turn.
    static let pollsWhileToggling: [UInt8] = [askDoor, askDoor, askObstruction, askDoor, askDoor, askLightLock]

    /// A byte a panel (or garaged) sends: buttons, questions. No answer was ever seen in this
    /// range (homekit-ratgdo32 relies on it): such a byte where an answer was due ends the exchange.
    static func isCommand(_ byte: UInt8) -> Bool { (0x30...0x3F).contains(byte) }

    /// One of the questions whose answer garaged reads (0x37's answer says nothing it can use).
    static func isQuestion(_ byte: UInt8) -> Bool { (askDoor...askLightLock).contains(byte) }

    /// The door's state in the answer to 0x38: its low 3 bits, 1 opening, 2 open, 4 closing,
    /// 5 closed, 0 or 6 stopped (all three peers agree; 0x55 is seen for closed, so the upper
    /// bits are ignored). 3 and 7 name no state and give nil.
    static func doorState(_ answer: UInt8) -> OpenerDoorState? {
        switch answer & 0x07 {
        case 1: return .opening
        case 2: return .open
        case 4: return .closing
        case 5: return .closed
        case 0, 6: return .stopped
        default: return nil
        }
    }

    /// The light in the answer to 0x3A: bit 2 set is on.
    static func light(_ answer: UInt8) -> Bool { answer & 0x04 != 0 }

    /// The remotes' lock in the answer to 0x3A: bit 3 **set means unlocked** (0x4C, 0x58 seen).
    static func locked(_ answer: UInt8) -> Bool { answer & 0x08 == 0 }

    /// The photo-eye in the answer to 0x39: 0 is clear. ratgdo reads anything else as obstructed;
    /// homekit-ratgdo32 reads bit 0 as a steady obstruction and bit 2 as a change (the beam just
    /// broken, or just restored). Any bit set counts as obstructed here: the safe side of both.
    static func obstructed(_ answer: UInt8) -> Bool { answer != 0 }
}

/// The one door button of a Security+ 1.0 opener, a toggle: where a press takes the door from
/// where it is, and which presses may send it down. Open, close and stop are sequences of these,
/// decided one at a time from the state the opener reported (ratgdo's `door_action`).
enum SecPlus1Toggle {
    /// Where a toggle may take the door from `state`. The notes' model is closed -> opening,
    /// opening -> stopped, stopped -> closing, open -> closing, closing -> opening; ratgdo says a
    /// toggle while closing stops the door on some openers, the gate's rule 6 that some openers
    /// reverse while opening, and a door stopped on its way down may go up on the next press:
    /// each of those is taken as the toggle's outcome too, never as someone else's doing.
    static func outcomes(from state: OpenerDoorState) -> Set<OpenerDoorState> {
        switch state {
        case .closed: return [.opening]
        case .opening: return [.stopped, .closing]
        case .stopped: return [.closing, .opening]
        case .open: return [.closing]
        case .closing: return [.opening, .stopped]
        case .unknown: return []
        }
    }

    /// Whether a toggle from `state` may send the door down (and so is a press that may close
    /// it): from OPEN, STOPPED, OPENING, or a state not known. Only CLOSED and CLOSING are safe.
    static func mayGoDown(from state: OpenerDoorState) -> Bool {
        state == .unknown || outcomes(from: state).contains(.closing)
    }

    /// Whether `action` still needs a toggle with the door at `state`: false once it is reached
    /// (an open at OPENING or OPEN; a close at CLOSING or CLOSED; a stop at rest); nil when the
    /// state is not known.
    static func needsToggle(_ action: DoorAction, at state: OpenerDoorState) -> Bool? {
        switch (action, state) {
        case (_, .unknown): return nil
        case (.open, .opening), (.open, .open): return false
        case (.open, _): return true
        case (.close, .closing), (.close, .closed): return false
        case (.close, _): return true
        case (.stop, .opening), (.stop, .closing): return true
        case (.stop, _): return false
        }
    }
}

/// One door as HomeKit reads it: CurrentDoorState (Open 0, Closed 1, Opening 2, Closing 3,
/// Stopped 4), TargetDoorState (Open 0, Closed 1), ObstructionDetected and the light.
public struct HAPDoorView: Equatable, Sendable {
    public var current: Int
    public var target: Int
    public var obstruction: Bool
    public var light: Bool?

    public static let open = 0, closed = 1
    /// CurrentDoorState's Closing.
    public static let closing = 3

    public init(current: Int, target: Int, obstruction: Bool, light: Bool?) {
        self.current = current
        self.target = target
        self.obstruction = obstruction
        self.light = light
    }
}

/// Turns a door's status into what HomeKit shows, remembering what HomeKit cannot be told
/// directly: the target of a STOPPED door and a close that did not finish.
/// - CurrentDoorState is the door's state as `S` reports it, sensed or believed.
/// - TargetDoorState follows the door when it moves by hand or by remote (so the Home app
///   never sticks at "Opening…"); during a warned close the door is still Open with target
///   Closed, which the Home app shows as "Closing…".
/// - ObstructionDetected is true while the photo-eye's beam is broken, and after a close that
///   did not reach CLOSED until the door is next seen closed.
public struct HAPDoorFollower: Sendable {
    private var stoppedTarget = HAPDoorView.open
    private var failedClose = false

    public init() {}

    public mutating func view(of status: DoorStatus) -> HAPDoorView {
        if status.fault == .didNotClose { failedClose = true }
        if status.position == .closed { failedClose = false }
        let current: Int
        var target: Int
        switch status.position {
        case .open: current = 0; target = HAPDoorView.open
        case .closed: current = 1; target = HAPDoorView.closed
        case .opening: current = 2; target = HAPDoorView.open
        case .closing: current = 3; target = HAPDoorView.closed
        case .stopped: current = 4; target = stoppedTarget
        }
        // A warned close: still open, already on its way to closed.
        if status.warningOn && status.position != .closing && status.closesAt != nil { target = HAPDoorView.closed }
        if status.position != .stopped { stoppedTarget = target }
        return HAPDoorView(current: current, target: target, obstruction: failedClose || status.obstructed == true, light: status.light)
    }

    /// A write of TargetDoorState the door accepted: a STOPPED door keeps it as its target.
    public mutating func accepted(target: Int) { stoppedTarget = target }
}

extension HAPDoorView {
    /// What a TargetDoorState write of `target` (Open 0, Closed 1) asks of the door: nil only
    /// for a repeat the gate would answer with nothing done, now or later: a close of a door
    /// CLOSED or CLOSING (the Home app rewrites the target when it reconnects). Every other
    /// write is a request the gate judges like Home Assistant's: an open of an OPEN door starts
    /// its auto-close countdown again, one of an OPENING door calls off a warned STOP, a close
    /// of an OPEN door that reads "Closing..." may find identify's warning and not a warned
    /// close, and a STOPPED door is at neither end (its target is only what HomeKit last read),
    /// so a write of it may press. Issue 30; property/'s
    /// HomeKitTargetInvariantTests shows that what is skipped is redundant with the gate.
    public func move(toTarget target: Int) -> Controller.ChannelCommand? {
        let repeatedClose = target == HAPDoorView.closed && self.target == HAPDoorView.closed
            && (current == HAPDoorView.closed || current == HAPDoorView.closing)
        guard !repeatedClose else { return nil }
        return target == HAPDoorView.open ? .open : .close
    }
}

extension HAPCharacteristic {
    /// Its value as HomeKit reads it, from its door's view (nil: a door not known yet, which
    /// reads closed and clear), as JSON.
    public func value(in view: HAPDoorView?) -> JSONValue {
        switch self {
        case .identify: return .null
        case .text(let s): return .string(s)
        case .currentDoorState: return .number(Int64(view?.current ?? 1))
        case .targetDoorState: return .number(Int64(view?.target ?? 1))
        case .obstructionDetected: return .bool(view?.obstruction ?? false)
        case .lightOn: return .bool(view?.light ?? false)
        }
    }

    /// Its current value, given every door's view.
    public func value(among views: [HAPDoorView]) -> JSONValue {
        guard let d = door, d < views.count else { return value(in: nil) }
        return value(in: views[d])
    }
}

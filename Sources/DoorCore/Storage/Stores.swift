/// Where the controller persists a changed table before it answers OK; a failure means the
/// change is not made. The file store in production, anything else in tests.
public protocol PinTableSaving: Sendable {
    func save(_ table: PinTable) throws(StoreError)
}

/// Where the controller persists changed labels before it answers OK.
public protocol LabelsSaving: Sendable {
    func save(_ labels: Labels) throws(StoreError)
}

/// Where the controller keeps the closing interval before it answers `C=` with OK.
public protocol ClosingIntervalSaving: Sendable {
    func save(_ seconds: Int) throws(StoreError)
}

/// Where the controller keeps a failed close, so no automatic press follows a restart until
/// the door is seen closed (the package restarts garaged on every upgrade).
public protocol DoorStateSaving: Sendable {
    /// `closeFailed` false clears it; `time` is the wall-clock ms it happened.
    func save(closeFailed: Bool, at time: Int64) throws(StoreError)
}

/// Where the controller keeps which doors each PIN may use before it answers `Ldoors` with OK.
public protocol DoorAccessSaving: Sendable {
    func save(_ access: DoorAccess) throws(StoreError)
}

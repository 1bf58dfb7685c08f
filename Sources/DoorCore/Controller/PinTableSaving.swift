/// Where the controller persists a changed table before it answers OK; a failure means the
/// change is not made. The file store in production, anything else in tests.
public protocol PinTableSaving: Sendable {
    func save(_ table: PinTable) throws(TableFileError)
}

extension PinTableFile: PinTableSaving {}

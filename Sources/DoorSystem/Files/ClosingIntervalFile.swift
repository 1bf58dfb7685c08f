import DoorCore
/// The closing interval set from the app (`C=<seconds>`), kept beside the table in
/// `<table>.autoclose` and written as safely as the table, so it outlives a restart. While the
/// file exists it wins over the configured `auto-close-s`.
public struct ClosingIntervalFile: Sendable {
    public let path: String

    /// Beside the table: `<table>.autoclose` for the first door (as before doors had names),
    /// `<table>.<door>.autoclose` for each other door.
    public init(tablePath: String, door: String? = nil) { path = tablePath + (door.map { ".\($0)" } ?? "") + ".autoclose" }

    /// The stored interval in seconds (0: off), or nil when none was ever set from the app.
    public func load() throws(StoreError) -> Int? {
        guard let bytes = try AtomicFile.read(path, limit: 64) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        guard let seconds = Int(text), DoorTiming.autoCloseRange.contains(seconds) else {
            throw .invalid(path: path, reason: "expected the closing interval in seconds (0 to \(DoorTiming.autoCloseRange.upperBound)), found '\(text)'")
        }
        return seconds
    }
}

extension ClosingIntervalFile: ClosingIntervalSaving {
    public func save(_ seconds: Int) throws(StoreError) {
        try AtomicFile.write(Array("\(seconds)\n".utf8), to: path, mode: 0o600)
    }
}

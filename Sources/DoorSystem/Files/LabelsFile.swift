import DoorCore
/// The labels sidecar next to the table (`<table>.labels`), written as safely as the table.
/// A missing sidecar is an empty one: a table from `init` or an Arduino has no names yet.
public struct LabelsFile: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    /// The sidecar that belongs to a table file.
    public init(tablePath: String) { self.init(path: tablePath + ".labels") }

    public func load() throws(StoreError) -> Labels {
        guard let bytes = try AtomicFile.read(path, limit: 64 * 1024) else { return Labels() }
        do {
            return try Labels.decode(bytes)
        } catch {
            throw .labels(path: path, reason: error.description)
        }
    }

    public func save(_ labels: Labels) throws(StoreError) {
        try AtomicFile.write(labels.encoded(), to: path, mode: 0o600)
    }
}

extension LabelsFile: LabelsSaving {}

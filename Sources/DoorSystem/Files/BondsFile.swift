import DoorCore

/// The bonded phones beside the table (`<table>.bonds`), written as safely as the table and
/// readable by its owner only: the long-term keys in it let a phone open the garage. A
/// missing file is no phones.
public struct BondsFile: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    /// The file that belongs to a table file.
    public init(tablePath: String) { self.init(path: tablePath + ".bonds") }

    public func load() throws(StoreError) -> BondedPhones {
        guard let bytes = try AtomicFile.read(path, limit: 256 * 1024) else { return BondedPhones() }
        switch BondedPhones.decode(bytes) {
        case .success(let phones): return phones
        case .failure(let error): throw .invalid(path: path, reason: error.description)
        }
    }

    public func save(_ phones: BondedPhones) throws(StoreError) {
        try AtomicFile.write(phones.encoded(), to: path, mode: 0o600)
    }
}

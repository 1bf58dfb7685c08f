import DoorCore

/// An `auto` door's search result, kept beside the PIN table (`pins.opener-found`, a door's
/// `pins.NAME.opener-found`), so the next start speaks the found wire at once instead of
/// searching. Written atomically and durably; removing it forces a new search.
public struct OpenerFoundFile: Sendable {
    public let path: String

    public init(tablePath: String, door: String? = nil) { path = tablePath + (door.map { ".\($0)" } ?? "") + ".opener-found" }

    /// The kept protocol and how it was found, or nil when none is kept yet.
    public func load() throws(StoreError) -> (kind: OpenerKind, how: String)? {
        guard let bytes = try AtomicFile.read(path, limit: 1024) else { return nil }
        var kind: OpenerKind?, how: String?
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            if line.hasPrefix("protocol ") { kind = OpenerKind.named(String(line.dropFirst(9))) }
            if line.hasPrefix("found-by ") { how = String(line.dropFirst(9)) }
        }
        guard let kind, let how, !how.isEmpty else {
            throw .damaged(path: path, reason: "expected 'protocol secplus2' or 'protocol secplus1' and a 'found-by ...' line",
                           fix: "nothing to do: garaged searches the wire again and keeps what it finds (or remove the file)")
        }
        return (kind, how)
    }

    public func save(_ kind: OpenerKind, how: String) throws(StoreError) {
        let oneLine = how.split(whereSeparator: \.isNewline).joined(separator: " ")
        try AtomicFile.write(Array("protocol \(kind.id)\nfound-by \(oneLine)\n".utf8), to: path, mode: 0o600)
    }
}

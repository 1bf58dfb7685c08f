import DoorCore

/// A Security+ 2.0 opener's identity kept beside the table (`<table>.opener`, or
/// `<table>.<door>.opener` for each other door): the client id garaged chose once, and the end of
/// the block of rolling codes reserved on disk before any of them was sent. Written as safely as
/// the table, so a crash at any point leaves either the old block or the new one.
public struct SecPlus2CodesFile: Sendable {
    /// What the file holds.
    public struct Kept: Hashable, Sendable {
        public var client: SecPlus2ClientID
        /// Every rolling code below this may have been sent; none at or above it was.
        public var reservedBelow: UInt32

        public init(client: SecPlus2ClientID, reservedBelow: UInt32) {
            self.client = client
            self.reservedBelow = reservedBelow
        }
    }

    public let path: String

    public init(tablePath: String, door: String? = nil) { path = tablePath + (door.map { ".\($0)" } ?? "") + ".opener" }

    /// The kept identity, or nil when there is no file yet.
    public func load() throws(StoreError) -> Kept? {
        guard let bytes = try AtomicFile.read(path, limit: 256) else { return nil }
        var client: UInt32?, reserved: UInt32?
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 2 else { continue }
            switch parts[0] {
            case "client" where parts[1].hasPrefix("0x"): client = UInt32(parts[1].dropFirst(2), radix: 16)
            case "reserved-below": reserved = UInt32(parts[1])
            default: continue
            }
        }
        guard let client, let reserved, reserved < SecPlus2Packet.rollingLimit else {
            throw .damaged(path: path, reason: "expected 'client 0x<8 hex digits>' and 'reserved-below <rolling code>' lines",
                           fix: "restore it from a backup, or remove it to start with a new client id (the opener accepts a new one)")
        }
        return Kept(client: SecPlus2ClientID(client), reservedBelow: reserved)
    }

    public func save(_ kept: Kept) throws(StoreError) {
        try AtomicFile.write(Array("client \(kept.client)\nreserved-below \(kept.reservedBelow)\n".utf8), to: path, mode: 0o600)
    }
}

/// The rolling codes one opener's driver sends, never one twice across restarts: a block is
/// reserved on disk before its first code is used, and a start resumes after the whole block.
public final class SecPlus2Codes: SecPlus2CodeSource {
    /// How many codes one save reserves (a save per this many packets sent).
    public static let block: UInt32 = 64

    public let file: SecPlus2CodesFile
    public private(set) var client: SecPlus2ClientID
    /// The next code to send.
    public private(set) var next: UInt32
    private var reservedBelow: UInt32

    /// Resumes from the file, or chooses a client id (low 12 bits 0x539, as ratgdo's) when there
    /// is none; nothing is written until the first code is taken.
    public init(file: SecPlus2CodesFile) throws(StoreError) {
        self.file = file
        if let kept = try file.load() {
            client = kept.client
            next = kept.reservedBelow
            reservedBelow = kept.reservedBelow
        } else {
            var random = SystemRandomNumberGenerator()
            client = SecPlus2Codes.newClient(using: &random)
            next = 1
            reservedBelow = 1
        }
    }

    /// The code for the next command, reserved on disk first when the block is spent.
    public func take() throws(StoreError) -> UInt32 {
        if next >= reservedBelow { try reserve() }
        defer { next += 1 }
        return next
    }

    /// Codes reserved on disk and not yet taken.
    public var reservedAhead: UInt32 { reservedBelow > next ? reservedBelow - next : 0 }

    /// Reserves the block after the next code (the codes already reserved stay reserved).
    public func reserve() throws(StoreError) {
        let end = max(next, reservedBelow) + SecPlus2Codes.block
        guard end < SecPlus2Packet.rollingLimit else {
            throw .invalid(path: file.path, reason: "the rolling codes are spent (2^28); remove the file to start with a new client id")
        }
        try file.save(.init(client: client, reservedBelow: end))
        reservedBelow = end
    }

    /// Moves past `rolling`, a code someone else sent with our client id: the opener refuses
    /// ours below it. With no room left below 2^28, takes a new client id instead (true).
    public func skip(past rolling: UInt32) throws(StoreError) -> Bool {
        guard rolling >= next else { return false }
        let end = UInt64(rolling) + 1 + UInt64(SecPlus2Codes.block)
        if end < UInt64(SecPlus2Packet.rollingLimit) {
            try file.save(.init(client: client, reservedBelow: UInt32(end)))
            next = rolling + 1
            reservedBelow = UInt32(end)
            return false
        }
        var random = SystemRandomNumberGenerator()
        var fresh: SecPlus2ClientID
        repeat { fresh = SecPlus2Codes.newClient(using: &random) } while fresh == client
        try file.save(.init(client: fresh, reservedBelow: 1 + SecPlus2Codes.block))
        client = fresh
        next = 1
        reservedBelow = 1 + SecPlus2Codes.block
        return true
    }

    /// A random client id whose low 12 bits are 0x539, as ratgdo's are.
    static func newClient(using random: inout SystemRandomNumberGenerator) -> SecPlus2ClientID {
        SecPlus2ClientID(UInt32.random(in: 0...UInt32.max, using: &random) & ~0xFFF | 0x539)
    }
}

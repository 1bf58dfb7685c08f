/// What a HomeKit connection reads, as HTTP requests: in the clear until pair-verify proves a
/// controller, then only from encrypted frames. Bytes read in the clear are never taken as the
/// proven controller's: `secure` refuses the keys while any of them wait (an on-path attacker
/// appending a request to the segment that carries M3, the STARTTLS injection), and everything
/// read after it goes through the cipher, where unencrypted bytes fail to open. Pure.
public struct HAPRequestStream: Sendable {
    private var parser: HTTPRequestParser
    private var cipher: HAPSessionCipher?

    /// A stream in the clear, with the parser's limits.
    public init(parser: HTTPRequestParser = HTTPRequestParser()) {
        self.parser = parser
    }

    /// True while no byte of a request waits (nothing read that `next` has not taken).
    public var isIdle: Bool { parser.isIdle }

    /// True once `secure` took the session's keys.
    public var isSecure: Bool { cipher != nil }

    /// What reading found wrong: the connection is closed without another request handled.
    public enum Broken: Error, Equatable, Sendable {
        /// A frame that does not open (too long, forged, replayed, or bytes in the clear).
        case frame(String)
    }

    /// Takes bytes as the socket gives them: plaintext before `secure`, frames after it.
    public mutating func feed(_ bytes: [UInt8]) throws(Broken) {
        guard var c = cipher else {
            parser.feed(bytes)
            return
        }
        let opened = c.open(bytes)
        cipher = c
        switch opened {
        case .plaintext(let plain): parser.feed(plain)
        case .broken(let why): throw .frame(why)
        }
    }

    /// The next whole request read so far, or nil until more bytes come.
    public mutating func next() throws(HTTPParseError) -> HTTPRequest? { try parser.next() }

    /// Takes the session's keys once pair-verify has proved a controller; false, keeping no
    /// keys, when bytes read in the clear are still waiting: they were sent before the proof, so
    /// they are nobody's to run as the controller's (close the connection).
    public mutating func secure(with keys: HAPSessionCipher) -> Bool {
        guard cipher == nil, parser.isIdle else { return false }
        cipher = keys
        return true
    }

    /// Seals a message for the wire once secure; in the clear before.
    public mutating func seal(_ message: [UInt8]) -> [UInt8] {
        guard var c = cipher else { return message }
        defer { cipher = c }
        return c.seal(message)
    }
}

/// One HTTP request as a HAP controller sends it: what the server routes on, and the body.
public struct HTTPRequest: Equatable, Sendable {
    public var method: String
    /// The target up to any `?`, as sent (no percent-decoding: HAP's paths are plain ASCII).
    public var path: String
    /// The query's `name=value` pairs in the order sent, a name without `=` having an empty
    /// value. Nothing is percent-decoded: HAP's queries (`id=1.9,1.10&ev=1`) need none.
    public var query: [(name: String, value: String)]
    /// `HTTP/1.1` or `HTTP/1.0`.
    public var version: String
    /// The header fields in the order sent, names lower-cased and values trimmed.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(method: String, path: String, query: [(name: String, value: String)] = [], version: String = "HTTP/1.1",
                headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.version = version
        self.headers = headers
        self.body = body
    }

    /// The value of the first header field called `name`, in any case.
    public func header(_ name: String) -> String? {
        let wanted = HTTPRequestParser.lowercased(Array(name.utf8))
        return headers.first { $0.name.utf8.elementsEqual(wanted) }?.value
    }

    /// The value of the first query parameter called `name` (case-sensitive, as HAP's are).
    public func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }

    public static func == (a: HTTPRequest, b: HTTPRequest) -> Bool {
        a.method == b.method && a.path == b.path && a.version == b.version && a.body == b.body
            && a.query.count == b.query.count && zip(a.query, b.query).allSatisfy { $0 == $1 }
            && a.headers.count == b.headers.count && zip(a.headers, b.headers).allSatisfy { $0 == $1 }
    }
}

/// Why a request could not be read, and the status to answer with before closing the
/// connection (after a malformed request nothing that follows on it can be trusted).
public struct HTTPParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// 400, 413, 431, 501 or 505.
    public var status: Int
    public var reason: String

    public init(status: Int, reason: String) {
        self.status = status
        self.reason = reason
    }

    public var description: String { "\(status) \(HTTPResponse.reason(for: status)): \(reason)" }
}

/// Reads HTTP/1.1 requests from a connection's bytes as they arrive, however they are split,
/// and hands them out in order, pipelined ones included. Only what HAP needs: bodies sized by
/// `Content-Length`; anything else (chunked bodies, oversized heads or bodies, HTTP/2) is
/// refused with the status to answer, and the parser then stays failed.
public struct HTTPRequestParser: Sendable {
    public let maxHeaderBytes: Int
    public let maxBodyBytes: Int
    private var buffer: [UInt8] = []
    /// How far `buffer` has been searched for the blank line, so a head sent byte by byte is
    /// not searched again from its start for every byte.
    private var searched = 0
    /// A request whose head has been read, waiting for `bodyLength` bytes of body.
    private var head: HTTPRequest?
    private var bodyLength = 0
    private var failure: HTTPParseError?

    /// `maxHeaderBytes` bounds the request line and header fields with their blank line;
    /// `maxBodyBytes` bounds a body's `Content-Length`.
    public init(maxHeaderBytes: Int = 8192, maxBodyBytes: Int = 65536) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
    }

    /// Whether nothing of a request is pending, so a connection closing now loses nothing.
    public var isIdle: Bool { failure == nil && head == nil && buffer.isEmpty }

    /// Adds bytes as they arrive; call `next()` until it returns nil to take the requests.
    public mutating func feed(_ bytes: [UInt8]) { feed(bytes[...]) }

    /// The same for part of a read buffer. Bytes after a refusal are dropped unread.
    public mutating func feed(_ bytes: ArraySlice<UInt8>) {
        if failure == nil { buffer += bytes }
    }

    /// The next complete request, or nil until more bytes arrive. Once it throws it throws the
    /// same error every time: answer with its status and close the connection.
    public mutating func next() throws(HTTPParseError) -> HTTPRequest? {
        if let failure { throw failure }
        do throws(HTTPParseError) {
            return try step()
        } catch {
            failure = error
            buffer = []
            head = nil
            throw error
        }
    }

    private static let cr: UInt8 = 0x0D, lf: UInt8 = 0x0A, sp: UInt8 = 0x20, tab: UInt8 = 0x09

    private mutating func step() throws(HTTPParseError) -> HTTPRequest? {
        if head == nil {
            // Empty lines before a request line are ignored (RFC 9112 section 2.2).
            var skip = 0
            while buffer.count - skip >= 2, buffer[skip] == Self.cr, buffer[skip + 1] == Self.lf { skip += 2 }
            if skip > 0 {
                buffer.removeFirst(skip)
                searched = 0
            }
            guard let end = try blankLineEnd() else {
                if buffer.count >= maxHeaderBytes { throw headTooLong }
                return nil
            }
            let (request, length) = try parseHead(buffer[..<(end - 4)])
            buffer.removeFirst(end)
            searched = 0
            head = request
            bodyLength = length
        }
        guard var request = head, buffer.count >= bodyLength else { return nil }
        request.body = Array(buffer[..<bodyLength])
        buffer.removeFirst(bodyLength)
        head = nil
        return request
    }

    /// The same whether the limit is found out before or after the head's end arrives, so the
    /// refusal never depends on how the bytes were split.
    private var headTooLong: HTTPParseError {
        HTTPParseError(status: 431, reason: "the request line and headers are longer than \(maxHeaderBytes) bytes")
    }

    /// Where the head ends, just after its CRLF CRLF, if that is within `maxHeaderBytes`. A
    /// control byte no head may hold (anything below a space but CR, LF and TAB, or DEL) is
    /// refused as soon as it arrives: binary noise never waits for a blank line that may not
    /// come. The bytes are looked at in order, so the refusal is the same however they were split.
    private mutating func blankLineEnd() throws(HTTPParseError) -> Int? {
        let limit = min(buffer.count, maxHeaderBytes)
        var i = searched
        while i < limit {
            let b = buffer[i]
            if b == 0x7F || b < Self.sp && b != Self.cr && b != Self.lf && b != Self.tab {
                throw Self.bad("a control byte \(Hex.literal(b)) in the request head; is this HTTP?")
            }
            if i >= 3, b == Self.lf, buffer[i - 1] == Self.cr, buffer[i - 2] == Self.lf, buffer[i - 3] == Self.cr {
                return i + 1
            }
            i += 1
        }
        searched = max(searched, limit)
        return nil
    }

    /// Parses the request line and header fields (without the final CRLF CRLF) and checks how
    /// the body is framed; returns the request without its body and the body's length.
    private func parseHead(_ bytes: ArraySlice<UInt8>) throws(HTTPParseError) -> (HTTPRequest, Int) {
        var lines: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex, i = bytes.startIndex
        while i < bytes.endIndex {
            if bytes[i] == Self.cr, i + 1 < bytes.endIndex, bytes[i + 1] == Self.lf {
                lines.append(bytes[start..<i])
                i += 2
                start = i
            } else {
                i += 1
            }
        }
        lines.append(bytes[start..<bytes.endIndex])
        for line in lines where line.contains(Self.cr) || line.contains(Self.lf) {
            throw Self.bad("a bare CR or LF in the line '\(Self.shown(line))'")
        }

        var request = try parseRequestLine(lines[0])
        for line in lines.dropFirst() {
            guard let first = line.first, first != Self.sp, first != Self.tab else {
                throw Self.bad("a header line starting with white space (obsolete line folding)")
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                throw Self.bad("a header line without a colon: '\(Self.shown(line))'")
            }
            let name = line[..<colon]
            guard name.allSatisfy(Self.isTokenByte) else {
                throw Self.bad("the header name '\(Self.shown(name))' is not a token")
            }
            var value = line[(colon + 1)...]
            while let b = value.first, b == Self.sp || b == Self.tab { value = value.dropFirst() }
            while let b = value.last, b == Self.sp || b == Self.tab { value = value.dropLast() }
            // Control bytes never get here: `blankLineEnd` refused them as they arrived.
            request.headers.append((String(decoding: Self.lowercased(Array(name)), as: UTF8.self),
                                    String(decoding: value, as: UTF8.self)))
        }

        if let coding = request.header("transfer-encoding") {
            throw HTTPParseError(status: 501, reason: coding.lowercased() == "chunked"
                ? "chunked transfer coding is not supported; send a Content-Length"
                : "transfer-encoding '\(Self.shown(Array(coding.utf8)[...]))' is not supported")
        }
        var length: Int?
        for field in request.headers where field.name == "content-length" {
            let n = try contentLength(field.value)
            if let length, length != n { throw Self.bad("conflicting content-length headers: \(length) and \(n)") }
            length = n
        }
        return (request, length ?? 0)
    }

    /// `METHOD SP target SP HTTP/x.y`, with the target split into path and query.
    private func parseRequestLine(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> HTTPRequest {
        let parts = line.split(separator: Self.sp, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty, !parts[2].isEmpty else {
            throw Self.bad("the request line '\(Self.shown(line))' is not 'METHOD target HTTP/1.1'")
        }
        let (method, target, version) = (parts[0], parts[1], parts[2])
        guard method.allSatisfy(Self.isTokenByte) else {
            throw Self.bad("the method '\(Self.shown(method))' is not a token")
        }
        guard target.first == UInt8(ascii: "/"), target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw Self.bad("the target '\(Self.shown(target))' is not a path starting with /")
        }
        let v = Array(version)
        let isDigit = { (b: UInt8) in b >= 0x30 && b <= 0x39 }
        guard v.count == 8, v[..<5].elementsEqual("HTTP/".utf8), isDigit(v[5]), v[6] == UInt8(ascii: "."), isDigit(v[7]) else {
            throw Self.bad("the version '\(Self.shown(version))' is not HTTP/x.y")
        }
        let versionText = String(decoding: v, as: UTF8.self)
        guard versionText == "HTTP/1.1" || versionText == "HTTP/1.0" else {
            throw HTTPParseError(status: 505, reason: "\(versionText) is not supported; only HTTP/1.1 and HTTP/1.0 are")
        }

        let question = target.firstIndex(of: UInt8(ascii: "?")) ?? target.endIndex
        var query: [(name: String, value: String)] = []
        if question < target.endIndex {
            for pair in target[(question + 1)...].split(separator: UInt8(ascii: "&")) {
                let equals = pair.firstIndex(of: UInt8(ascii: "=")) ?? pair.endIndex
                let value = equals < pair.endIndex ? pair[(equals + 1)...] : []
                query.append((String(decoding: pair[..<equals], as: UTF8.self), String(decoding: value, as: UTF8.self)))
            }
        }
        return HTTPRequest(method: String(decoding: method, as: UTF8.self),
                           path: String(decoding: target[..<question], as: UTF8.self), query: query, version: versionText)
    }

    /// A `Content-Length` value: decimal digits only (no sign, no list), at most `maxBodyBytes`.
    private func contentLength(_ text: String) throws(HTTPParseError) -> Int {
        let digits = Array(text.utf8)
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw Self.bad("the content-length '\(Self.shown(digits[...]))' is not a plain decimal number")
        }
        var n = 0
        for d in digits {
            n = n * 10 + Int(d - 0x30)
            if n > maxBodyBytes {
                throw HTTPParseError(status: 413, reason: "the content-length \(Self.shown(digits[...])) is over the limit of \(maxBodyBytes) bytes")
            }
        }
        return n
    }

    private static func bad(_ reason: String) -> HTTPParseError { HTTPParseError(status: 400, reason: reason) }

    /// RFC 9110's `tchar`: what a method or a header name may be made of.
    private static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        default: return tokenSymbols.contains(b)
        }
    }

    private static let tokenSymbols = Array("!#$%&'*+-.^_`|~".utf8)

    /// ASCII lower case, for header names (which are ASCII tokens).
    static func lowercased(_ bytes: [UInt8]) -> [UInt8] {
        bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
    }

    /// Request bytes fit for a log line: printable ASCII only, at most 40 bytes.
    private static func shown(_ bytes: ArraySlice<UInt8>) -> String {
        let head = bytes.prefix(40).map { $0 >= 0x20 && $0 < 0x7F ? $0 : UInt8(ascii: "?") }
        return String(decoding: head, as: UTF8.self) + (bytes.count > 40 ? "..." : "")
    }
}

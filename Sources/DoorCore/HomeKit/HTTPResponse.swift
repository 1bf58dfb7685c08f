/// One answer to a HAP controller: a status, an optional typed body, and its bytes on the wire.
public struct HTTPResponse: Equatable, Sendable {
    public var status: Int
    public var contentType: String?
    public var body: [UInt8]

    public init(status: Int, contentType: String? = nil, body: [UInt8] = []) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }

    /// The reason phrase for `status`.
    public var reason: String { Self.reason(for: status) }

    /// The reason phrase of each status HAP uses; empty for others, which HTTP allows.
    public static func reason(for status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 204: return "No Content"
        case 207: return "Multi-Status"
        case 400: return "Bad Request"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 413: return "Payload Too Large"
        case 422: return "Unprocessable Entity"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 470: return "Connection Authorization Required"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 503: return "Service Unavailable"
        case 505: return "HTTP Version Not Supported"
        default: return ""
        }
    }

    /// The response as sent: status line, Content-Type if any, Content-Length, blank line,
    /// body. A 204 has neither body nor Content-Length (RFC 9110 section 8.6), so its body is
    /// not sent.
    public var bytes: [UInt8] {
        if status == 204 { return Array("HTTP/1.1 204 No Content\r\n\r\n".utf8) }
        return Self.message(start: "HTTP/1.1 \(status) \(reason)", contentType: contentType, body: body)
    }

    /// An unsolicited HAP event: the values of subscribed characteristics that changed, sent
    /// as `EVENT/1.0 200 OK` with an `application/hap+json` body on the controller's session.
    public static func event(json: [UInt8]) -> [UInt8] {
        message(start: "EVENT/1.0 200 OK", contentType: "application/hap+json", body: json)
    }

    private static func message(start: String, contentType: String?, body: [UInt8]) -> [UInt8] {
        var head = start + "\r\n"
        if let contentType { head += "Content-Type: \(contentType)\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        return Array(head.utf8) + body
    }
}

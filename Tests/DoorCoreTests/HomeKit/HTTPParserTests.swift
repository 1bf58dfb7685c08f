import XCTest
@testable import DoorCore

/// The HAP server's HTTP: requests however the bytes are split, pipelining, each refusal with
/// its status, query strings, and responses and events byte for byte.
final class HTTPParserTests: XCTestCase {
    private func b(_ s: String) -> [UInt8] { Array(s.utf8) }

    /// Feeds each chunk in turn and takes every request completed so far after each.
    private func requests(_ chunks: [[UInt8]], _ parser: inout HTTPRequestParser) throws -> [HTTPRequest] {
        var out: [HTTPRequest] = []
        for chunk in chunks {
            parser.feed(chunk)
            while let request = try parser.next() { out.append(request) }
        }
        return out
    }

    private func requests(_ text: String) throws -> [HTTPRequest] {
        var parser = HTTPRequestParser()
        return try requests([b(text)], &parser)
    }

    /// The error the parser refuses `text` with, fed in one piece (nil if it does not).
    private func refusal(_ text: String, maxHeaderBytes: Int = 8192, maxBodyBytes: Int = 65536) -> HTTPParseError? {
        var parser = HTTPRequestParser(maxHeaderBytes: maxHeaderBytes, maxBodyBytes: maxBodyBytes)
        parser.feed(b(text))
        do {
            while try parser.next() != nil {}
            return nil
        } catch {
            return error
        }
    }

    private let put = "PUT /characteristics HTTP/1.1\r\nHost: garage._hap._tcp.local\r\n"
        + "Content-Type: application/hap+json\r\nContent-Length: 49\r\n\r\n"
        + #"{"characteristics":[{"aid":1,"iid":9,"value":1}]}"#

    func testARequestFedByteByByteComesOutOnlyWhenItsLastByteArrives() throws {
        let body = #"{"characteristics":[{"aid":1,"iid":9,"value":1}]}"#
        XCTAssertEqual(body.utf8.count, 49)
        let bytes = b(put)
        var parser = HTTPRequestParser()
        XCTAssertTrue(parser.isIdle)
        for byte in bytes.dropLast() {
            parser.feed([byte])
            XCTAssertNil(try parser.next())
            XCTAssertFalse(parser.isIdle)
        }
        parser.feed([bytes.last!])
        let request = try XCTUnwrap(try parser.next())
        XCTAssertEqual(request, HTTPRequest(method: "PUT", path: "/characteristics",
                                            headers: [("host", "garage._hap._tcp.local"),
                                                      ("content-type", "application/hap+json"), ("content-length", "49")],
                                            body: b(body)))
        XCTAssertNil(try parser.next())
        XCTAssertTrue(parser.isIdle)
    }

    /// Binary noise is refused at its first control byte, without waiting for a blank line or
    /// the header limit; a tab inside a header value is not noise.
    func testAControlByteInTheHeadIsRefusedAtOnce() throws {
        XCTAssertEqual(refusal("\u{01}\u{02}\u{03}")?.status, 400)
        XCTAssertEqual(refusal("GET /accessories HTTP/1.1\r\nX-A: b\u{00}c")?.status, 400)
        XCTAssertEqual(refusal("GET /\u{7F} HTTP/1.1")?.status, 400)
        XCTAssertTrue(refusal("GET /a HTTP/1.1\r\nX-A: b\u{00}")?.reason.contains("control byte 0x00") == true)
        XCTAssertEqual(try requests("GET /a HTTP/1.1\r\nX-A: b\tc\r\n\r\n").first?.header("x-a"), "b\tc")
    }

    func testTwoPipelinedRequestsInOneFeedComeOutInOrder() throws {
        let got = try requests(put + "GET /accessories HTTP/1.1\r\nHost: g\r\n\r\n")
        XCTAssertEqual(got.map(\.method), ["PUT", "GET"])
        XCTAssertEqual(got.map(\.path), ["/characteristics", "/accessories"])
        XCTAssertEqual(got.map(\.body.count), [49, 0])
        XCTAssertEqual(got.last?.header("host"), "g")
    }

    func testABodyAcrossFeedsWaitsForItsLastByteAndLeavesTheNextRequestAlone() throws {
        var parser = HTTPRequestParser()
        let head = b("POST /pair-setup HTTP/1.1\r\nContent-Type: application/pairing+tlv8\r\nContent-Length: 6\r\n\r\n")
        var got = try requests([head, [0x00, 0x01, 0x00]], &parser)
        XCTAssertEqual(got, [])
        got = try requests([[0x06, 0x01, 0x01] + b("GET /acc"), b("essories HTTP/1.1\r\n\r")], &parser)
        XCTAssertEqual(got.map(\.body), [[0x00, 0x01, 0x00, 0x06, 0x01, 0x01]])
        XCTAssertFalse(parser.isIdle, "the next request's first bytes are kept")
        got = try requests([b("\n")], &parser)
        XCTAssertEqual(got, [HTTPRequest(method: "GET", path: "/accessories")])
    }

    func testEmptyLinesBeforeARequestAreIgnoredAndHTTP10IsAccepted() throws {
        var parser = HTTPRequestParser()
        let got = try requests([b("\r\n\r"), b("\nGET / HTTP/1.0\r\n\r\n")], &parser)
        XCTAssertEqual(got, [HTTPRequest(method: "GET", path: "/", version: "HTTP/1.0")])
    }

    func testHeaderNamesAreCaseInsensitiveAndValuesTrimmed() throws {
        let got = try requests("POST /identify HTTP/1.1\r\nCONTENT-LENGTH: \t 3 \r\nX-Thing:a b \r\n\r\nabcdef")
        XCTAssertEqual(got.count, 1)
        XCTAssertEqual(got.first?.body, b("abc"), "an upper-case Content-Length still sizes the body")
        XCTAssertEqual(got.first?.headers.map(\.name), ["content-length", "x-thing"])
        XCTAssertEqual(got.first?.header("Content-Length"), "3")
        XCTAssertEqual(got.first?.header("x-THING"), "a b")
        XCTAssertNil(got.first?.header("host"))
        XCTAssertEqual(refusal("POST /identify HTTP/1.1\r\nTransfer-ENCODING: Chunked\r\n\r\n")?.status, 501)
    }

    func testTheQueryIsSplitIntoPairsInOrderAndThePathLeftWithout() throws {
        let got = try requests("GET /characteristics?id=1.9,1.10&ev=1&meta&&perms=1=2 HTTP/1.1\r\n\r\n"
            + "GET /accessories HTTP/1.1\r\n\r\nGET /x? HTTP/1.1\r\n\r\n")
        XCTAssertEqual(got.count, 3)
        XCTAssertEqual(got[0].path, "/characteristics")
        XCTAssertEqual(got[0].query.map(\.name), ["id", "ev", "meta", "perms"])
        XCTAssertEqual(got[0].query.map(\.value), ["1.9,1.10", "1", "", "1=2"])
        XCTAssertEqual(got[0].queryValue("id"), "1.9,1.10")
        XCTAssertNil(got[0].queryValue("type"))
        XCTAssertEqual(got[1].path, "/accessories")
        XCTAssertTrue(got[1].query.isEmpty)
        XCTAssertEqual(got[2].path, "/x")
        XCTAssertTrue(got[2].query.isEmpty)
    }

    func testEachRefusalHasItsStatusAndSaysWhatWasWrong() {
        let cases: [(String, Int, String)] = [
            ("POST /pairings HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", 501,
             "chunked transfer coding is not supported; send a Content-Length"),
            ("POST /pairings HTTP/1.1\r\nTransfer-Encoding: gzip\r\nContent-Length: 1\r\n\r\nx", 501,
             "transfer-encoding 'gzip' is not supported"),
            ("PUT /characteristics HTTP/1.1\r\nContent-Length: 65537\r\n\r\n", 413,
             "the content-length 65537 is over the limit of 65536 bytes"),
            ("PUT /characteristics HTTP/1.1\r\nContent-Length: 99999999999999999999999999\r\n\r\n", 413,
             "the content-length 99999999999999999999999999 is over the limit of 65536 bytes"),
            ("PUT /characteristics HTTP/1.1\r\nContent-Length: 0x10\r\n\r\n", 400,
             "the content-length '0x10' is not a plain decimal number"),
            ("PUT /characteristics HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400,
             "the content-length '-1' is not a plain decimal number"),
            ("PUT /characteristics HTTP/1.1\r\nContent-Length:\r\n\r\n", 400,
             "the content-length '' is not a plain decimal number"),
            ("PUT /characteristics HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n", 400,
             "conflicting content-length headers: 2 and 3"),
            ("GET /accessories\r\n\r\n", 400, "the request line 'GET /accessories' is not 'METHOD target HTTP/1.1'"),
            ("GET  /accessories HTTP/1.1\r\n\r\n", 400,
             "the request line 'GET  /accessories HTTP/1.1' is not 'METHOD target HTTP/1.1'"),
            ("G(T /accessories HTTP/1.1\r\n\r\n", 400, "the method 'G(T' is not a token"),
            ("GET accessories HTTP/1.1\r\n\r\n", 400, "the target 'accessories' is not a path starting with /"),
            ("GET /accessories HTTP/1.1x\r\n\r\n", 400, "the version 'HTTP/1.1x' is not HTTP/x.y"),
            ("GET /accessories HTTP/2.0\r\n\r\n", 505, "HTTP/2.0 is not supported; only HTTP/1.1 and HTTP/1.0 are"),
            ("GET /accessories HTTP/1.1\r\nHost g\r\n\r\n", 400, "a header line without a colon: 'Host g'"),
            ("GET /accessories HTTP/1.1\r\nHost : g\r\n\r\n", 400, "the header name 'Host ' is not a token"),
            ("GET /accessories HTTP/1.1\r\nA: 1\r\n  2\r\n\r\n", 400,
             "a header line starting with white space (obsolete line folding)"),
            ("GET /accessories HTTP/1.1\r\nA: 1\n2\r\n\r\n", 400, "a bare CR or LF in the line 'A: 1?2'"),
            ("GET /accessories HTTP/1.1\r\nA: 1\u{01}\r\n\r\n", 400, "a control byte 0x01 in the request head; is this HTTP?"),
        ]
        for (text, status, reason) in cases {
            XCTAssertEqual(refusal(text), HTTPParseError(status: status, reason: reason), text)
        }
        XCTAssertEqual(refusal("GET / HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nab"), nil,
                       "the same length twice is no conflict")
        XCTAssertEqual(refusal("PUT / HTTP/1.1\r\nContent-Length: 16\r\n\r\n0123456789abcdef", maxBodyBytes: 16), nil)
        XCTAssertEqual(refusal("PUT / HTTP/1.1\r\nContent-Length: 17\r\n\r\n", maxBodyBytes: 16)?.status, 413)
    }

    func testAHeadOverTheLimitIsRefusedWhetherOrNotItsEndHasArrived() throws {
        let exact = "GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 100 - 23) + "\r\n\r\n"
        XCTAssertEqual(exact.utf8.count, 100)
        XCTAssertNil(refusal(exact, maxHeaderBytes: 100))
        let tooLong = HTTPParseError(status: 431, reason: "the request line and headers are longer than 99 bytes")
        XCTAssertEqual(refusal(exact, maxHeaderBytes: 99), tooLong)
        // Without its end: refused as soon as the limit is reached, not buffered forever.
        var parser = HTTPRequestParser(maxHeaderBytes: 99)
        parser.feed(Array(b(exact)[..<98]))
        XCTAssertNil(try parser.next())
        parser.feed(b("a"))
        XCTAssertThrowsError(try parser.next()) { XCTAssertEqual($0 as? HTTPParseError, tooLong) }
    }

    func testAfterARefusalTheParserStaysFailed() throws {
        var parser = HTTPRequestParser()
        parser.feed(b("GET / HTTP/3.0\r\n\r\nGET / HTTP/1.1\r\n\r\n"))
        let first = HTTPParseError(status: 505, reason: "HTTP/3.0 is not supported; only HTTP/1.1 and HTTP/1.0 are")
        XCTAssertThrowsError(try parser.next()) { XCTAssertEqual($0 as? HTTPParseError, first) }
        parser.feed(b("GET / HTTP/1.1\r\n\r\n"))
        XCTAssertThrowsError(try parser.next()) { XCTAssertEqual($0 as? HTTPParseError, first) }
        XCTAssertFalse(parser.isIdle)
        XCTAssertEqual(first.description, "505 HTTP Version Not Supported: HTTP/3.0 is not supported; only HTTP/1.1 and HTTP/1.0 are")
    }

    func testAResponseIsStatusLineTypeLengthBlankLineAndBody() {
        XCTAssertEqual(HTTPResponse(status: 200, contentType: "application/hap+json", body: b("{}")).bytes,
                       b("HTTP/1.1 200 OK\r\nContent-Type: application/hap+json\r\nContent-Length: 2\r\n\r\n{}"))
        XCTAssertEqual(HTTPResponse(status: 470).bytes,
                       b("HTTP/1.1 470 Connection Authorization Required\r\nContent-Length: 0\r\n\r\n"))
        XCTAssertEqual(HTTPResponse(status: 207, contentType: "application/hap+json", body: b("[]")).bytes,
                       b("HTTP/1.1 207 Multi-Status\r\nContent-Type: application/hap+json\r\nContent-Length: 2\r\n\r\n[]"))
        XCTAssertEqual(HTTPResponse(status: 204, contentType: "application/hap+json", body: b("x")).bytes,
                       b("HTTP/1.1 204 No Content\r\n\r\n"), "a 204 has no body and no length")
        XCTAssertEqual(HTTPResponse(status: 299).bytes, b("HTTP/1.1 299 \r\nContent-Length: 0\r\n\r\n"))
        let reasons = [200: "OK", 204: "No Content", 207: "Multi-Status", 400: "Bad Request", 404: "Not Found",
                       405: "Method Not Allowed", 413: "Payload Too Large", 422: "Unprocessable Entity",
                       429: "Too Many Requests", 431: "Request Header Fields Too Large",
                       470: "Connection Authorization Required", 500: "Internal Server Error", 501: "Not Implemented",
                       503: "Service Unavailable", 505: "HTTP Version Not Supported"]
        for (status, reason) in reasons { XCTAssertEqual(HTTPResponse(status: status).reason, reason) }
    }

    func testAnEventIsAnEVENTMessageWithAHAPJSONBody() throws {
        let json = b(#"{"characteristics":[{"aid":1,"iid":10,"value":0}]}"#)
        XCTAssertEqual(HTTPResponse.event(json: json),
                       b("EVENT/1.0 200 OK\r\nContent-Type: application/hap+json\r\nContent-Length: 50\r\n\r\n") + json)
    }
}

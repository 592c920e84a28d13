import SwitchboardHTTP
import Testing

/// One input with the exact outcome the parser must give, whole and split.
struct ParserCase: Sendable, CustomTestStringConvertible {
    var name: String
    var input: [UInt8]
    var limits: HTTPLimits
    var expected: FeedResult

    var testDescription: String { name }

    static func failing(
        _ name: String, _ input: String, _ status: HTTPStatus, limits: HTTPLimits = HTTPLimits(),
        after requests: [HTTPRequest] = []
    ) -> ParserCase {
        ParserCase(
            name: name, input: bytes(input), limits: limits,
            expected: FeedResult(events: requests.map { .request($0) } + [.failure(status)], partial: true))
    }

    static func passing(
        _ name: String, _ input: String, _ requests: [HTTPRequest], partial: Bool = false,
        limits: HTTPLimits = HTTPLimits()
    ) -> ParserCase {
        ParserCase(
            name: name, input: bytes(input), limits: limits,
            expected: FeedResult(events: requests.map { .request($0) }, partial: partial))
    }
}

/// Limits small enough that tests can cross each one with a short request.
let smallLimits = HTTPLimits(
    maxRequestLineBytes: 40, maxHeaderCount: 4, maxHeaderBytes: 100, maxBodyBytes: 16, maxChunkLineBytes: 24)

func get(_ target: String, _ headers: HTTPHeaders = ["Host": "a"], version: HTTPVersion = .http11) -> HTTPRequest {
    HTTPRequest(method: .get, target: target, version: version, headers: headers)
}

enum ParserCorpus {
    static let good: [ParserCase] = [
        .passing("simple GET", "GET / HTTP/1.1\r\nHost: a\r\n\r\n", [get("/")]),
        .passing("bare LF line endings", "GET /x HTTP/1.1\nHost: a\n\n", [get("/x")]),
        .passing("mixed line endings", "GET /x HTTP/1.1\r\nHost: a\n\r\n", [get("/x")]),
        .passing("empty lines before the request line", "\r\n\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", [get("/")]),
        .passing(
            "query and OWS", "GET /p/q?a=1&b=%20x HTTP/1.1\r\nHost:a\r\nX-Y: \t v 1 \t\r\nEmpty:\r\n\r\n",
            [get("/p/q?a=1&b=%20x", ["Host": "a", "X-Y": "v 1", "Empty": ""])]),
        .passing(
            "HEAD and obs-text", "HEAD /h HTTP/1.1\r\nHost: a\r\nX: caf\u{E9}\r\n\r\n",
            [HTTPRequest(method: .head, target: "/h", headers: ["Host": "a", "X": "caf\u{E9}"])]),
        .passing(
            "POST with Content-Length", "POST /m HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello",
            [
                HTTPRequest(
                    method: .post, target: "/m", headers: ["Host": "a", "Content-Length": "5"], body: bytes("hello"))
            ]
        ),
        .passing(
            "repeated equal Content-Length",
            "PUT /m HTTP/1.1\r\nHost: a\r\nContent-Length: 2, 2\r\ncontent-length: 2\r\n\r\nhi",
            [
                HTTPRequest(
                    method: .put, target: "/m",
                    headers: ["Host": "a", "Content-Length": "2, 2", "content-length": "2"],
                    body: bytes("hi"))
            ]),
        .passing(
            "Content-Length zero", "DELETE /d HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n",
            [HTTPRequest(method: .delete, target: "/d", headers: ["Host": "a", "Content-Length": "0"])]),
        .passing(
            "chunked with extensions and trailers",
            "POST /c HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;name=value\r\nhello\r\nA ; ext=\"q\"\r\n, world!!!\r\n0\r\nX-Trailer: t\r\nY: u\r\n\r\n",
            [
                HTTPRequest(
                    method: .post, target: "/c", headers: ["Host": "a", "Transfer-Encoding": "chunked"],
                    body: bytes("hello, world!!!"))
            ]),
        .passing(
            "chunked, bare LF, no trailers, Chunked in caps",
            "PATCH /c HTTP/1.1\nHost: a\nTransfer-Encoding: Chunked\n\n3\nabc\n0\n\n",
            [
                HTTPRequest(
                    method: .patch, target: "/c", headers: ["Host": "a", "Transfer-Encoding": "Chunked"],
                    body: bytes("abc"))
            ]),
        .passing(
            "pipelined GET, POST, GET close",
            "GET /1 HTTP/1.1\r\nHost: a\r\n\r\nPOST /2 HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc"
                + "GET /3 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
            [
                get("/1"),
                HTTPRequest(
                    method: .post, target: "/2", headers: ["Host": "a", "Content-Length": "3"], body: bytes("abc")),
                get("/3", ["Host": "a", "Connection": "close"]),
            ]),
        .passing(
            "pipelined after chunked",
            "POST /1 HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n",
            [
                HTTPRequest(
                    method: .post, target: "/1", headers: ["Host": "a", "Transfer-Encoding": "chunked"],
                    body: bytes("x")),
                get("/2"),
            ]),
        // The trailer section (65 bytes) and the next head (74) would not fit one section of 100:
        // each request's section is counted from nothing (FuzzHTTP found streaming counted both).
        .passing(
            "pipelined after chunked with a trailer section near the limit",
            "POST /1 HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\nD: \(atLimitValue)\r\n\r\n"
                + "GET /2 HTTP/1.1\r\nHost: a\r\nD: \(atLimitValue)\r\n\r\n",
            [
                HTTPRequest(
                    method: .post, target: "/1", headers: ["Host": "a", "Transfer-Encoding": "chunked"],
                    body: bytes("x")),
                get("/2", ["Host": "a", "D": atLimitValue]),
            ], limits: smallLimits),
        .passing(
            "HTTP/1.0 without Host, keep-alive", "GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n",
            [get("/", ["Connection": "Keep-Alive"], version: .http10)]),
        .passing(
            "absolute-form and asterisk-form",
            "GET http://example.com:8080/a/b?c=d HTTP/1.1\r\nHost: example.com\r\n\r\nOPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n",
            [
                get("http://example.com:8080/a/b?c=d", ["Host": "example.com"]),
                HTTPRequest(method: .options, target: "*", headers: ["Host": "a"]),
            ]),
        .passing(
            "extension method", "PURGE /x HTTP/1.1\r\nHost: a\r\n\r\n",
            [HTTPRequest(method: .other("PURGE"), target: "/x", headers: ["Host": "a"])]),
        // Request line of 40 bytes, 4 fields, a header section of 100 bytes (9 + 20 + 6 + 63 + 2), a 16-byte body.
        .passing(
            "exactly at every limit",
            "POST /aaaaaaaaaaaaaaaaaaaaaaaaa HTTP/1.1\r\nHost: a\r\nContent-Length: 16\r\nC: 2\r\nD: \(atLimitValue)\r\n\r\n"
                + "0123456789abcdef",
            [
                HTTPRequest(
                    method: .post, target: "/aaaaaaaaaaaaaaaaaaaaaaaaa",
                    headers: ["Host": "a", "Content-Length": "16", "C": "2", "D": atLimitValue],
                    body: bytes("0123456789abcdef"))
            ], limits: smallLimits),
        .passing("incomplete head", "GET / HTTP/1.1\r\nHost: a\r\n", [], partial: true),
        .passing(
            "incomplete body", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc", [], partial: true),
        .passing(
            "incomplete chunk", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", [],
            partial: true),
        .passing("only empty lines", "\r\n\r\n", [], partial: true),
    ]

    static let bad: [ParserCase] = [
        // 400: request line.
        .failing("method not a token", "GE(T / HTTP/1.1\r\nHost: a\r\n\r\n", .badRequest),
        .failing("two spaces", "GET  / HTTP/1.1\r\nHost: a\r\n\r\n", .badRequest),
        .failing("no target", "GET HTTP/1.1\r\nHost: a\r\n\r\n", .badRequest),
        .failing("no version", "GET /\r\nHost: a\r\n\r\n", .badRequest),
        .failing("lowercase version", "GET / http/1.1\r\nHost: a\r\n\r\n", .badRequest),
        .failing("garbage version", "GET / HTTP/1.1x\r\nHost: a\r\n\r\n", .badRequest),
        .failing("two-digit version", "GET / HTTP/10.1\r\nHost: a\r\n\r\n", .badRequest),
        .failing("target not origin-form", "GET foo HTTP/1.1\r\nHost: a\r\n\r\n", .badRequest),
        .failing("non-ASCII target", "GET /caf\u{E9} HTTP/1.1\r\nHost: a\r\n\r\n", .badRequest),
        .failing("bare CR in request line", "GET /\ra HTTP/1.1\r\nHost: a\r\n\r\n", .badRequest),
        .failing(
            "TLS handshake bytes", "\u{16}\u{03}\u{01}\u{02}\u{00}\u{01}\u{00}\u{01}\u{fc}\u{03}\u{03}\n", .badRequest),
        .failing("endless empty lines", String(repeating: "\r\n", count: 30), .badRequest, limits: smallLimits),
        // 400: header fields.
        .failing("space in field name", "GET / HTTP/1.1\r\nHost: a\r\nBad Name: x\r\n\r\n", .badRequest),
        .failing("space before colon", "GET / HTTP/1.1\r\nHost : a\r\n\r\n", .badRequest),
        .failing("obs-fold", "GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n b\r\n\r\n", .badRequest),
        .failing("whitespace before first field", "GET / HTTP/1.1\r\n Host: a\r\n\r\n", .badRequest),
        .failing("no colon", "GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n", .badRequest),
        .failing("empty field name", "GET / HTTP/1.1\r\nHost: a\r\n: v\r\n\r\n", .badRequest),
        .failing("NUL in value", "GET / HTTP/1.1\r\nHost: a\r\nX: a\u{0}b\r\n\r\n", .badRequest),
        .failing("bare CR in value", "GET / HTTP/1.1\r\nHost: a\r\nX: a\rb\r\n\r\n", .badRequest),
        .failing("HTTP/1.1 without Host", "GET / HTTP/1.1\r\nX: y\r\n\r\n", .badRequest),
        .failing("two Host fields", "GET / HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n", .badRequest),
        // 400: framing and smuggling.
        .failing("Content-Length not digits", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1a\r\n\r\n", .badRequest),
        .failing("Content-Length negative", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", .badRequest),
        .failing("Content-Length plus sign", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +1\r\n\r\n", .badRequest),
        .failing("Content-Length empty", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length:\r\n\r\n", .badRequest),
        .failing(
            "conflicting Content-Length fields",
            "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", .badRequest),
        .failing(
            "conflicting Content-Length list", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 6\r\n\r\n", .badRequest
        ),
        .failing(
            "smuggling: Content-Length and chunked",
            "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            .badRequest),
        .failing(
            "smuggling: chunked then Content-Length",
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n", .badRequest),
        .failing(
            "smuggling: chunked twice", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, chunked\r\n\r\n",
            .badRequest),
        .failing(
            "smuggling: chunked in two fields",
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
            .badRequest),
        .failing(
            "smuggling: empty Transfer-Encoding", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: ,\r\n\r\n",
            .badRequest),
        .failing(
            "Transfer-Encoding in HTTP/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            .badRequest),
        // 400: chunked body.
        .failing("chunk size not hex", chunked("zz\r\nab\r\n0\r\n\r\n"), .badRequest),
        .failing("chunk size missing", chunked("\r\nab\r\n0\r\n\r\n"), .badRequest),
        .failing("chunk size overflow", chunked("fffffffffffffffff1\r\nab\r\n0\r\n\r\n"), .badRequest),
        .failing("chunk size with trailing space only", chunked("2 \r\nab\r\n0\r\n\r\n"), .badRequest),
        .failing("chunk data longer than size", chunked("2\r\nabc\r\n0\r\n\r\n"), .badRequest),
        .failing("control byte in chunk extension", chunked("2;a=\u{1}\r\nab\r\n0\r\n\r\n"), .badRequest),
        .failing("bad trailer field", chunked("2\r\nab\r\n0\r\nBad Trailer: x\r\n\r\n"), .badRequest),
        .failing(
            "chunk-size line over limit", chunked("2;" + String(repeating: "x", count: 30) + "\r\nab\r\n0\r\n\r\n"),
            .badRequest, limits: smallLimits),
        .failing(
            "chunk-size line over limit, unterminated", chunked("2;" + String(repeating: "x", count: 30)), .badRequest,
            limits: smallLimits),
        // 413.
        .failing(
            "Content-Length over limit", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 17\r\n\r\n", .payloadTooLarge,
            limits: smallLimits),
        .failing(
            "Content-Length beyond Int",
            "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999999\r\n\r\n",
            .payloadTooLarge),
        .failing("one chunk over limit", chunked("11\r\n"), .payloadTooLarge, limits: smallLimits),
        .failing(
            "chunked body growing over limit", chunked("8\r\n12345678\r\n8\r\n12345678\r\n1\r\nx\r\n0\r\n\r\n"),
            .payloadTooLarge, limits: smallLimits),
        // 414.
        .failing(
            "request line over limit", "GET /" + String(repeating: "a", count: 40) + " HTTP/1.1\r\nHost: a\r\n\r\n",
            .uriTooLong, limits: smallLimits),
        .failing(
            "request line over limit, unterminated", "GET /" + String(repeating: "a", count: 60), .uriTooLong,
            limits: smallLimits),
        .failing(
            "request line over limit by one", "GET /" + String(repeating: "a", count: 27) + " HTTP/1.1\r\n",
            .uriTooLong, limits: smallLimits),
        // 431.
        .failing(
            "too many fields", "GET / HTTP/1.1\r\nHost: a\r\nB: 1\r\nC: 1\r\nD: 1\r\nE: 1\r\n\r\n",
            .requestHeaderFieldsTooLarge, limits: smallLimits),
        .failing(
            "too many fields, unterminated", "GET / HTTP/1.1\r\nHost: a\r\nB: 1\r\nC: 1\r\nD: 1\r\nE",
            .requestHeaderFieldsTooLarge,
            limits: smallLimits),
        .failing(
            "header section too large",
            "GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "v", count: 100) + "\r\n\r\n",
            .requestHeaderFieldsTooLarge, limits: smallLimits),
        .failing(
            "header section too large, unterminated",
            "GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "v", count: 100),
            .requestHeaderFieldsTooLarge, limits: smallLimits),
        .failing(
            "too many trailer fields", chunked("0\r\nA: 1\r\nB: 1\r\nC: 1\r\nD: 1\r\nE: 1\r\n\r\n"),
            .requestHeaderFieldsTooLarge, limits: smallLimits),
        // 501.
        .failing(
            "gzip transfer coding", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", .notImplemented),
        .failing(
            "gzip then chunked", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
            .notImplemented),
        // 505.
        .failing("HTTP/2.0", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", .httpVersionNotSupported),
        .failing("HTTP/0.9", "GET / HTTP/0.9\r\n\r\n", .httpVersionNotSupported),
        .failing("HTTP/1.2", "GET / HTTP/1.2\r\nHost: a\r\n\r\n", .httpVersionNotSupported),
        // A good request followed by a bad one: the first still comes out.
        .failing(
            "good then bad", "GET / HTTP/1.1\r\nHost: a\r\n\r\nGET / HTTP/3.0\r\n\r\n", .httpVersionNotSupported,
            after: [get("/")]),
    ]

    static let all = good + bad

    /// "D: " + 58 + CRLF = 63 bytes, filling the small header section exactly.
    static let atLimitValue = String(repeating: "x", count: 58)

    static func chunked(_ body: String) -> String {
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" + body
    }
}

import Testing

@testable import SwitchboardHTTP

/// Streams the body of POSTs to /up with a limit of 16 bytes (as `smallLimits`' body limit).
let streamUploads: @Sendable (HTTPMethod, String) -> Int? = { method, path in
    method == .post && path == "/up" ? 16 : nil
}

/// Streams every request's body, held to `limit`.
func streamEverything(limit: Int) -> @Sendable (HTTPMethod, String) -> Int? {
    { _, _ in limit }
}

/// One streamed input with the exact events it must give, whole and split.
struct StreamingCase: Sendable, CustomTestStringConvertible {
    var name: String
    var input: [UInt8]
    var expected: FeedResult

    var testDescription: String { name }

    init(_ name: String, _ input: String, _ events: [FeedResult.Event], partial: Bool = false) {
        self.name = name
        self.input = bytes(input)
        expected = FeedResult(events: events, partial: partial)
    }
}

func post(_ target: String, _ headers: HTTPHeaders) -> HTTPRequest {
    HTTPRequest(method: .post, target: target, headers: headers)
}

enum StreamingCorpus {
    static let hostA: HTTPHeaders = ["Host": "a"]
    static let chunkedHeaders: HTTPHeaders = ["Host": "a", "Transfer-Encoding": "chunked"]

    static let all: [StreamingCase] = [
        StreamingCase(
            "fixed body, then a pipelined GET",
            "POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\nhello worldGET /n HTTP/1.1\r\nHost: a\r\n\r\n",
            [
                .head(post("/up", ["Host": "a", "Content-Length": "11"]), .length(11)),
                .streamedBody(bytes("hello world"), complete: true), .request(get("/n")),
            ]),
        StreamingCase(
            "fixed body exactly at the limit",
            "POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 16\r\n\r\n0123456789abcdef",
            [
                .head(post("/up", ["Host": "a", "Content-Length": "16"]), .length(16)),
                .streamedBody(bytes("0123456789abcdef"), complete: true),
            ]),
        StreamingCase(
            "Content-Length one over the limit: 413 before any body byte",
            "POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 17\r\n\r\n0123456789abcdefg", [.failure(.payloadTooLarge)],
            partial: true),
        StreamingCase(
            "chunked body with extensions and trailers, then a pipelined POST that is not streamed",
            "POST /up HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n"
                + "0\r\nT: 1\r\n\r\nPOST /n HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nok",
            [
                .head(post("/up", chunkedHeaders), .chunked),
                .streamedBody(bytes("hello world"), complete: true),
                .request(
                    HTTPRequest(
                        method: .post, target: "/n", headers: ["Host": "a", "Content-Length": "2"], body: bytes("ok"))),
            ]),
        StreamingCase(
            "chunked body exactly at the limit",
            "POST /up HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n01234567\r\n8\r\n89abcdef\r\n0\r\n\r\n",
            [
                .head(post("/up", chunkedHeaders), .chunked),
                .streamedBody(bytes("0123456789abcdef"), complete: true),
            ]),
        StreamingCase(
            "chunked body crossing the limit: 413 at the chunk that crosses it",
            "POST /up HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n01234567\r\n9\r\n89abcdefg\r\n0\r\n\r\n",
            [
                .head(post("/up", chunkedHeaders), .chunked),
                .streamedBody(bytes("01234567"), complete: false), .failure(.payloadTooLarge),
            ], partial: true),
        StreamingCase(
            "no body at all, then a pipelined GET",
            "POST /up HTTP/1.1\r\nHost: a\r\n\r\nGET /n HTTP/1.1\r\nHost: a\r\n\r\n",
            [.head(post("/up", hostA), .length(0)), .streamedBody([], complete: true), .request(get("/n"))]),
        StreamingCase(
            "Content-Length 0", "POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n",
            [
                .head(post("/up", ["Host": "a", "Content-Length": "0"]), .length(0)),
                .streamedBody([], complete: true),
            ]),
        StreamingCase(
            "an empty chunked body", "POST /up HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            [.head(post("/up", chunkedHeaders), .chunked), .streamedBody([], complete: true)]),
        StreamingCase(
            "a bad chunk line inside a streamed body",
            "POST /up HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\nzz\r\n",
            [
                .head(post("/up", chunkedHeaders), .chunked), .streamedBody(bytes("abc"), complete: false),
                .failure(.badRequest),
            ], partial: true),
        StreamingCase(
            "chunk data longer than its size",
            "POST /up HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n",
            [
                .head(post("/up", chunkedHeaders), .chunked), .streamedBody(bytes("ab"), complete: false),
                .failure(.badRequest),
            ], partial: true),
        StreamingCase(
            "a body cut short", "POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc",
            [
                .head(post("/up", ["Host": "a", "Content-Length": "10"]), .length(10)),
                .streamedBody(bytes("abc"), complete: false),
            ], partial: true),
        StreamingCase(
            "smuggling is refused before a streamed head",
            "POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            [.failure(.badRequest)], partial: true),
        StreamingCase(
            "an invalid Content-Length is refused before a streamed head",
            "POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 1a\r\n\r\n", [.failure(.badRequest)], partial: true),
        StreamingCase(
            "two streamed uploads in a row",
            "POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabcPOST /up HTTP/1.1\r\nHost: a\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n2\r\nde\r\n0\r\n\r\n",
            [
                .head(post("/up", ["Host": "a", "Content-Length": "3"]), .length(3)),
                .streamedBody(bytes("abc"), complete: true), .head(post("/up", chunkedHeaders), .chunked),
                .streamedBody(bytes("de"), complete: true),
            ]),
    ]
}

@Suite("HTTPRequestParser streaming bodies")
struct HTTPRequestParserStreamingTests {
    @Test("whole input gives the expected events", arguments: StreamingCorpus.all)
    func whole(_ testCase: StreamingCase) {
        #expect(feed(testCase.input, limits: smallLimits, streamed: streamUploads) == testCase.expected)
    }

    @Test("every split gives the same events as the whole input", arguments: StreamingCorpus.all)
    func everySplit(_ testCase: StreamingCase) {
        for (label, chunks) in splits(of: testCase.input) {
            let result = feed(chunks, limits: smallLimits, streamed: streamUploads)
            #expect(result == testCase.expected, "\(label)")
            if result != testCase.expected { break }
        }
    }

    /// Streaming is a way of receiving, not another grammar: every corpus input,
    /// with every body streamed (held to the same limit), gives the same requests
    /// and failures as buffering it, each request's head and body joined again.
    @Test("streaming every body gives what buffering gives", arguments: ParserCorpus.all)
    func streamingMatchesBuffering(_ testCase: ParserCase) {
        let buffered = feed(testCase.input, limits: testCase.limits)
        let streamer = streamEverything(limit: testCase.limits.maxBodyBytes)
        for (label, chunks) in [("whole", [testCase.input])] + splits(of: testCase.input) {
            let joined = Self.joined(feed(chunks, limits: testCase.limits, streamed: streamer))
            #expect(joined == buffered, "\(label)")
            if joined != buffered { break }
        }
    }

    /// A fixed body in one read is one piece pointing at the input; nothing is
    /// consumed past it, and `.end` comes with no bytes.
    @Test func aFixedBodyIsOnePieceOfTheInput() {
        var parser = HTTPRequestParser(limits: smallLimits)
        parser.streamedBodyLimit = streamUploads
        let head = bytes("POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\n")
        let input = head + bytes("helloGET")
        let first = parser.parse(input)
        #expect(first.consumed == head.count)
        #expect(first.result == .head(post("/up", ["Host": "a", "Content-Length": "5"]), body: .length(5)))
        let rest = Array(input[head.count...])
        let second = parser.parse(rest)
        #expect(second.consumed == 5 && second.result == .body(0..<5))
        #expect(parser.isBodyEndPending && parser.hasPartialRequest)
        let third = parser.parse([])
        #expect(third.consumed == 0 && third.result == .end)
        #expect(!parser.isBodyEndPending && !parser.hasPartialRequest && !parser.isStreamingBody)
    }

    /// 413 for a declared length over the limit comes with the head's last byte:
    /// not one byte of the body is consumed.
    @Test func anOversizedContentLengthConsumesNothingOfTheBody() {
        var parser = HTTPRequestParser(limits: HTTPLimits())
        parser.streamedBodyLimit = { _, _ in 1000 }
        let head = bytes("POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 1001\r\n\r\n")
        let result = parser.parse(head + [UInt8](repeating: 0x61, count: 1001))
        #expect(result.consumed == head.count && result.result == .failure(.payloadTooLarge))
    }

    /// The streamed limit replaces `maxBodyBytes`, both ways: a streamed body may
    /// be far larger than a buffered one, and is counted without being kept.
    @Test func aStreamedBodyMayExceedTheBufferedLimit() {
        let body = [UInt8](repeating: 0x62, count: 200_000)
        let input = bytes("POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 200000\r\n\r\n") + body
        let result = feed([input], limits: smallLimits, streamed: { _, _ in 1 << 20 })
        #expect(result.events.count == 2 && result.events.last == .streamedBody(body, complete: true))
    }

    /// The predicate is asked with the method and the path (without the query).
    @Test func thePredicateSeesMethodAndPath() {
        let result = feed(
            bytes(
                "POST /up?filename=a.png HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n\r\nxPUT /up HTTP/1.1\r\nHost: a\r\n\r\n"
            ),
            limits: smallLimits, streamed: streamUploads)
        #expect(result.events.count == 3)
        if case .head(let request, .length(1)) = result.events.first {
            #expect(request.queryItem("filename") == "a.png")
        } else {
            Issue.record("no streamed head: \(result)")
        }
        #expect(result.events.last == .request(HTTPRequest(method: .put, target: "/up", headers: ["Host": "a"])))
    }

    /// Streamed events with each head and its body joined into one request.
    static func joined(_ result: FeedResult) -> FeedResult {
        var events: [FeedResult.Event] = []
        var head: HTTPRequest?
        for event in result.events {
            switch event {
            case .head(let request, _): head = request
            case .streamedBody(let body, let complete):
                if complete, var request = head {
                    request.body = body
                    events.append(.request(request))
                }
                head = nil
            case .request, .failure: events.append(event)
            }
        }
        return FeedResult(events: events, partial: result.partial)
    }
}

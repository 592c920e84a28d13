import Testing

@testable import SwitchboardHTTP

@Suite("HTTPRequestParser: good requests")
struct HTTPRequestParserTests {
    static let upgradeHead =
        "GET /v1/ws?token=abc HTTP/1.1\r\nHost: chat.example.com:8080\r\nUpgrade: websocket\r\n"
        + "Connection: keep-alive, Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: switchboard.v1\r\n"
        + "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"
        + "Origin: https://chat.example.com\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64)\r\n\r\n"

    @Test func simpleGet() throws {
        let result = feed("GET /healthz HTTP/1.1\r\nHost: localhost\r\nAccept: */*\r\n\r\n")
        let request = try #require(result.requests.first)
        #expect(request.method == .get)
        #expect(request.target == "/healthz")
        #expect(request.path == "/healthz")
        #expect(request.query == nil)
        #expect(request.version == .http11)
        #expect(request.headers.first("host") == "localhost")
        #expect(request.headers.first("ACCEPT") == "*/*")
        #expect(request.body.isEmpty)
        #expect(request.keepAlive)
        #expect(!result.partial)
    }

    @Test func postWithContentLength() throws {
        let result = feed(
            "POST /api HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n{\"a\":\"b c\"}\n"
        )
        let request = try #require(result.requests.first)
        #expect(request.method == .post)
        #expect(request.body == bytes("{\"a\":\"b c\"}\n"))
        #expect(result.events.count == 1)
    }

    @Test func chunkedWithExtensionsAndTrailers() throws {
        let result = feed(
            "POST /c HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "4;a=1;b=\"x y\"\r\nWiki\r\n6\r\npedia \r\nE\r\nin \r\n\r\nchunks.\r\n0;z\r\nExpires: never\r\n\r\n")
        let request = try #require(result.requests.first)
        #expect(request.body == bytes("Wikipedia in \r\n\r\nchunks."))
        // Trailers are discarded, not merged into the header fields.
        #expect(request.headers.first("Expires") == nil)
    }

    /// After an Upgrade the bytes behind the head belong to WebSocket: the parser
    /// must stop exactly at the end of the head.
    @Test func upgradeStopsAtEndOfHead() throws {
        let head = bytes(Self.upgradeHead)
        let frame: [UInt8] = [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
        var parser = HTTPRequestParser(limits: HTTPLimits())
        let (consumed, result) = parser.parse(head + frame)
        #expect(consumed == head.count)
        guard case .request(let request) = result else {
            Issue.record("expected a request, got \(result)")
            return
        }
        #expect(request.isUpgrade)
        #expect(request.headers.contains("connection", token: "upgrade"))
        #expect(request.path == "/v1/ws")
        #expect(request.queryItems().first?.1 == "abc")
        #expect(!parser.hasPartialRequest)
    }

    @Test func pipelinedRequestsComeOutOneAtATime() {
        var parser = HTTPRequestParser(limits: HTTPLimits())
        let input = bytes("GET /1 HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\nGET /3")
        let first = parser.parse(input)
        #expect(first.consumed == 28)
        #expect(first.result == .request(get("/1")))
        let second = parser.parse(Array(input[first.consumed...]))
        #expect(second.consumed == 28)
        #expect(second.result == .request(get("/2")))
        #expect(!parser.hasPartialRequest)
        let third = parser.parse(Array(input[(first.consumed + second.consumed)...]))
        #expect(third.consumed == 6)
        #expect(third.result == .needMore)
        #expect(parser.hasPartialRequest)
    }

    @Test func partialRequestFlagFollowsTheRequest() {
        var parser = HTTPRequestParser(limits: HTTPLimits())
        #expect(!parser.hasPartialRequest)
        #expect(parser.parse([]).result == .needMore)
        #expect(!parser.hasPartialRequest)
        _ = parser.parse(bytes("G"))
        #expect(parser.hasPartialRequest)
        _ = parser.parse(bytes("ET / HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n"))
        #expect(parser.hasPartialRequest, "waiting for the body still counts")
        let last = parser.parse(bytes("ok"))
        #expect(last.consumed == 2)
        #expect(!parser.hasPartialRequest)
    }

    @Test(
        "keep-alive rules (RFC 9112 9.3)",
        arguments: [
            ("HTTP/1.1", "", true),
            ("HTTP/1.1", "Connection: close\r\n", false),
            ("HTTP/1.1", "Connection: Keep-Alive, CLOSE\r\n", false),
            ("HTTP/1.1", "Connection: keep-alive\r\n", true),
            ("HTTP/1.1", "Connection: Upgrade\r\n", true),
            ("HTTP/1.0", "", false),
            ("HTTP/1.0", "Connection: keep-alive\r\n", true),
            ("HTTP/1.0", "Connection: foo,  keep-alive \r\n", true),
            ("HTTP/1.0", "Connection: close\r\n", false),
        ])
    func keepAlive(version: String, connection: String, expected: Bool) throws {
        let result = feed("GET / \(version)\r\nHost: a\r\n\(connection)\r\n")
        let request = try #require(result.requests.first)
        #expect(request.keepAlive == expected)
    }

    @Test func queryDecoding() throws {
        let result = feed(
            "GET /s?q=hello+world&x=%E2%9C%93&empty=&flag&&a%3Db=c%26d&bad=%zz HTTP/1.1\r\nHost: a\r\n\r\n")
        let request = try #require(result.requests.first)
        #expect(request.path == "/s")
        #expect(request.query == "q=hello+world&x=%E2%9C%93&empty=&flag&&a%3Db=c%26d&bad=%zz")
        let items = request.queryItems()
        #expect(items.map(\.0) == ["q", "x", "empty", "flag", "a=b", "bad"])
        #expect(items.map(\.1) == ["hello world", "\u{2713}", "", "", "c&d", "%zz"])
        #expect(request.queryItem("x") == "\u{2713}")
    }

    @Test func pathIsNotPercentDecoded() throws {
        let request = try #require(feed("GET /a%2Fb/c%20d? HTTP/1.1\r\nHost: a\r\n\r\n").requests.first)
        #expect(request.path == "/a%2Fb/c%20d")
        #expect(request.query == "")
        #expect(request.queryItems().isEmpty)
    }

    @Test func headersKeepOrderAndDuplicates() throws {
        let request = try #require(
            feed("GET / HTTP/1.1\r\nHost: a\r\nAccept: x\r\nX-A: 1\r\naccept: y\r\n\r\n").requests.first)
        #expect(request.headers.fields.map(\.name) == ["Host", "Accept", "X-A", "accept"])
        #expect(request.headers.values("ACCEPT") == ["x", "y"])
    }

    /// Repeated requests on one parser: each is complete, and each of its bytes
    /// was searched for a line end once (no per-request rescans; speed is the
    /// benchmarks' business).
    @Test func parsesATypicalUpgradeRequestInOnePass() {
        let head = bytes(Self.upgradeHead)
        var parser = HTTPRequestParser(limits: HTTPLimits())
        let iterations = 2_000
        var completed = 0
        for _ in 0..<iterations {
            if case .request = parser.parse(head).result { completed += 1 }
        }
        #expect(completed == iterations)
        #expect(parser.lineEndSearchBytes == head.count * iterations)
    }
}

import SwitchboardDeflate
import SwitchboardWebSocket
import Testing

struct WebSocketHandshakeTests {
    static let goodHeaders: [String: String] = [
        "host": "chat.example.com",
        "upgrade": "websocket",
        "connection": "Upgrade",
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
        "sec-websocket-version": "13",
        "origin": "https://chat.example.com",
    ]

    func accept(
        method: String = "GET", isHTTP11: Bool = true, headers: [String: String] = goodHeaders,
        allowedOrigins: [String] = [], deflate: DeflateConfiguration = DeflateConfiguration()
    ) -> Result<WebSocketHandshakeAccept, WebSocketHandshakeFailure> {
        WebSocketHandshake.accept(
            method: method, isHTTP11: isHTTP11, header: { headers[$0.lowercased()] },
            allowedOrigins: AllowedOrigins(allowedOrigins),
            deflate: deflate)
    }

    func headers(_ changes: [String: String?]) -> [String: String] {
        var result = Self.goodHeaders
        for (name, value) in changes { result[name] = value }
        return result
    }

    /// RFC 6455 1.3 example key and accept value.
    @Test func acceptsTheRFCExample() throws {
        let accepted = try accept().get()
        let head = String(decoding: accepted.responseHead, as: UTF8.self)
        #expect(
            head
                == "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n")
        #expect(accepted.deflate == nil)
        #expect(accepted.subprotocol == nil)
        #expect(WebSocketHandshake.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func selectsSubprotocolAndDeflate() throws {
        let accepted = try accept(
            headers: headers([
                "sec-websocket-protocol": "chat, switchboard.v1",
                "sec-websocket-extensions": "permessage-deflate; client_max_window_bits",
                "connection": "keep-alive, Upgrade", "upgrade": "WebSocket",
            ])
        ).get()
        let head = String(decoding: accepted.responseHead, as: UTF8.self)
        #expect(head.contains("\r\nSec-WebSocket-Protocol: switchboard.v1\r\n"))
        #expect(head.contains("\r\nSec-WebSocket-Extensions: permessage-deflate\r\n"))
        #expect(head.hasSuffix("\r\n\r\n"))
        #expect(accepted.subprotocol == "switchboard.v1")
        #expect(accepted.deflate == DeflateParameters())
    }

    @Test func omitsUnofferedOrDisabledOptions() throws {
        let accepted = try accept(
            headers: headers(["sec-websocket-protocol": "chat", "sec-websocket-extensions": "permessage-deflate"]),
            deflate: DeflateConfiguration(enabled: false)
        ).get()
        let head = String(decoding: accepted.responseHead, as: UTF8.self)
        #expect(!head.contains("Sec-WebSocket-Protocol"))
        #expect(!head.contains("Sec-WebSocket-Extensions"))
    }

    @Test func allowsListedOriginsAndClientsWithoutOrigin() throws {
        let allowed = ["https://Chat.Example.com"]
        _ = try accept(allowedOrigins: allowed).get()
        _ = try accept(headers: headers(["origin": nil]), allowedOrigins: allowed).get()
    }

    struct FailureCase: CustomTestStringConvertible, Sendable {
        var name: String
        var method = "GET"
        var isHTTP11 = true
        var changes: [String: String?] = [:]
        var allowedOrigins: [String] = []
        var status: Int
        var testDescription: String { name }
    }

    static let failures: [FailureCase] = [
        FailureCase(name: "POST", method: "POST", status: 405),
        FailureCase(name: "HTTP/1.0", isHTTP11: false, status: 400),
        FailureCase(name: "no Upgrade", changes: ["upgrade": nil], status: 400),
        FailureCase(name: "Upgrade: h2c", changes: ["upgrade": "h2c"], status: 400),
        FailureCase(name: "no Connection", changes: ["connection": nil], status: 400),
        FailureCase(name: "Connection: keep-alive", changes: ["connection": "keep-alive"], status: 400),
        FailureCase(name: "no key", changes: ["sec-websocket-key": nil], status: 400),
        FailureCase(name: "key not base64", changes: ["sec-websocket-key": "not a base64 key!!!!!=="], status: 400),
        FailureCase(name: "key of 15 bytes", changes: ["sec-websocket-key": "AAAAAAAAAAAAAAAAAAAA"], status: 400),
        FailureCase(name: "key of 17 bytes", changes: ["sec-websocket-key": "AAAAAAAAAAAAAAAAAAAAAAA="], status: 400),
        FailureCase(name: "key unpadded", changes: ["sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ"], status: 400),
        FailureCase(
            name: "key repeated", changes: ["sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==, dGhlIHNhbXBsZSBub25jZQ=="],
            status: 400),
        FailureCase(name: "version 8", changes: ["sec-websocket-version": "8"], status: 426),
        FailureCase(name: "version 13, 8", changes: ["sec-websocket-version": "13, 8"], status: 426),
        FailureCase(name: "no version", changes: ["sec-websocket-version": nil], status: 400),
        FailureCase(name: "foreign origin", allowedOrigins: ["https://chat.example.org"], status: 403),
    ]

    @Test(arguments: failures)
    func refuses(_ testCase: FailureCase) {
        let result = accept(
            method: testCase.method, isHTTP11: testCase.isHTTP11, headers: headers(testCase.changes),
            allowedOrigins: testCase.allowedOrigins)
        guard case .failure(let failure) = result else {
            Issue.record("accepted")
            return
        }
        #expect(failure.status == testCase.status)
        if testCase.status == 426 {
            #expect(failure.extraHeaders.contains { $0.0 == "Sec-WebSocket-Version" && $0.1 == "13" })
        }
    }

    @Test(
        "a client accepts the 101 only with the accept value for its key",
        arguments: [
            ("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", true),
            ("sec-websocket-accept:s3pPLMBiTxaQ9kYGzzhZRbK+xOo= \t", true),
            ("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo", false),
            ("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=x", false),
            ("Sec-WebSocket-Accept: S3PPLMBITXAQ9KYGZZHZRBK+XOO=", false),
            ("X-Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", false),
        ])
    func clientChecksTheAcceptValue(line: String, accepted: Bool) {
        let head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\(line)\r\n\r\n"
        #expect(WebSocketHandshake.responseAccepts(head, key: "dGhlIHNhbXBsZSBub25jZQ==") == accepted)
    }
}

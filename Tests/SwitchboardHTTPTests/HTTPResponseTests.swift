import SwitchboardHTTP
import Testing

@Suite("HTTPResponse")
struct HTTPResponseTests {
    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func serializesWithContentLength() {
        let response = HTTPResponse.text(.ok, "hi")
        #expect(
            text(response.serialize(keepAlive: true))
                == "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 2\r\n\r\nhi")
    }

    @Test func closesWhenNotKeepingAlive() {
        let response = HTTPResponse(status: .notFound, headers: [("Connection", "keep-alive")], body: bytes("x"))
        #expect(
            text(response.serialize(keepAlive: false))
                == "HTTP/1.1 404 Not Found\r\nContent-Length: 1\r\nConnection: close\r\n\r\nx")
    }

    @Test func headOnlyKeepsContentLengthButNoBody() {
        let response = HTTPResponse.json(.ok, #"{"a":1}"#)
        #expect(
            text(response.serialize(keepAlive: true, headOnly: true))
                == "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n")
    }

    @Test func switchingProtocolsHasNoContentLengthNorClose() {
        let response = HTTPResponse(
            status: .switchingProtocols,
            headers: [
                ("Upgrade", "websocket"), ("Connection", "Upgrade"),
                ("Sec-WebSocket-Accept", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="),
            ])
        #expect(
            text(response.serialize(keepAlive: false))
                == "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n")
    }

    @Test func noContentHasNoContentLength() {
        #expect(text(HTTPResponse(status: .noContent).serialize(keepAlive: true)) == "HTTP/1.1 204 No Content\r\n\r\n")
    }

    @Test func callerContentLengthIsReplaced() {
        let response = HTTPResponse(status: .ok, headers: [("content-length", "999")], body: bytes("abc"))
        #expect(text(response.serialize(keepAlive: true)) == "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc")
    }

    @Test func headerValuesCannotSplitTheResponse() {
        let response = HTTPResponse(status: .ok, headers: [("X-Name", "a\r\nSet-Cookie: evil=1")])
        let serialized = text(response.serialize(keepAlive: true))
        #expect(serialized == "HTTP/1.1 200 OK\r\nX-Name: a  Set-Cookie: evil=1\r\nContent-Length: 0\r\n\r\n")
    }

    @Test func errorBody() {
        let response = HTTPResponse.error(.notFound, code: "not_found", message: "no such session")
        #expect(response.status == .notFound)
        #expect(response.headers.first { $0.0 == "Content-Type" }?.1 == "application/json")
        #expect(text(response.body) == #"{"error":{"code":"not_found","message":"no such session"}}"#)
    }

    @Test func errorBodyEscapesJSON() {
        let response = HTTPResponse.error(
            .badRequest, code: "bad_request",
            message: "field \"title\" \\ bad\n\t\r\u{8}\u{C}\u{1}\u{1F}\u{7F} caf\u{E9} \u{1F600}\u{2028}")
        #expect(
            text(response.body)
                == #"{"error":{"code":"bad_request","message":"field \"title\" \\ bad\n\t\r\b\f\u0001\u001f\u007f café 😀\u2028"}}"#
        )
    }

    @Test func statusCodes() {
        #expect(HTTPStatus.badRequest.code == 400)
        #expect(HTTPStatus.methodNotAllowed.code == 405)
        #expect(HTTPStatus.requestTimeout.code == 408)
        #expect(HTTPStatus.payloadTooLarge.code == 413)
        #expect(HTTPStatus.uriTooLong.code == 414)
        #expect(HTTPStatus.upgradeRequired.code == 426)
        #expect(HTTPStatus.tooManyRequests.code == 429)
        #expect(HTTPStatus.requestHeaderFieldsTooLarge.code == 431)
        #expect(HTTPStatus.notImplemented.code == 501)
        #expect(HTTPStatus.serviceUnavailable.code == 503)
        #expect(HTTPStatus.httpVersionNotSupported.code == 505)
    }
}

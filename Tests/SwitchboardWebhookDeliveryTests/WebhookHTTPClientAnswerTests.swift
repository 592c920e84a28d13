import SwitchboardSystem
import SwitchboardWebhookDelivery
import SwitchboardWebhooks
import Testing

/// The webhook HTTP client against answers written byte by byte: the framings
/// receivers use, connections they close, and what is not HTTP at all.
@Suite struct WebhookHTTPClientAnswerTests {
    let client: WebhookHTTPClient

    init() throws {
        client = try WebhookHTTPClient(
            settings: .init(connectTimeoutMilliseconds: 2000, timeoutMilliseconds: 3000, allowPrivateTargets: true))
    }

    func post(_ server: ScriptedServer, _ path: String = "/") -> WebhookHTTPResponse {
        client.send(WebhookHTTPRequest(url: "http://127.0.0.1:\(server.port)\(path)", headers: [], body: "{}"))
    }

    /// A receiver that closes a kept-alive connection while it is idle (its
    /// own idle timeout): the next request, sent on it before the client
    /// noticed, goes again on a new connection, without a failed attempt.
    @Test func goesAgainOnANewConnectionWhenAKeptOneWasClosed() throws {
        let ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
        let server = try ScriptedServer(answers: [ok, ok, ok], answersPerConnection: 1)
        defer { server.stop() }
        let first = post(server, "/1")
        // The server has closed the connection by now; no poll ran to see it.
        ThisProcess.sleep(milliseconds: 200)
        let second = post(server, "/2")
        #expect(first.statusCode == 200 && first.newConnections == 1)
        #expect(second.statusCode == 200 && second.error == nil && second.responseHead == "ok")
        #expect(second.newConnections == 1)
        #expect(server.acceptedConnections == 2)
        #expect(server.requestLines == ["POST /1 HTTP/1.1", "POST /2 HTTP/1.1"])
    }

    @Test func readsChunkedAnswersAndKeepsTheirConnection() throws {
        let chunked =
            "HTTP/1.1 202 Accepted\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n4;x=y\r\ndefg\r\n0\r\n\r\n"
        let server = try ScriptedServer(answers: [chunked, chunked])
        defer { server.stop() }
        let responses = [post(server), post(server)]
        #expect(responses.map(\.statusCode) == [202, 202])
        #expect(responses.map(\.responseHead) == ["abcdefg", "abcdefg"])
        #expect(responses.map(\.newConnections) == [1, 0])
        #expect(server.acceptedConnections == 1)
    }

    /// Without a length the answer ends with the connection, which is then not reused.
    @Test func readsAnAnswerThatEndsWithTheConnection() throws {
        let server = try ScriptedServer(
            answers: ["HTTP/1.1 200 OK\r\n\r\nto the end", "HTTP/1.1 200 OK\r\n\r\nagain"], answersPerConnection: 1)
        defer { server.stop() }
        let responses = [post(server), post(server)]
        #expect(responses.map(\.statusCode) == [200, 200])
        #expect(responses.map(\.error) == [nil, nil])
        #expect(responses.map(\.responseHead) == ["to the end", "again"])
        #expect(responses.map(\.newConnections) == [1, 1])
    }

    /// A body cut short still has its status, which decides; the error says what broke.
    @Test func anAnswerCutShortKeepsItsStatus() throws {
        let server = try ScriptedServer(answers: ["HTTP/1.1 503 Busy\r\nContent-Length: 10\r\n\r\nabc"])
        defer { server.stop() }
        let response = post(server)
        #expect(response.statusCode == 503)
        #expect(
            response.error == .transfer("the answer is not HTTP/1.1: the connection closed in the middle of the answer")
        )
        #expect(response.result == .answered(statusCode: 503, responseHead: "abc"))
    }

    @Test func somethingElseThanHTTPIsATransferError() throws {
        let server = try ScriptedServer(answers: ["SSH-2.0-OpenSSH_9.2\r\n\r\n"])
        defer { server.stop() }
        let response = post(server)
        #expect(response.statusCode == nil)
        #expect(response.error == .transfer("the answer is not HTTP/1.1: a bad status line"))
        #expect(response.result.failure == .transferError)
    }

    /// Two lengths that disagree could make one answer run into the next: refused, the connection dropped.
    @Test func anAmbiguousAnswerIsRefusedAndItsConnectionDropped() throws {
        let server = try ScriptedServer(
            answers: [
                "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 30\r\n\r\nok",
                "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
            ], answersPerConnection: 2)
        defer { server.stop() }
        let first = post(server)
        let second = post(server)
        #expect(first.result.failure == .transferError)
        #expect(second.statusCode == 200 && second.newConnections == 1)
    }

    /// A host name is resolved (off the thread) and its address checked like a literal's.
    @Test func resolvesAHostName() throws {
        let server = try ScriptedServer(answers: ["HTTP/1.1 204 No Content\r\n\r\n"])
        defer { server.stop() }
        let response = client.send(
            WebhookHTTPRequest(url: "http://localhost:\(server.port)/named", headers: [], body: "{}"))
        #expect(response.statusCode == 204, "\(String(describing: response.error))")
        #expect(server.requestLines == ["POST /named HTTP/1.1"])
    }

    /// Header lines come from the dispatcher, but a line break in one would
    /// let it write a header (or a request) of its own: refused unsent, as is
    /// any name that is not a token and any value with a control character.
    @Test func refusesAHeaderThatWouldBreakTheRequestsLines() throws {
        let server = try ScriptedServer(answers: ["HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"])
        defer { server.stop() }
        let refused = [
            WebhookHeader("x-a", "1\r\nx-b: 2"), WebhookHeader("x-a", "1\nx-b: 2"), WebhookHeader("x-a\r\nx-b", "2"),
            WebhookHeader("x-a: 1\r\nx-b", "2"), WebhookHeader("x a", "1"), WebhookHeader("", "1"),
            WebhookHeader("x-a", "1\u{0}"),
        ]
        for header in refused {
            let response = client.send(
                WebhookHTTPRequest(url: "http://127.0.0.1:\(server.port)/", headers: [header], body: "{}"))
            #expect(response.statusCode == nil, "\(header)")
            #expect(response.result.failure == .transferError, "\(header)")
        }
        #expect(server.acceptedConnections == 0)
    }
}

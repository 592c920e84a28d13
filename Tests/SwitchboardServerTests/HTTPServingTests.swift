import Foundation
import Testing

@testable import SwitchboardServer

/// The HTTP/1.1 layer, in-process over in-memory connections: routes,
/// keep-alive and every refusal status. Deadlines fire when the test
/// advances the loops' clocks.
@Suite struct HTTPServingTests {
    // Swift reads "\r\n" as one Character, so split on the string.
    private func statusLine(of head: String) -> String { head.components(separatedBy: "\r\n").first ?? "" }

    @Test func healthzAnswersAndKeepsAlive() throws {
        let gateway = try EmbeddedGateway()
        defer { gateway.stop() }
        let client = gateway.client()
        for _ in 0..<3 {
            client.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            let head = client.readHead()
            #expect(statusLine(of: head) == "HTTP/1.1 200 OK")
            let length =
                Int(
                    head.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }?
                        .split(separator: ":")[1].trimmingCharacters(in: .whitespaces) ?? "0") ?? 0
            let body = String(decoding: client.read(count: length), as: UTF8.self)
            #expect(body == #"{"status":"ok"}"#)
        }
        #expect(client.connection.isOpen)
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let gateway = try EmbeddedGateway()
        defer { gateway.stop() }
        let client = gateway.client()
        client.send(
            "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let all = String(decoding: client.readToEnd(), as: UTF8.self)
        let first = all.range(of: "HTTP/1.1 200 OK")
        let second = all.range(of: "HTTP/1.1 404 Not Found")
        #expect(first != nil && second != nil && first!.lowerBound < second!.lowerBound)
    }

    @Test(arguments: [
        ("GARBAGE\r\n\r\n", "400"),
        ("GET / HTTP/1.1\r\n\r\n", "400"),  // HTTP/1.1 without Host
        ("GET / HTTP/2.0\r\nHost: x\r\n\r\n", "505"),
        ("POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", "405"),
        ("GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\nHost: x\r\n\r\n", "414"),
        ("GET / HTTP/1.1\r\nHost: x\r\n" + String(repeating: "X-A: b\r\n", count: 80) + "\r\n", "431"),
        ("GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "b", count: 17000) + "\r\n\r\n", "431"),
        ("POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n", "413"),
        ("GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", "400"),
    ])
    func badRequestsGetTheirStatusAndAClose(request: String, status: String) throws {
        let gateway = try EmbeddedGateway()
        defer { gateway.stop() }
        let client = gateway.client()
        client.send(request)
        let response = String(decoding: client.readToEnd(), as: UTF8.self)
        #expect(response.hasPrefix("HTTP/1.1 \(status) "), "got: \(response.prefix(80))")
        #expect(response.contains(#"{"error":{"code":"#))
    }

    /// The response, then the close at once: no deadline has to pass for it.
    @Test func halfClosingClientGetsItsResponseAndAPromptClose() throws {
        let gateway = try EmbeddedGateway()
        defer { gateway.stop() }
        let client = gateway.client()
        client.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        client.shutdownWrite()
        let started = Date()
        let response = String(decoding: client.readToEnd(), as: UTF8.self)
        #expect(response.hasPrefix("HTTP/1.1 200 OK"))
        #expect(client.isAtEnd)
        #expect(Date().timeIntervalSince(started) < 1)
    }

    /// Nothing before the header timeout; the 408 and the close when it passes.
    @Test func slowRequestHeadGets408() throws {
        let gateway = try EmbeddedGateway { $0.headerTimeoutSeconds = 1 }
        defer { gateway.stop() }
        let client = gateway.client()
        client.send("GET /healthz HTTP/1.1\r\nHost: x\r\n")  // never finished
        gateway.advance(by: 999)
        #expect(client.available == 0 && client.connection.isOpen)
        gateway.advance(by: 1)
        let response = String(decoding: client.readToEnd(), as: UTF8.self)
        #expect(response.hasPrefix("HTTP/1.1 408 "))
        #expect(client.isAtEnd)
    }

    @Test func echoEndpointIsOffUnlessConfigured() throws {
        let gateway = try EmbeddedGateway { $0.echoEndpoint = false }
        defer { gateway.stop() }
        let head = gateway.client().upgrade()
        #expect(statusLine(of: head) == "HTTP/1.1 404 Not Found")
    }
}

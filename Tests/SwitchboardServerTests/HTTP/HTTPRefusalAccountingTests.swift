import Foundation
import Testing

@testable import SwitchboardServer

/// What the HTTP layer reports about refusals: request counters under the
/// right route, and no database detail in /readyz's unauthenticated body.
@Suite struct HTTPRefusalAccountingTests {
    private func scrape(_ gateway: any TestGateway) throws -> [String: Double] {
        let reply = try HTTPTestClient.request(gateway, "GET", "/metrics")
        #expect(reply.status == 200)
        var samples: [String: Double] = [:]
        for line in String(decoding: reply.body, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Double(parts[1]) { samples[String(parts[0])] = value }
        }
        return samples
    }

    private func requests(_ route: String, _ status: Int) -> String {
        #"switchboard_http_requests_total{route="\#(route)",status="\#(status)"}"#
    }

    /// Answers GET /healthz on `client`'s keep-alive connection and reads the whole response.
    private func healthz(_ client: any ClientStream) {
        client.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = client.readHead()
        #expect(head.hasPrefix("HTTP/1.1 200 OK"))
        _ = client.read(count: #"{"status":"ok"}"#.utf8.count)
    }

    @Test func refusalsAfterAnAnsweredRequestAreNotCountedUnderItsRoute() throws {
        let gateway = try EmbeddedGateway { $0.headerTimeoutSeconds = 1 }
        defer { gateway.stop() }

        let malformed = gateway.client()
        healthz(malformed)
        malformed.send("GARBAGE\r\n\r\n")
        #expect(String(decoding: malformed.readToEnd(), as: UTF8.self).hasPrefix("HTTP/1.1 400 "))

        let slow = gateway.client()
        healthz(slow)
        slow.send("GET /healthz HTTP/1.1\r\nHost: x\r\n")  // never finished
        gateway.advance(by: 1000)  // the header timeout
        #expect(String(decoding: slow.readToEnd(), as: UTF8.self).hasPrefix("HTTP/1.1 408 "))

        let samples = try scrape(gateway)
        #expect(samples[requests("healthz", 200)] == 2)
        #expect(samples[requests("other", 400)] == 1)
        #expect(samples[requests("other", 408)] == 1)
        #expect(samples[requests("healthz", 400)] == nil)
        #expect(samples[requests("healthz", 408)] == nil)
    }

    @Test func readyzDoesNotShowWhyTheDatabaseIsUnreachable() throws {
        // Port 1 on loopback: nothing listens, so libpq's error names host, port and user.
        let url = "postgresql://secret_user@127.0.0.1:1/secret_db"
        let gateway = try EmbeddedGateway { configuration in
            configuration.databaseURL = url
            configuration.jwtSecret = ChatFixture.secret
        }
        defer { gateway.stop() }
        let reply = try HTTPTestClient.request(gateway, "GET", "/readyz")
        #expect(reply.status == 503)
        #expect(reply.errorCode == "unavailable")
        #expect(reply.errorMessage == "the database is unreachable; retry later")
        let body = String(decoding: reply.body, as: UTF8.self)
        for detail in ["127.0.0.1", "secret_user", "secret_db", "port"] {
            #expect(!body.contains(detail), "\(detail) in \(body)")
        }
    }
}

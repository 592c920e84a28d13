import Foundation
import SwitchboardAuth
import Testing

@testable import SwitchboardServer

/// The browser clients' files, the development tokens and CORS, served in-process.
@Suite struct WebServingTests {
    @Test func pagesComeFromTheBinaryWithValidatorsAndAStrictPolicy() throws {
        let gateway = try EmbeddedGateway()
        defer { gateway.stop() }
        let page = try HTTPTestClient.request(gateway, "GET", "/")
        #expect(page.status == 200)
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        #expect(page.header("Cache-Control") == "no-cache")
        let policy = try #require(page.header("Content-Security-Policy"))
        #expect(policy.contains("script-src 'self'") && !policy.contains("unsafe-inline"))
        let etag = try #require(page.header("ETag"))
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))
        #expect(String(decoding: page.body, as: UTF8.self).contains("Switchboard"))

        let again = try HTTPTestClient.request(
            gateway, "GET", "/", headers: [("If-None-Match", "\"other\", \(etag)")])
        #expect(again.status == 304 && again.body.isEmpty && again.header("Content-Length") == nil)
        let head = try HTTPTestClient.request(gateway, "HEAD", "/")
        #expect(head.status == 200 && head.body.isEmpty)
    }

    @Test func everyClientFileIsServedWithItsContentType() throws {
        let gateway = try EmbeddedGateway()
        defer { gateway.stop() }
        let expected = [
            "/sdk/switchboard.js": "text/javascript; charset=utf-8",
            "/widget/widget.js": "text/javascript; charset=utf-8",
            "/widget/demo.html": "text/html; charset=utf-8", "/console/": "text/html; charset=utf-8",
        ]
        for (path, type) in expected {
            let reply = try HTTPTestClient.request(gateway, "GET", path)
            #expect(reply.status == 200 && reply.header("Content-Type") == type, "\(path)")
            #expect(!reply.body.isEmpty, "\(path)")
        }
        let script = try HTTPTestClient.request(gateway, "GET", "/widget/widget.js")
        #expect(script.header("Access-Control-Allow-Origin") == "*", "embedded on other origins")
        let folder = try HTTPTestClient.request(gateway, "GET", "/console")
        #expect(folder.status == 301 && folder.header("Location") == "/console/")
    }

    @Test func theClientsCanBeTurnedOff() throws {
        let gateway = try EmbeddedGateway { $0.webEnabled = false }
        defer { gateway.stop() }
        #expect(try HTTPTestClient.request(gateway, "GET", "/").status == 404)
        #expect(try HTTPTestClient.request(gateway, "GET", "/sdk/switchboard.js").status == 404)
    }

    @Test func developmentTokensAreOffUnlessAskedFor() throws {
        let gateway = try EmbeddedGateway { $0.jwtSecret = ChatFixture.secret }
        defer { gateway.stop() }
        let reply = try HTTPTestClient.request(gateway, "POST", "/dev/token", body: #"{"role":"visitor"}"#)
        #expect(reply.status == 404)
    }

    @Test func developmentTokensVerifyAndSayWhatIsWrong() throws {
        let gateway = try EmbeddedGateway {
            $0.jwtSecret = ChatFixture.secret
            $0.devTokens = true
        }
        defer { gateway.stop() }
        let reply = try HTTPTestClient.request(
            gateway, "POST", "/dev/token", body: #"{"role":"operator","name":"Ken","ttl_s":120}"#)
        #expect(reply.status == 200 && reply.header("Cache-Control") == "no-store")
        let token = try #require(reply.json["token"] as? String)
        let identity = try TokenVerifier(secret: ChatFixture.secret, clockSkewSeconds: 0).verify(
            token, now: Int64(Date().timeIntervalSince1970))
        #expect(identity.role == .operator && identity.name == "Ken")
        #expect(identity.workspaceID == Configuration().devWorkspaceID)
        #expect(identity.id.hasPrefix("operator-") && reply.json["sub"] as? String == identity.id)
        #expect(identity.expiresAt - Int64(Date().timeIntervalSince1970) <= 120)
        #expect((reply.json["expires_at"] as? String)?.hasSuffix("Z") == true)

        for (body, problem) in [
            (#"{}"#, "role"), (#"{"role":"king"}"#, "role"),
            (#"{"role":"visitor","workspace_id":"x"}"#, "workspace_id"),
            (#"{"role":"visitor","ttl_s":5}"#, "ttl_s"), (#"{"role":"visitor","extra":1}"#, "extra"),
        ] {
            let refused = try HTTPTestClient.request(gateway, "POST", "/dev/token", body: body)
            #expect(refused.status == 400 && refused.errorMessage.contains(problem), "\(body): \(refused.errorMessage)")
        }
    }

    @Test func theAPIAnswersPagesOfAllowedOriginsOnly() throws {
        let fixture = try ChatFixture { $0.allowedOrigins = ["https://shop.example"] }
        defer { fixture.stop() }
        let path = "/api/v1/sessions/\(UUID().uuidString.lowercased())/messages"
        let preflight = try HTTPTestClient.request(
            fixture.gateway, "OPTIONS", path,
            headers: [("Origin", "https://shop.example"), ("Access-Control-Request-Method", "GET")])
        #expect(preflight.status == 204)
        #expect(preflight.header("Access-Control-Allow-Origin") == "https://shop.example")
        #expect(preflight.header("Access-Control-Allow-Headers")?.contains("Authorization") == true)
        let token = TestTokens.make(role: .admin, workspace: fixture.workspace, sub: "admin-1")
        let answer = try HTTPTestClient.request(
            fixture.gateway, "GET", path, token: token, headers: [("Origin", "https://shop.example")])
        #expect(answer.status == 404 && answer.header("Access-Control-Allow-Origin") == "https://shop.example")
        let stranger = try HTTPTestClient.request(
            fixture.gateway, "GET", path, token: token, headers: [("Origin", "https://evil.example")])
        #expect(stranger.header("Access-Control-Allow-Origin") == nil)
    }
}

import Foundation
import SwitchboardAuth
import SwitchboardDeflate
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

    /// gzip to clients that accept it, the file as it is to the others; each representation with its
    /// own strong validator, each revalidated with a 304, and caches told the two apart.
    @Test func scriptsAreServedGzippedToClientsThatAcceptIt() throws {
        let gateway = try EmbeddedGateway()
        defer { gateway.stop() }
        for path in ["/widget/widget.js", "/sdk/switchboard.js", "/console/"] {
            let plain = try HTTPTestClient.request(gateway, "GET", path)
            #expect(plain.status == 200 && plain.header("Content-Encoding") == nil, "\(path)")
            #expect(plain.header("Vary") == "Accept-Encoding", "\(path)")
            let identityTag = try #require(plain.header("ETag"))

            let zipped = try HTTPTestClient.request(
                gateway, "GET", path, headers: [("Accept-Encoding", "gzip, deflate, br, zstd")])
            #expect(zipped.status == 200 && zipped.header("Content-Encoding") == "gzip", "\(path)")
            #expect(
                zipped.header("Vary") == "Accept-Encoding"
                    && zipped.header("Content-Type") == plain.header("Content-Type"))
            #expect(zipped.body == (try Gzip.compress(plain.body)), "\(path): gzip of the same bytes")
            #expect(
                zipped.body.count < plain.body.count / 2, "\(path): \(zipped.body.count) of \(plain.body.count) bytes")
            let gzipTag = try #require(zipped.header("ETag"))
            #expect(gzipTag == String(identityTag.dropLast()) + "-gzip\"", "\(path): \(gzipTag)")

            // Each validator answers 304 for its own representation only.
            let fresh = try HTTPTestClient.request(
                gateway, "GET", path, headers: [("Accept-Encoding", "gzip"), ("If-None-Match", gzipTag)])
            #expect(fresh.status == 304 && fresh.body.isEmpty && fresh.header("ETag") == gzipTag)
            #expect(fresh.header("Vary") == "Accept-Encoding" && fresh.header("Content-Encoding") == nil)
            let freshPlain = try HTTPTestClient.request(gateway, "GET", path, headers: [("If-None-Match", identityTag)])
            #expect(freshPlain.status == 304 && freshPlain.header("ETag") == identityTag)
            let switched = try HTTPTestClient.request(
                gateway, "GET", path, headers: [("Accept-Encoding", "gzip"), ("If-None-Match", identityTag)])
            #expect(switched.status == 200 && switched.header("Content-Encoding") == "gzip")
            let refused = try HTTPTestClient.request(
                gateway, "GET", path, headers: [("Accept-Encoding", "gzip;q=0, br"), ("If-None-Match", gzipTag)])
            #expect(refused.status == 200 && refused.header("Content-Encoding") == nil && refused.body == plain.body)

            let head = try HTTPTestClient.request(gateway, "HEAD", path, headers: [("Accept-Encoding", "gzip")])
            #expect(head.status == 200 && head.body.isEmpty && head.header("Content-Encoding") == "gzip")
        }
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
        #expect(preflight.header("Access-Control-Allow-Methods")?.contains("POST") == true, "uploads")
        let token = TestTokens.make(role: .admin, workspace: fixture.workspace, sub: "admin-1")
        let answer = try HTTPTestClient.request(
            fixture.gateway, "GET", path, token: token, headers: [("Origin", "https://shop.example")])
        #expect(answer.status == 404 && answer.header("Access-Control-Allow-Origin") == "https://shop.example")
        #expect(answer.header("Access-Control-Expose-Headers") == "Retry-After")
        let stranger = try HTTPTestClient.request(
            fixture.gateway, "GET", path, token: token, headers: [("Origin", "https://evil.example")])
        #expect(stranger.header("Access-Control-Allow-Origin") == nil)
    }
}

import Foundation
import SwitchboardAuth
import SwitchboardCrypto
import Synchronization
import Testing

@testable import SwitchboardServer

/// The webhook management API in-process against a real PostgreSQL
/// (docs/webhooks.md, "Management API").
@Suite(.serialized) struct WebhooksAPITests {
    private func admin(_ fixture: ChatFixture, workspace: String? = nil) -> String {
        TestTokens.make(role: .admin, workspace: workspace ?? fixture.workspace, sub: "admin-1", name: "Ada")
    }

    private func create(
        _ fixture: ChatFixture, _ body: String, token: String? = nil
    ) throws -> HTTPReply {
        try HTTPTestClient.request(
            fixture.gateway, "POST", "/api/v1/webhooks", token: token ?? admin(fixture), body: body)
    }

    private func webhook(_ reply: HTTPReply) -> [String: Any] { reply.json["webhook"] as? [String: Any] ?? [:] }

    @Test func anAdminCreatesReadsChangesAndDeletesAnEndpointAndSeesItsSecretOnce() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let created = try create(
            fixture, #"{"url":"https://crm.example/hooks","events":["message.created","session.created"]}"#)
        #expect(created.status == 201, "\(created.errorMessage)")
        let endpoint = webhook(created)
        let id = try #require(endpoint["id"] as? String)
        let secret = try #require(endpoint["secret"] as? String)
        #expect(secret.hasPrefix("whsec_") && Base64.decode(secret.dropFirst(6))?.count == 32)
        #expect(endpoint["events"] as? [String] == ["message.created", "session.created"])
        #expect(endpoint["enabled"] as? Bool == true && endpoint["description"] is NSNull)

        let token = admin(fixture)
        let listed = try HTTPTestClient.request(fixture.gateway, "GET", "/api/v1/webhooks", token: token)
        #expect(listed.status == 200)
        #expect((listed.json["webhooks"] as? [[String: Any]])?.map { $0["id"] as? String } == [id])
        let shown = try HTTPTestClient.request(fixture.gateway, "GET", "/api/v1/webhooks/\(id)", token: token)
        #expect(shown.status == 200 && webhook(shown)["url"] as? String == "https://crm.example/hooks")
        for reply in [listed, shown] {
            let text = String(decoding: reply.body, as: UTF8.self)
            #expect(!text.contains(secret) && !text.contains("\"secret\""), "a secret is shown once")
        }

        let changed = try HTTPTestClient.request(
            fixture.gateway, "PATCH", "/api/v1/webhooks/\(id)", token: token,
            body: #"{"url":"https://crm.example/v2","events":["note.created"],"description":"CRM","enabled":false}"#)
        #expect(changed.status == 200, "\(changed.errorMessage)")
        let now = webhook(changed)
        #expect(now["url"] as? String == "https://crm.example/v2" && now["events"] as? [String] == ["note.created"])
        #expect(now["description"] as? String == "CRM" && now["enabled"] as? Bool == false)
        let cleared = try HTTPTestClient.request(
            fixture.gateway, "PATCH", "/api/v1/webhooks/\(id)", token: token, body: #"{"description":null}"#)
        #expect(
            webhook(cleared)["description"] is NSNull && webhook(cleared)["url"] as? String == "https://crm.example/v2")

        let deleted = try HTTPTestClient.request(fixture.gateway, "DELETE", "/api/v1/webhooks/\(id)", token: token)
        #expect(deleted.status == 204)
        for (method, path) in [("GET", "/api/v1/webhooks/\(id)"), ("DELETE", "/api/v1/webhooks/\(id)")] {
            let gone = try HTTPTestClient.request(fixture.gateway, method, path, token: token)
            #expect(gone.status == 404 && gone.errorCode == "not_found", "\(method)")
        }
    }

    @Test func onlyAnAdminOfTheWorkspaceReachesIt() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let id = try #require(
            webhook(try create(fixture, #"{"url":"https://a.example","events":["session.created"]}"#))["id"] as? String)
        let operatorToken = TestTokens.make(role: .operator, workspace: fixture.workspace, sub: "op-1")
        let routes = [
            ("GET", "/api/v1/webhooks", nil),
            ("POST", "/api/v1/webhooks", #"{"url":"https://b.example","events":["session.created"]}"#),
            ("GET", "/api/v1/webhooks/\(id)", nil), ("PATCH", "/api/v1/webhooks/\(id)", #"{"enabled":false}"#),
            ("DELETE", "/api/v1/webhooks/\(id)", nil), ("POST", "/api/v1/webhooks/\(id)/test", nil),
            ("POST", "/api/v1/webhooks/\(id)/rotate-secret", nil), ("GET", "/api/v1/webhooks/\(id)/deliveries", nil),
            ("POST", "/api/v1/webhooks/\(id)/deliveries/1/retry", nil),
            ("POST", "/api/v1/webhooks/\(id)/deliveries/retry", #"{"since":"2026-01-01T00:00:00Z"}"#),
        ]
        for (method, path, body) in routes {
            let refused = try HTTPTestClient.request(fixture.gateway, method, path, token: operatorToken, body: body)
            #expect(refused.status == 403 && refused.errorCode == "forbidden", "\(method) \(path)")
            let anonymous = try HTTPTestClient.request(fixture.gateway, method, path, body: body)
            #expect(anonymous.status == 401, "\(method) \(path)")
        }
        // Another workspace's admin: no such endpoint there.
        let stranger = admin(fixture, workspace: fixture.otherWorkspace)
        for (method, path, body) in routes where path.contains(id) {
            let hidden = try HTTPTestClient.request(fixture.gateway, method, path, token: stranger, body: body)
            #expect(hidden.status == 404, "\(method) \(path): \(hidden.status)")
        }
        let theirs = try HTTPTestClient.request(fixture.gateway, "GET", "/api/v1/webhooks", token: stranger)
        #expect((theirs.json["webhooks"] as? [Any])?.isEmpty == true)
    }

    @Test func badBodiesAreRefusedNamingWhatIsWrong() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let long = "https://example.com/" + String(repeating: "a", count: 2029)
        let refusals: [(String, String)] = [
            (#"{"events":["message.created"]}"#, "\"url\" is required"),
            (#"{"url":"https://a.example"}"#, "\"events\" is required"),
            (#"{"url":"ftp://a.example","events":["message.created"]}"#, "https:// or http://"),
            (#"{"url":"https://","events":["message.created"]}"#, "host"),
            (#"{"url":"https://a b.example","events":["message.created"]}"#, "spaces"),
            (#"{"url":"https://a.example/\u0085","events":["message.created"]}"#, "control characters"),
            (#"{"url":"https://user:pw@a.example","events":["message.created"]}"#, "credentials"),
            (#"{"url":"https://a.example:99999","events":["message.created"]}"#, "port"),
            (#"{"url":"https://a.example/#x","events":["message.created"]}"#, "fragment"),
            ("{\"url\":\"\(long)\",\"events\":[\"message.created\"]}", "2048 bytes"),
            (#"{"url":5,"events":["message.created"]}"#, "\"url\" must be a string"),
            (#"{"url":"https://a.example","events":[]}"#, "non-empty"),
            (#"{"url":"https://a.example","events":["message.sent"]}"#, "may hold only"),
            (#"{"url":"https://a.example","events":["note.created","note.created"]}"#, "twice"),
            (#"{"url":"https://a.example","events":["note.created"],"secret":"mine"}"#, "unknown field \"secret\""),
            (#"{"url":"https://a.example","events":["note.created"],"description":7}"#, "\"description\""),
        ]
        for (body, mention) in refusals {
            let reply = try create(fixture, body)
            #expect(reply.status == 400 && reply.errorCode == "bad_request", "\(body)")
            #expect(reply.errorMessage.contains(mention), "\(body): \(reply.errorMessage)")
        }
        #expect(long.utf8.count == 2049)
        let exact = String(long.dropLast())
        #expect(try create(fixture, "{\"url\":\"\(exact)\",\"events\":[\"message.created\"]}").status == 201)

        let id = try #require(
            webhook(try create(fixture, #"{"url":"http://a.example:8080/x","events":["session.created"]}"#))["id"]
                as? String)
        let token = admin(fixture)
        for (body, mention) in [
            ("{}", "nothing to change"), (#"{"enabled":"yes"}"#, "\"enabled\""), (#"{"url":null}"#, "\"url\""),
            (#"{"events":null}"#, "\"events\""),
        ] {
            let reply = try HTTPTestClient.request(
                fixture.gateway, "PATCH", "/api/v1/webhooks/\(id)", token: token, body: body)
            #expect(reply.status == 400 && reply.errorMessage.contains(mention), "\(body): \(reply.errorMessage)")
        }
        for path in ["/api/v1/webhooks/not-a-uuid", "/api/v1/webhooks/\(UUID().uuidString)"] {
            #expect(try HTTPTestClient.request(fixture.gateway, "GET", path, token: token).status == 404)
        }
        let rotate = try HTTPTestClient.request(
            fixture.gateway, "POST", "/api/v1/webhooks/\(id)/rotate-secret", token: token, body: #"{"overlap_s":-1}"#)
        #expect(rotate.status == 400 && rotate.errorMessage.contains("\"overlap_s\""))
        let since = try HTTPTestClient.request(
            fixture.gateway, "POST", "/api/v1/webhooks/\(id)/deliveries/retry", token: token,
            body: #"{"since":"yesterday"}"#)
        #expect(since.status == 400 && since.errorMessage.contains("RFC 3339"))
        // As docs/openapi.yaml spells them: no leading zero, at most 18 digits.
        for query in ["status=lost", "limit=0", "limit=201", "cursor=abc", "cursor=0123", "cursor=1234567890123456789"]
        {
            let reply = try HTTPTestClient.request(
                fixture.gateway, "GET", "/api/v1/webhooks/\(id)/deliveries?\(query)", token: token)
            #expect(reply.status == 400, "\(query)")
        }
    }

    @Test func thePrivateTargetCheckRefusesWithItsOwnCodeUnlessAllowed() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let hooks = try #require(fixture.embedded.context.chat?.webhooks)
        let asked = Mutex<[String]>([])
        hooks.setTargetCheck { url in
            asked.withLock { $0.append(url) }
            return url.contains("10.0.0.1") ? "10.0.0.1 is a private address" : nil
        }
        let refused = try create(fixture, #"{"url":"https://10.0.0.1/hook","events":["message.created"]}"#)
        #expect(refused.status == 400 && refused.errorCode == "private_target")
        #expect(refused.errorMessage == "10.0.0.1 is a private address")
        let fine = try create(fixture, #"{"url":"https://public.example/hook","events":["message.created"]}"#)
        #expect(fine.status == 201)
        let id = try #require(webhook(fine)["id"] as? String)
        let moved = try HTTPTestClient.request(
            fixture.gateway, "PATCH", "/api/v1/webhooks/\(id)", token: admin(fixture),
            body: #"{"url":"http://10.0.0.1"}"#)
        #expect(moved.status == 400 && moved.errorCode == "private_target")
        #expect(asked.withLock { $0 } == ["https://10.0.0.1/hook", "https://public.example/hook", "http://10.0.0.1"])

        let open = try ChatFixture { $0.webhooksAllowPrivateTargets = true }
        defer { open.stop() }
        try #require(open.embedded.context.chat?.webhooks).setTargetCheck { _ in "never asked" }
        #expect(try create(open, #"{"url":"https://10.0.0.1/hook","events":["message.created"]}"#).status == 201)
    }

    @Test func testEventsRotationTheDeliveryLogAndRetries() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let woken = Atomic<Int>(0)
        try #require(fixture.embedded.context.chat?.webhooks).setWakeup { woken.add(1, ordering: .relaxed) }
        let token = admin(fixture)
        let created = webhook(try create(fixture, #"{"url":"https://a.example","events":["message.created"]}"#))
        let id = try #require(created["id"] as? String)
        let first = try #require(created["secret"] as? String)

        let test = try HTTPTestClient.request(fixture.gateway, "POST", "/api/v1/webhooks/\(id)/test", token: token)
        #expect(test.status == 202)
        let event = try #require(test.json["event"] as? [String: Any])
        #expect(event["type"] as? String == "webhook.test" && (event["id"] as? String)?.hasPrefix("evt_") == true)
        #expect(woken.load(ordering: .relaxed) == 1)

        // A visitor's message: the expander made its event after the batch and handed the delivery
        // to this node's dispatcher (migration 23), so no claim had to be woken for it.
        let visitor = try fixture.client(.visitor, "v-1")
        let session = try fixture.createSession(visitor)
        _ = try visitor.request(["type": "send", "session_id": session, "client_msg_id": "m1", "body": "hello"])
        // The expander's pass follows the batch's commit: allow it a moment.
        var log = try HTTPTestClient.request(
            fixture.gateway, "GET", "/api/v1/webhooks/\(id)/deliveries?limit=1", token: token)
        let deadline = Date().addingTimeInterval(10)
        while (log.json["deliveries"] as? [[String: Any]])?.first?["event_type"] as? String != "message.created"
            && Date() < deadline
        {
            Thread.sleep(forTimeInterval: 0.02)
            log = try HTTPTestClient.request(
                fixture.gateway, "GET", "/api/v1/webhooks/\(id)/deliveries?limit=1", token: token)
        }
        #expect(log.status == 200)
        #expect(woken.load(ordering: .relaxed) == 1, "a handed-over delivery needs no claim")
        let newest = try #require((log.json["deliveries"] as? [[String: Any]])?.first)
        #expect(newest["event_type"] as? String == "message.created" && newest["status"] as? String == "pending")
        #expect(newest["status_code"] is NSNull && newest["next_attempt_at"] is String)
        let cursor = try #require(log.json["next_cursor"] as? String)
        let older = try HTTPTestClient.request(
            fixture.gateway, "GET", "/api/v1/webhooks/\(id)/deliveries?cursor=\(cursor)", token: token)
        let rest = older.json["deliveries"] as? [[String: Any]] ?? []
        #expect(rest.map { $0["event_type"] as? String } == ["webhook.test"] && older.json["next_cursor"] is NSNull)

        let deliveryID = try #require(newest["id"] as? String)
        let retried = try HTTPTestClient.request(
            fixture.gateway, "POST", "/api/v1/webhooks/\(id)/deliveries/\(deliveryID)/retry", token: token)
        #expect(retried.status == 202 && (retried.json["delivery"] as? [String: Any])?["id"] as? String == deliveryID)
        let missing = try HTTPTestClient.request(
            fixture.gateway, "POST", "/api/v1/webhooks/\(id)/deliveries/999999/retry", token: token)
        #expect(missing.status == 404)
        let since = try HTTPTestClient.request(
            fixture.gateway, "POST", "/api/v1/webhooks/\(id)/deliveries/retry", token: token,
            body: #"{"since":"2026-01-01T00:00:00+01:00"}"#)
        #expect(since.status == 202 && since.json["retried"] as? Int == 0, "nothing has failed")

        let rotated = try HTTPTestClient.request(
            fixture.gateway, "POST", "/api/v1/webhooks/\(id)/rotate-secret", token: token, body: #"{"overlap_s":60}"#)
        #expect(rotated.status == 200)
        let second = try #require(webhook(rotated)["secret"] as? String)
        #expect(second != first && second.hasPrefix("whsec_"))
        #expect(webhook(rotated)["previous_secret_expires_at"] is String)
        // Any JSON spelling of a whole number, as JSON Schema's integer.
        let spelled = try HTTPTestClient.request(
            fixture.gateway, "POST", "/api/v1/webhooks/\(id)/rotate-secret", token: token, body: #"{"overlap_s":6e1}"#)
        #expect(spelled.status == 200)
        let byDefault = try HTTPTestClient.request(
            fixture.gateway, "POST", "/api/v1/webhooks/\(id)/rotate-secret", token: token)
        #expect(byDefault.status == 200 && webhook(byDefault)["secret"] as? String != second)
    }
}

import Foundation
import SwitchboardAuth
import SwitchboardStore
import Testing

@testable import SwitchboardServer

/// The HTTP API in-process against a real PostgreSQL.
@Suite(.serialized) struct AdminAPITests {
    private func operatorToken(_ fixture: ChatFixture, _ sub: String = "op-ken", workspace: String? = nil) -> String {
        TestTokens.make(role: .operator, workspace: workspace ?? fixture.workspace, sub: sub, name: "Ken")
    }

    private func sessionIDs(_ reply: HTTPReply) -> [String] {
        (reply.json["sessions"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }

    @Test func conversationsPageWithoutDuplicatesOrSkipsWhileSessionsArrive() throws {
        let fixture = try ChatFixture { $0.chatMaxJoinedSessions = 1000 }
        defer { fixture.stop() }
        let visitor = try fixture.client(.visitor, "v-1")
        var existing: [String] = []
        for i in 0..<7 { existing.append(try fixture.createSession(visitor, title: "s\(i)")) }
        let token = operatorToken(fixture)
        var seen: [String] = []
        var cursor: String?
        var pages = 0
        repeat {
            var path = "/api/v1/admin/live-chat/conversations?limit=3"
            if let cursor { path += "&cursor=\(cursor.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)" }
            let reply = try HTTPTestClient.request(fixture.gateway, "GET", path, token: token)
            #expect(reply.status == 200)
            seen += sessionIDs(reply)
            cursor = reply.json["next_cursor"] as? String
            pages += 1
            // New sessions arrive between pages; keyset paging keeps the old ones in place.
            _ = try fixture.createSession(visitor, title: "new \(pages)")
        } while cursor != nil && pages < 10
        #expect(Set(seen).count == seen.count, "a session appeared twice: \(seen)")
        #expect(Set(existing).isSubset(of: Set(seen)), "a session was skipped")
        // Sessions created meanwhile are newer than the cursor: they belong to a fresh first page.
        #expect(Set(seen) == Set(existing) && seen.count == existing.count)
    }

    @Test func conversationsFilters() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let visitor = try fixture.client(.visitor, "v-1")
        let open = try fixture.createSession(visitor)
        let mine = try fixture.createSession(visitor)
        let closed = try fixture.createSession(visitor)
        let ken = try fixture.client(.operator, "op-ken", name: "Ken")
        _ = try ken.request(["type": "session.assign", "session_id": mine])
        _ = try ken.request(["type": "session.close", "session_id": closed])
        let token = operatorToken(fixture)
        func ids(_ query: String) throws -> Set<String> {
            let reply = try HTTPTestClient.request(
                fixture.gateway, "GET", "/api/v1/admin/live-chat/conversations?\(query)", token: token)
            #expect(reply.status == 200, "\(query): \(reply.errorMessage)")
            return Set(sessionIDs(reply))
        }
        #expect(try ids("") == [open, mine, closed])
        #expect(try ids("status=closed") == [closed])
        #expect(try ids("status=open,assigned") == [open, mine])
        #expect(try ids("assigned=me") == [mine])
        #expect(try ids("assigned=op-ken") == [mine])
        #expect(try ids("assigned=none&status=open") == [open])
        for bad in ["status=pending", "limit=0", "limit=abc", "limit=201", "cursor=garbage"] {
            let reply = try HTTPTestClient.request(
                fixture.gateway, "GET", "/api/v1/admin/live-chat/conversations?\(bad)", token: token)
            #expect(reply.status == 400 && reply.errorCode == "bad_request", "\(bad)")
        }
        let named = try HTTPTestClient.request(
            fixture.gateway, "GET", "/api/v1/admin/live-chat/conversations?limit=x", token: token)
        #expect(named.errorMessage.contains("\"limit\""))
    }

    @Test func messagesHistoryPages() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let visitor = try fixture.client(.visitor, "v-1")
        let sessionID = try fixture.createSession(visitor)
        for i in 1...5 {
            _ = try visitor.request([
                "type": "send", "session_id": sessionID, "client_msg_id": "m\(i)", "body": "b\(i)",
            ])
        }
        let token = operatorToken(fixture)
        let first = try HTTPTestClient.request(
            fixture.gateway, "GET", "/api/v1/sessions/\(sessionID)/messages?limit=2", token: token)
        #expect(first.status == 200)
        let seqs = (first.json["messages"] as? [[String: Any]] ?? []).compactMap { $0["seq"] as? Int }
        #expect(seqs == [1, 2] && first.json["next_after_seq"] as? Int == 2)
        let rest = try HTTPTestClient.request(
            fixture.gateway, "GET", "/api/v1/sessions/\(sessionID)/messages?after_seq=2&limit=10", token: token)
        let restSeqs = (rest.json["messages"] as? [[String: Any]] ?? []).compactMap { $0["seq"] as? Int }
        #expect(restSeqs == [3, 4, 5] && rest.json["next_after_seq"] is NSNull)
        let bodies = (rest.json["messages"] as? [[String: Any]] ?? []).compactMap { $0["body"] as? String }
        #expect(bodies == ["b3", "b4", "b5"])
        let unknown = try HTTPTestClient.request(
            fixture.gateway, "GET", "/api/v1/sessions/\(UUID().uuidString)/messages", token: token)
        #expect(unknown.status == 404 && unknown.errorCode == "not_found")
        let badSeq = try HTTPTestClient.request(
            fixture.gateway, "GET", "/api/v1/sessions/\(sessionID)/messages?after_seq=-1", token: token)
        #expect(badSeq.status == 400 && badSeq.errorMessage.contains("\"after_seq\""))
    }

    @Test func patchChangesTitleAndStatusAndTellsTheConsoles() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let ann = try fixture.client(.operator, "op-ann")
        _ = try ann.request(["type": "inbox.subscribe"])
        let visitor = try fixture.client(.visitor, "v-1")
        let sessionID = try fixture.createSession(visitor)
        _ = try ann.next("session.updated")
        let token = operatorToken(fixture)
        let path = "/api/v1/sessions/\(sessionID)"
        let renamed = try HTTPTestClient.request(
            fixture.gateway, "PATCH", path, token: token, body: #"{"title":"Refund"}"#)
        #expect(renamed.status == 200)
        #expect((renamed.json["session"] as? [String: Any])?["title"] as? String == "Refund")
        #expect(((try ann.next("session.updated"))["session"] as? [String: Any])?["title"] as? String == "Refund")
        #expect(((try visitor.next("session.updated"))["session"] as? [String: Any])?["title"] as? String == "Refund")
        let closed = try HTTPTestClient.request(
            fixture.gateway, "PATCH", path, token: token, body: #"{"status":"closed"}"#)
        #expect((closed.json["session"] as? [String: Any])?["status"] as? String == "closed")
        #expect(((try ann.next("session.updated"))["session"] as? [String: Any])?["status"] as? String == "closed")
        // "assigned" without an operator: the caller takes the session.
        let taken = try HTTPTestClient.request(
            fixture.gateway, "PATCH", path, token: token, body: #"{"status":"assigned"}"#)
        let assigned = taken.json["session"] as? [String: Any]
        #expect(taken.status == 200 && assigned?["status"] as? String == "assigned")
        #expect((assigned?["assigned_operator"] as? [String: Any])?["id"] as? String == "op-ken")

        let refusals: [(String, String?, String)] = [
            ("{not json", "application/json", "JSON"),
            (#"{"title":5}"#, "application/json", "\"title\""),
            (#"{"status":"pending"}"#, "application/json", "\"status\""),
            (#"{"owner":"x"}"#, "application/json", "\"owner\""),
            ("{}", "application/json", "nothing to change"),
            (#"[1]"#, "application/json", "object"),
            (#"{"title":"x"}"#, "text/plain", "Content-Type"),
        ]
        for (body, type, mention) in refusals {
            let reply = try HTTPTestClient.request(
                fixture.gateway, "PATCH", path, token: token, body: body, contentType: type)
            #expect(reply.status == 400 && reply.errorCode == "bad_request", "\(body)")
            #expect(reply.errorMessage.contains(mention), "\(body): \(reply.errorMessage)")
        }
        // Past 8 KiB the body is too large (413, as docs/openapi.yaml says), not malformed.
        let padded = #"{"title":"x","status":"open"}"# + String(repeating: " ", count: 8200)
        let tooLarge = try HTTPTestClient.request(fixture.gateway, "PATCH", path, token: token, body: padded)
        #expect(tooLarge.status == 413 && tooLarge.errorCode == "too_large")
    }

    @Test func deleteIsSoftAndTheSessionThenAnswersNotFound() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let visitor = try fixture.client(.visitor, "v-1")
        let sessionID = try fixture.createSession(visitor)
        _ = try visitor.request(["type": "send", "session_id": sessionID, "client_msg_id": "m1", "body": "kept"])
        let token = operatorToken(fixture)
        let deleted = try HTTPTestClient.request(
            fixture.gateway, "DELETE", "/api/v1/sessions/\(sessionID)", token: token)
        #expect(deleted.status == 204)
        let again = try HTTPTestClient.request(
            fixture.gateway, "DELETE", "/api/v1/sessions/\(sessionID)", token: token)
        #expect(again.status == 404)
        let history = try HTTPTestClient.request(
            fixture.gateway, "GET", "/api/v1/sessions/\(sessionID)/messages", token: token)
        #expect(history.status == 404 && history.errorCode == "not_found")
        let inbox = try HTTPTestClient.request(
            fixture.gateway, "GET", "/api/v1/admin/live-chat/conversations", token: token)
        #expect(!sessionIDs(inbox).contains(sessionID))
        let ken = try fixture.client(.operator, "op-ken")
        #expect(try ken.request(["type": "join", "session_id": sessionID]).code == "not_found")
        #expect(try fixture.count("SELECT count(*)::int FROM chats WHERE session_id = $1::uuid", [sessionID]) == 1)
        #expect(
            try fixture.count(
                "SELECT count(*)::int FROM chat_sessions WHERE id = $1::uuid AND deleted_at IS NOT NULL", [sessionID])
                == 1)
    }

    @Test func aVisitorReadsOnlyTheHistoryOfItsOwnSessions() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let visitor = try fixture.client(.visitor, "v-1")
        let mine = try fixture.createSession(visitor)
        let other = try fixture.createSession(try fixture.client(.visitor, "v-2"))
        let token = TestTokens.make(role: .visitor, workspace: fixture.workspace, sub: "v-1")
        let own = try HTTPTestClient.request(
            fixture.gateway, "GET", "/api/v1/sessions/\(mine)/messages", token: token)
        #expect(own.status == 200 && own.json["session_id"] as? String == mine)
        let theirs = try HTTPTestClient.request(
            fixture.gateway, "GET", "/api/v1/sessions/\(other)/messages", token: token)
        #expect(theirs.status == 403 && theirs.errorCode == "forbidden")
        for (method, body) in [("PATCH", #"{"title":"x"}"#), ("DELETE", nil)] {
            let reply = try HTTPTestClient.request(
                fixture.gateway, method, "/api/v1/sessions/\(mine)", token: token, body: body)
            #expect(reply.status == 403, "\(method) is for operators and admins")
        }
    }

    @Test func otherWorkspacesAndBadTokensAreRefused() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let visitor = try fixture.client(.visitor, "v-1")
        let sessionID = try fixture.createSession(visitor)
        let outsider = operatorToken(fixture, "op-b", workspace: fixture.otherWorkspace)
        let gateway = fixture.gateway
        #expect(
            try HTTPTestClient.request(gateway, "GET", "/api/v1/sessions/\(sessionID)/messages", token: outsider)
                .status == 403)
        #expect(
            try HTTPTestClient.request(
                gateway, "PATCH", "/api/v1/sessions/\(sessionID)", token: outsider, body: #"{"title":"x"}"#
            ).status == 403)
        #expect(
            try HTTPTestClient.request(gateway, "DELETE", "/api/v1/sessions/\(sessionID)", token: outsider).status
                == 403)
        let theirs = try HTTPTestClient.request(
            gateway, "GET", "/api/v1/admin/live-chat/conversations", token: outsider)
        #expect(theirs.status == 200 && sessionIDs(theirs).isEmpty)

        let visitorToken = TestTokens.make(role: .visitor, workspace: fixture.workspace, sub: "v-1")
        let asVisitor = try HTTPTestClient.request(
            gateway, "GET", "/api/v1/admin/live-chat/conversations", token: visitorToken)
        #expect(asVisitor.status == 403 && asVisitor.errorCode == "forbidden")
        for token in [nil, "not-a-token", operatorToken(fixture) + "x"] {
            let reply = try HTTPTestClient.request(
                gateway, "GET", "/api/v1/admin/live-chat/conversations", token: token)
            #expect(reply.status == 401 && reply.errorCode == "unauthorized")
        }
        let expired = TestTokens.make(role: .admin, workspace: fixture.workspace, sub: "a", ttl: 60, issuedAgo: 7200)
        #expect(
            try HTTPTestClient.request(gateway, "GET", "/api/v1/admin/live-chat/conversations", token: expired)
                .status == 401)
    }

    @Test func analyticsCountsTheConversation() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let visitor = try fixture.client(.visitor, "v-1")
        let sessionID = try fixture.createSession(visitor)
        let ken = try fixture.client(.operator, "op-ken", name: "Ken")
        try fixture.join(ken, sessionID)
        _ = try visitor.request(["type": "send", "session_id": sessionID, "client_msg_id": "v1", "body": "hi"])
        _ = try visitor.request(["type": "send", "session_id": sessionID, "client_msg_id": "v2", "body": "hello?"])
        _ = try ken.request(["type": "send", "session_id": sessionID, "client_msg_id": "k1", "body": "yes"])
        _ = try ken.request(["type": "session.close", "session_id": sessionID])
        let token = operatorToken(fixture)
        let reply = try HTTPTestClient.request(
            fixture.gateway, "GET",
            "/api/v1/admin/live-chat/analytics?from=2000-01-01T00:00:00Z&to=2100-01-01T00:00:00Z", token: token)
        #expect(reply.status == 200, "\(reply.errorMessage)")
        #expect(reply.json["sessions_opened"] as? Int == 1)
        #expect(reply.json["sessions_closed"] as? Int == 1)
        let byRole = reply.json["messages_by_role"] as? [String: Int]
        #expect(byRole == ["visitor": 2, "operator": 1])
        let response = reply.json["first_response_seconds"] as? [String: Any]
        #expect(response?["count"] as? Int == 1)
        #expect((response?["median"] as? Double ?? -1) >= 0)
        // Ken joined by hand before anyone was assigned: no assignment, no wait; the operator answered.
        let waits = reply.json["wait_seconds"] as? [String: Any]
        #expect(waits?["count"] as? Int == 0 && waits?["median"] is NSNull && waits?["p90"] is NSNull)
        #expect(reply.json["unanswered"] as? Int == 0)
        let empty = try HTTPTestClient.request(
            fixture.gateway, "GET",
            "/api/v1/admin/live-chat/analytics?from=2000-01-01T00:00:00Z&to=2000-01-02T00:00:00Z", token: token)
        #expect(empty.json["sessions_opened"] as? Int == 0)
        #expect((empty.json["first_response_seconds"] as? [String: Any])?["median"] is NSNull)
        for bad in ["", "from=yesterday&to=2100-01-01T00:00:00Z", "from=2000-01-01T00:00:00Z"] {
            let refused = try HTTPTestClient.request(
                fixture.gateway, "GET", "/api/v1/admin/live-chat/analytics?\(bad)", token: token)
            #expect(refused.status == 400, "\(bad)")
        }
    }

    @Test func readinessReportsTheSchema() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let ready = try HTTPTestClient.request(fixture.gateway, "GET", "/readyz")
        #expect(ready.status == 200 && ready.json["schema_version"] as? Int == Migrations.latestVersion)
        // The node and its cluster bus (docs/protocol.md, "Clusters").
        #expect((ready.json["node_id"] as? String)?.isEmpty == false && ready.json["bus"] as? String == "postgres")
        #expect(["connected", "catching_up", "disconnected"].contains(ready.json["bus_state"] as? String ?? ""))
        let bare = try EmbeddedGateway()
        defer { bare.stop() }
        let noDatabase = try HTTPTestClient.request(bare, "GET", "/readyz")
        #expect(noDatabase.status == 503 && noDatabase.errorCode == "unavailable")
    }
}

@Suite struct RFC3339TimeTests {
    @Test(arguments: [
        ("2026-11-22T08:00:00Z", "2026-11-22 08:00:00+00"),
        ("2026-11-22T08:00:00.123456789+02:00", "2026-11-22 06:00:00.123456+00"),
        ("0061-04-07T14:07:39.550-16:08", "0061-04-08 06:15:39.550+00"),
        ("0001-01-01T00:00:00+01:00", "0001-12-31 23:00:00+00 BC"),
        ("2024-02-29T23:59:60Z", "2024-03-01 00:00:00+00"),
        ("1969-12-31t23:59:59z", "1969-12-31 23:59:59+00"),
    ])
    func convertsToPostgresUTC(input: String, expected: String) {
        #expect(APIParameters.isRFC3339(input))
        #expect(RFC3339Time(input)?.postgresUTC == expected)
    }

    @Test(arguments: [
        "2026-02-29T00:00:00Z", "0000-01-01T00:00:00Z", "2026-11-22 08:00:00Z", "2026-11-22T08:00Z",
        "2026-11-22T24:00:00Z", "2026-11-22T08:00:00+2:00", "2026-11-22T08:00:00", "2026-11-22T08:00:00.Z",
    ])
    func refusesWhatIsNotRFC3339(input: String) {
        #expect(!APIParameters.isRFC3339(input))
    }
}

import Foundation
import SwitchboardAuth
import SwitchboardJSON
import SwitchboardSystem
import Testing

/// The visitor panel's data over a real gateway and PostgreSQL: the widget's
/// `context` and the token's verified contact stored with the session,
/// `GET /api/v1/sessions/{id}` showing both to the team, and the visitor's
/// earlier conversations found by `visitor_id`.
@Suite(.serialized) struct VisitorContextTests {
    private func visitorToken(_ fixture: ChatFixture, sub: String) -> String {
        let now = UnixClock.nowSeconds()
        var attrs = JSONObject()
        attrs["plan"] = .string("pro")
        attrs["orders"] = .number(JSONNumber(12))
        return TokenMinter.mint(
            TokenClaims(
                subject: sub, role: .visitor, workspaceID: fixture.workspace, name: "Vera", issuedAt: now,
                expiresAt: now + 3600, email: "vera@example.com", attrs: attrs),
            secret: ChatFixture.secret)
    }

    @Test func contextAndVerifiedContactReachTheTeamAndEarlierConversationsAreFound() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let vera = try fixture.client(token: visitorToken(fixture, sub: "v-vera"))
        let context: [String: Any] = [
            "page_url": "https://shop.example/orders/4411", "page_title": "Order #4411", "locale": "de-DE",
            "time_zone": "Europe/Berlin", "user_agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/131",
        ]
        let created = try vera.request(["type": "session.create", "title": "Broken parcel", "context": context])
        let session = try #require(created["session"] as? [String: Any], "\(created)")
        let id = try #require(session["id"] as? String)
        #expect((session["context"] as? [String: Any])?["page_title"] as? String == "Order #4411")
        let verified = (session["contact"] as? [String: Any])?["verified"] as? [String: Any]
        #expect(verified?["email"] as? String == "vera@example.com" && verified?["name"] as? String == "Vera")
        #expect((verified?["attrs"] as? [String: Any])?["orders"] as? Int == 12)

        // A refused context opens nothing.
        let refused = try vera.request(["type": "session.create", "context": ["ip": "10.0.0.1"]])
        #expect(refused.type == "error" && refused.code == "bad_request")

        // The team reads it as stored; the visitor its own; another visitor nothing.
        let ken = TestTokens.make(role: .operator, workspace: fixture.workspace, sub: "op-ken", name: "Ken")
        let read = try HTTPTestClient.request(fixture.gateway, "GET", "/api/v1/sessions/\(id)", token: ken)
        #expect(read.status == 200, "\(read.errorMessage)")
        let stored = read.json["session"] as? [String: Any]
        #expect((stored?["context"] as? [String: Any])?["time_zone"] as? String == "Europe/Berlin")
        #expect(
            ((stored?["contact"] as? [String: Any])?["verified"] as? [String: Any])?["email"] as? String
                == "vera@example.com")
        let own = TestTokens.make(role: .visitor, workspace: fixture.workspace, sub: "v-vera")
        #expect(try HTTPTestClient.request(fixture.gateway, "GET", "/api/v1/sessions/\(id)", token: own).status == 200)
        let other = TestTokens.make(role: .visitor, workspace: fixture.workspace, sub: "v-sam")
        #expect(
            try HTTPTestClient.request(fixture.gateway, "GET", "/api/v1/sessions/\(id)", token: other).status == 403)

        // The offline form's address sits beside the verified contact, not over it.
        try fixture.join(vera, id)
        let left = try vera.request(["type": "session.contact", "session_id": id, "email": "other@example.com"])
        let contact = (left["session"] as? [String: Any])?["contact"] as? [String: Any]
        #expect(contact?["email"] as? String == "other@example.com")
        #expect((contact?["verified"] as? [String: Any])?["email"] as? String == "vera@example.com")

        // Her earlier conversation, and nobody else's, by visitor_id.
        let second = try fixture.createSession(vera, title: "Another question")
        let sam = try fixture.client(.visitor, "v-sam", name: "Sam")
        _ = try fixture.createSession(sam)
        let page = try HTTPTestClient.request(
            fixture.gateway, "GET", "/api/v1/admin/live-chat/conversations?visitor_id=v-vera", token: ken)
        let ids = (page.json["sessions"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(ids == [second, id])

        // Each operator's own read position rides on the list: the console's unread counts start there.
        #expect(
            try vera.request(["type": "send", "session_id": id, "client_msg_id": "m1", "body": "It broke"]).seq == 1)
        func readSeqs(_ token: String) throws -> [String: Int] {
            let page = try HTTPTestClient.request(
                fixture.gateway, "GET", "/api/v1/admin/live-chat/conversations?visitor_id=v-vera", token: token)
            var seqs: [String: Int] = [:]
            for row in page.json["sessions"] as? [[String: Any]] ?? [] {
                seqs[row["id"] as? String ?? ""] = row["read_seq"] as? Int
            }
            return seqs
        }
        #expect(try readSeqs(ken) == [id: 0, second: 0])
        let kenClient = try fixture.client(.operator, "op-ken", name: "Ken")
        try fixture.join(kenClient, id)
        kenClient.send(["type": "read", "session_id": id, "seq": 1])
        #expect(try kenClient.next("read").seq == 1)
        #expect(try readSeqs(ken) == [id: 1, second: 0])
        let ann = TestTokens.make(role: .operator, workspace: fixture.workspace, sub: "op-ann", name: "Ann")
        #expect(try readSeqs(ann) == [id: 0, second: 0])
    }
}

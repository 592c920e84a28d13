import Foundation
import SwitchboardAuth
import Testing

/// Satisfaction over a real gateway and PostgreSQL: a closed conversation's
/// visitor is asked (`csat_survey`), rates it once, the team sees the rating
/// live and in the analytics, and a workspace can turn the survey off.
@Suite(.serialized) struct CsatConversationTests {
    @Test func aClosedConversationIsRatedOnceAndCounted() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let vera = try fixture.client(.visitor, "v-1", name: "Vera")
        let id = try fixture.createSession(vera)
        #expect(try vera.request(["type": "send", "session_id": id, "client_msg_id": "a", "body": "hi"]).seq == 1)
        let ken = try fixture.client(.operator, "op-ken", name: "Ken")
        try fixture.join(ken, id)
        #expect(try ken.request(["type": "session.assign", "session_id": id]).type == "session.updated")

        // Not before the close, never from the team, never out of range.
        let early = try vera.request(["type": "csat", "session_id": id, "rating": 5])
        #expect(early.code == "bad_request" && (early["message"] as? String ?? "").contains("not closed"))
        #expect(try ken.request(["type": "csat", "session_id": id, "rating": 5]).code == "forbidden")
        for rating: Any in [0, 6, 4.5, "5"] {
            #expect(try vera.request(["type": "csat", "session_id": id, "rating": rating]).code == "bad_request")
        }
        let long = String(repeating: "x", count: 1001)
        #expect(
            try vera.request(["type": "csat", "session_id": id, "rating": 4, "comment": long]).code == "bad_request")

        // Closed: the visitor is asked.
        #expect(try ken.request(["type": "session.close", "session_id": id]).type == "session.updated")
        var closed = try vera.next("session.updated")["session"] as? [String: Any]
        while closed?["status"] as? String == "assigned" {
            closed = try vera.next("session.updated")["session"] as? [String: Any]
        }
        #expect(closed?["status"] as? String == "closed" && closed?["csat_survey"] as? Bool == true, "\(closed ?? [:])")

        let rated = try vera.request(["type": "csat", "session_id": id, "rating": 4, "comment": "Quick, thanks"])
        #expect(rated.type == "session.updated", "\(rated)")
        let session = rated["session"] as? [String: Any]
        let csat = session?["csat"] as? [String: Any]
        #expect(csat?["rating"] as? Int == 4 && csat?["comment"] as? String == "Quick, thanks")
        #expect(session?["csat_survey"] == nil)
        // The team, live.
        var seen = try ken.next("session.updated")["session"] as? [String: Any]
        while seen?["csat"] == nil, seen?["status"] as? String != nil {
            seen = try ken.next("session.updated")["session"] as? [String: Any]
        }
        #expect((seen?["csat"] as? [String: Any])?["rating"] as? Int == 4)
        // Once.
        let again = try vera.request(["type": "csat", "session_id": id, "rating": 1])
        #expect(again.code == "bad_request" && (again["message"] as? String ?? "").contains("rated already"))

        // Counted: in all and for Ken, who had it.
        let admin = TestTokens.make(role: .admin, workspace: fixture.workspace, sub: "ad-ada", name: "Ada")
        let from = "2000-01-01T00:00:00Z"
        let to = "2100-01-01T00:00:00Z"
        let figures = try HTTPTestClient.request(
            fixture.gateway, "GET", "/api/v1/admin/live-chat/analytics?from=\(from)&to=\(to)", token: admin)
        let totals = try #require(figures.json["csat"] as? [String: Any], "\(figures.json)")
        #expect(totals["answered"] as? Int == 1 && totals["mean"] as? Double == 4)
        #expect((totals["distribution"] as? [String: Int]) == ["1": 0, "2": 0, "3": 0, "4": 1, "5": 0])
        #expect(totals["share_answered"] as? Double == 1)
        let kens = (totals["by_operator"] as? [String: Any])?["op-ken"] as? [String: Any]
        #expect(kens?["answered"] as? Int == 1)
    }

    @Test func aWorkspaceTurnsTheSurveyOff() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let admin = TestTokens.make(role: .admin, workspace: fixture.workspace, sub: "ad-ada", name: "Ada")
        let operatorToken = TestTokens.make(role: .operator, workspace: fixture.workspace, sub: "op-ken", name: "Ken")
        let off = #"{"csat_enabled":false}"#
        #expect(
            try HTTPTestClient.request(fixture.gateway, "PATCH", "/api/v1/workspace", token: operatorToken, body: off)
                .status == 403)
        let changed = try HTTPTestClient.request(fixture.gateway, "PATCH", "/api/v1/workspace", token: admin, body: off)
        #expect(
            changed.status == 200 && (changed.json["workspace"] as? [String: Any])?["csat_enabled"] as? Bool == false)
        let read = try HTTPTestClient.request(fixture.gateway, "GET", "/api/v1/workspace", token: operatorToken)
        #expect((read.json["workspace"] as? [String: Any])?["csat_enabled"] as? Bool == false)
        #expect(
            try HTTPTestClient.request(
                fixture.gateway, "PATCH", "/api/v1/workspace", token: admin, body: #"{"csat_enabled":1}"#
            )
            .status == 400)

        let vera = try fixture.client(.visitor, "v-1", name: "Vera")
        let id = try fixture.createSession(vera)
        let closed = try vera.request(["type": "session.close", "session_id": id])
        let session = closed["session"] as? [String: Any]
        #expect(session?["status"] as? String == "closed" && session?["csat_survey"] == nil, "\(closed)")
        #expect(try vera.request(["type": "csat", "session_id": id, "rating": 5]).code == "forbidden")
    }
}

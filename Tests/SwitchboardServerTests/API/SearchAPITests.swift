import Foundation
import SwitchboardAuth
import SwitchboardTestSupport
import Testing

/// `GET /api/v1/search` over a gateway and PostgreSQL: the body's shape, the
/// snippet as runs of text, keyset paging, and clear refusals.
@Suite(.serialized) struct SearchAPITests {
    @Test func answersRunsOfTextPagesByCursorAndRefusesWhatItCannotSearch() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let visitor = try fixture.client(.visitor, "v-1", name: "Vera")
        let sessionID = try fixture.createSession(visitor, title: "Broken parcel")
        for index in 1...3 {
            #expect(
                try visitor.request([
                    "type": "send", "session_id": sessionID, "client_msg_id": "m\(index)",
                    "body": "<b>parcel</b> number \(index) is broken &amp; late",
                ]).seq == index)
        }
        try fixture.waitForSearchIndex()
        let token = TestTokens.make(role: .operator, workspace: fixture.workspace, sub: "op-ken", name: "Ken")
        let first = try HTTPTestClient.request(
            fixture.gateway, "GET", "/api/v1/search?q=parcel%20broken&limit=2", token: token)
        #expect(first.status == 200 && first.header("Content-Type")?.hasPrefix("application/json") == true)
        let results = first.json["results"] as? [[String: Any]] ?? []
        #expect(results.count == 2)
        let newest = try #require(results.first)
        let message = newest["message"] as? [String: Any]
        #expect(message?["seq"] as? Int == 3 && message?["session_id"] as? String == sessionID)
        #expect((message?["sender"] as? [String: Any])?["name"] as? String == "Vera")
        let session = newest["session"] as? [String: Any]
        #expect(session?["title"] as? String == "Broken parcel" && session?["visitor_id"] as? String == "v-1")
        let runs = newest["snippet"] as? [[String: Any]] ?? []
        #expect(runs.map { $0["text"] as? String ?? "" }.joined() == "<b>parcel</b> number 3 is broken &amp; late")
        #expect(runs.filter { $0["match"] as? Bool == true }.map { $0["text"] as? String } == ["parcel", "broken"])
        let cursor = try #require(first.json["next_cursor"] as? String)
        let second = try HTTPTestClient.request(
            fixture.gateway, "GET", "/api/v1/search?q=parcel&limit=2&cursor=\(cursor)", token: token)
        let rest = second.json["results"] as? [[String: Any]] ?? []
        #expect(rest.map { ($0["message"] as? [String: Any])?["seq"] as? Int } == [1])
        #expect(second.json["next_cursor"] is NSNull)

        for query in [
            "", "?q=", "?q=%20%20", "?q=\(String(repeating: "a", count: 257))", "?q=a&limit=0",
            "?q=a&limit=51", "?q=a&cursor=nope", "?q=a%00b",
        ] {
            let refused = try HTTPTestClient.request(fixture.gateway, "GET", "/api/v1/search\(query)", token: token)
            #expect(refused.status == 400 && refused.errorCode == "bad_request", "\(query)")
        }
        #expect(try HTTPTestClient.request(fixture.gateway, "GET", "/api/v1/search?q=parcel").status == 401)
    }
}

import Foundation
import SwitchboardAuth
import SwitchboardTestSupport
import Testing

/// Private notes over a real gateway and PostgreSQL: a visitor never
/// receives one, whatever path it takes (live, a join's replay after a
/// reconnect, the history API, the transcript, search, the session's last message), and cannot send
/// one; operators and admins get them everywhere.
@Suite(.serialized) struct NoteConversationTests {
    private func bodies(_ frames: [[String: Any]]) -> [String] {
        frames.filter { $0["type"] as? String == "message" }.map { $0["body"] as? String ?? "?" }
    }

    @Test func aNoteNeverReachesAVisitorByAnyPath() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let visitor = try fixture.client(.visitor, "v-1", name: "Vera")
        let sessionID = try fixture.createSession(visitor)
        let ken = try fixture.client(.operator, "op-ken", name: "Ken")
        let ada = try fixture.client(.admin, "ad-ada", name: "Ada")
        try fixture.join(ken, sessionID)
        try fixture.join(ada, sessionID)
        #expect(
            try visitor.request(["type": "send", "session_id": sessionID, "client_msg_id": "v1", "body": "hi"]).seq == 1
        )

        // Refused from a visitor, and nothing stored.
        let refused = try visitor.request([
            "type": "send", "session_id": sessionID, "client_msg_id": "v2", "kind": "note", "body": "psst",
        ])
        #expect(refused.type == "error" && refused.code == "forbidden")

        let note = try ken.request([
            "type": "send", "session_id": sessionID, "client_msg_id": "k1", "kind": "note",
            "body": "Known customer: refund without asking",
        ])
        #expect(note.type == "ack" && note.seq == 2)
        let reply = try ken.request([
            "type": "send", "session_id": sessionID, "client_msg_id": "k2", "body": "Your refund is on its way",
        ])
        #expect(reply.seq == 3)
        // Live: the admin gets both, the visitor the reply alone, at its seq, and nothing else.
        #expect(try ada.next("message")["kind"] as? String == "text")  // "hi"
        let adaNote = try ada.next("message")
        #expect(adaNote["kind"] as? String == "note" && adaNote.seq == 2)
        #expect(try ada.next("message").seq == 3)
        #expect(try visitor.next("message").seq == 1)  // its own "hi"
        let live = try visitor.next("message")
        #expect(live.seq == 3 && live["body"] as? String == "Your refund is on its way")
        #expect(!bodies(visitor.takePending()).contains { $0.contains("refund without") })
        // The same connection joins again from before the note (as the SDK does at a live jump).
        let rejoined = try visitor.request(["type": "join", "session_id": sessionID, "since_seq": 1])
        #expect(rejoined.type == "joined", "\(rejoined)")
        let replayed = try visitor.next("message")
        #expect(replayed.seq == 3, "\(replayed)")

        // A reconnect: the join's replay from 0.
        let again = try fixture.client(.visitor, "v-1", name: "Vera")
        let joined = try fixture.join(again, sessionID, since: 0)
        #expect(joined["last_seq"] as? Int == 3)
        #expect(try again.next("message").seq == 1)
        #expect(try again.next("message").seq == 3)
        // The operator's replay has the note.
        let kenAgain = try fixture.client(.operator, "op-ken", name: "Ken")
        try fixture.join(kenAgain, sessionID, since: 0)
        #expect(try (1...3).map { _ in try kenAgain.next("message").seq ?? 0 } == [1, 2, 3])

        // The history API, by role.
        let path = "/api/v1/sessions/\(sessionID)/messages"
        let visitorToken = TestTokens.make(role: .visitor, workspace: fixture.workspace, sub: "v-1", name: "Vera")
        let visitorRows =
            try HTTPTestClient.request(fixture.gateway, "GET", path, token: visitorToken)
            .json["messages"] as? [[String: Any]] ?? []
        #expect(visitorRows.map { $0["seq"] as? Int ?? 0 } == [1, 3])
        let staffRows =
            try HTTPTestClient.request(
                fixture.gateway, "GET", path,
                token: TestTokens.make(role: .operator, workspace: fixture.workspace, sub: "op-ken", name: "Ken")
            ).json["messages"] as? [[String: Any]] ?? []
        #expect(staffRows.map { $0["kind"] as? String ?? "" } == ["text", "note", "text"])

        // The transcript, by role, as text and as HTML: the visitor's has no note, the team's marks it.
        let transcript = "/api/v1/sessions/\(sessionID)/transcript"
        let kenToken = TestTokens.make(role: .operator, workspace: fixture.workspace, sub: "op-ken", name: "Ken")
        for (query, accept) in [("", "text/plain"), ("?format=html", ""), ("", "text/html,*/*;q=0.8")] {
            let headers = accept.isEmpty ? [] : [("Accept", accept)]
            let visitorCopy = try HTTPTestClient.request(
                fixture.gateway, "GET", transcript + query, token: visitorToken, headers: headers)
            let teamCopy = try HTTPTestClient.request(
                fixture.gateway, "GET", transcript + query, token: kenToken, headers: headers)
            let html = query.contains("html") || accept.hasPrefix("text/html")
            #expect(visitorCopy.status == 200 && teamCopy.status == 200)
            #expect(visitorCopy.header("Content-Type")?.hasPrefix(html ? "text/html" : "text/plain") == true)
            let visitorText = String(decoding: visitorCopy.body, as: UTF8.self)
            let teamText = String(decoding: teamCopy.body, as: UTF8.self)
            #expect(visitorText.contains("Your refund is on its way") && visitorText.contains("Vera (visitor)"))
            #expect(!visitorText.contains("refund without asking") && !visitorText.contains("rivate note"))
            #expect(teamText.contains("refund without asking"))
            #expect(teamText.contains(html ? "Ken (operator) · Private note" : "Ken (operator) [private note]"))
        }
        // Search, by role: the visitor's token finds the reply, never the note; the team's finds both.
        func searched(_ token: String) throws -> [Int] {
            let reply = try HTTPTestClient.request(fixture.gateway, "GET", "/api/v1/search?q=refund", token: token)
            #expect(reply.status == 200, "\(reply.status) \(reply.errorMessage)")
            let results = reply.json["results"] as? [[String: Any]] ?? []
            return results.map { ($0["message"] as? [String: Any])?["seq"] as? Int ?? 0 }
        }
        try fixture.waitForSearchIndex()
        #expect(try searched(visitorToken) == [3])
        #expect(try searched(kenToken) == [3, 2])
        let otherWorkspace = TestTokens.make(
            role: .operator, workspace: UUID().uuidString.lowercased(), sub: "op-zed", name: "Zed")
        #expect(try searched(otherWorkspace).isEmpty)
        #expect(try HTTPTestClient.request(fixture.gateway, "GET", transcript, token: otherWorkspace).status == 403)
        let stranger = TestTokens.make(role: .visitor, workspace: fixture.workspace, sub: "v-2", name: "Sam")
        #expect(try HTTPTestClient.request(fixture.gateway, "GET", transcript, token: stranger).status == 403)

        // A note last: the session as the visitor is told of it previews the last public message.
        #expect(
            try ken.request([
                "type": "send", "session_id": sessionID, "client_msg_id": "k3", "kind": "note", "body": "wrapped up",
            ]).seq == 4)
        #expect(try ken.request(["type": "session.close", "session_id": sessionID]).type == "session.updated")
        let closed = try again.next("session.updated")["session"] as? [String: Any]
        #expect(closed?["status"] as? String == "closed")
        let last = closed?["last_message"] as? [String: Any]
        #expect(last?["seq"] as? Int == 3 && last?["body"] as? String == "Your refund is on its way")
        #expect(try again.next("message")["kind"] as? String == "event")  // "Ken closed the conversation", seq 5
        // And the visitor's connection goes on past the note without a gap.
        #expect(
            try ken.request(["type": "send", "session_id": sessionID, "client_msg_id": "k4", "body": "Anything else?"])
                .seq == 6)
        let next = try again.next("message")
        #expect(next.seq == 6 && next["body"] as? String == "Anything else?")
        #expect(!bodies(again.takePending() + visitor.takePending()).contains("wrapped up"))
    }
}

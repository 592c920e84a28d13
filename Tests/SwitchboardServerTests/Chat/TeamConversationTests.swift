import Foundation
import SwitchboardAuth
import SwitchboardTestSupport
import Testing

/// What a support team does with a conversation, in-process over a real
/// PostgreSQL: a closed one that the visitor's next message brings back,
/// a take-over the previous assignee hears of, and assignments by name over
/// the HTTP API. Every change a participant sees again is a stored `event`.
@Suite(.serialized) struct TeamConversationTests {
    @Test func aVisitorMessageAfterCloseReopensTheConversationForEveryInbox() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let ken = try fixture.client(.operator, "op-ken", name: "Ken")
        let ann = try fixture.client(.operator, "op-ann", name: "Ann")
        for inbox in [ken, ann] { #expect(try inbox.request(["type": "inbox.subscribe"]).type == "inbox") }
        let visitor = try fixture.client(.visitor, "v-1", name: "Vera")
        let sessionID = try fixture.createSession(visitor)
        #expect(
            try visitor.request(["type": "send", "session_id": sessionID, "client_msg_id": "m1", "body": "hi"]).seq == 1
        )
        #expect(try ken.request(["type": "session.assign", "session_id": sessionID]).type == "session.updated")
        #expect(try ken.request(["type": "session.close", "session_id": sessionID]).type == "session.updated")
        // Everything up to the close heard by everyone, so what follows is the reopening alone.
        while try visitor.next("message").seq != 3 {}
        // (Ken closed it: his answer was the reply, so only Ann's inbox hears of it.)
        while (try ann.next("session.updated")["session"] as? [String: Any])?["status"] as? String != "closed" {}
        _ = ken.takePending()
        _ = ann.takePending()
        _ = visitor.takePending()

        let ack = try visitor.request([
            "type": "send", "session_id": sessionID, "client_msg_id": "m2", "body": "It broke again",
        ])
        #expect(ack.type == "ack" && ack.seq == 5, "joined (2) and closed (3) are events; the reopening is 4")

        for inbox in [ken, ann] {
            let updated = try inbox.next("session.updated")
            let session = try #require(updated["session"] as? [String: Any])
            #expect(session["status"] as? String == "open", "back in every Active inbox")
            #expect(session["assigned_operator"] is NSNull, "for whoever is free")
            #expect((session["last_message"] as? [String: Any])?["body"] as? String == "It broke again")
        }
        let reopened = try visitor.next("message")
        #expect(reopened["kind"] as? String == "event" && reopened.seq == 4)
        #expect((reopened["meta"] as? [String: Any])?["action"] as? String == "reopened")
        #expect(try visitor.next("message")["body"] as? String == "It broke again")
        let stored = try fixture.count(
            "SELECT count(*)::int FROM chat_sessions WHERE id = $1::uuid AND status = 'open' AND closed_at IS NULL",
            [sessionID])
        #expect(stored == 1)

        // The history tells the same story after a reload.
        let history = try HTTPTestClient.request(
            fixture.gateway, "GET", "/api/v1/sessions/\(sessionID)/messages",
            token: TestTokens.make(role: .operator, workspace: fixture.workspace, sub: "op-ken", name: "Ken"))
        let rows = history.json["messages"] as? [[String: Any]] ?? []
        #expect(
            rows.map { $0["body"] as? String ?? "" } == [
                "hi", "Ken joined the conversation", "Ken closed the conversation", "The conversation was reopened",
                "It broke again",
            ])
        #expect(rows.map { $0["kind"] as? String ?? "" } == ["text", "event", "event", "event", "text"])
    }

    @Test func anOperatorMessageOnAClosedConversationDoesNotReopenIt() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let ken = try fixture.client(.operator, "op-ken", name: "Ken")
        let visitor = try fixture.client(.visitor, "v-1")
        let sessionID = try fixture.createSession(visitor)
        try fixture.join(ken, sessionID)
        #expect(try ken.request(["type": "session.close", "session_id": sessionID]).type == "session.updated")
        #expect(
            try ken.request(["type": "send", "session_id": sessionID, "client_msg_id": "k1", "body": "bye"]).seq == 2)
        #expect(
            try fixture.count(
                "SELECT count(*)::int FROM chat_sessions WHERE id = $1::uuid AND status = 'closed'", [sessionID]) == 1)
        // A retry of a message stored before (a duplicate) reopens nothing either.
        let retry = try visitor.request(["type": "send", "session_id": sessionID, "client_msg_id": "k1", "body": "bye"])
        #expect(retry.type == "ack" && retry["duplicate"] as? Bool == true)
        #expect(
            try fixture.count(
                "SELECT count(*)::int FROM chat_sessions WHERE id = $1::uuid AND status = 'closed'", [sessionID]) == 1)
    }

    @Test func takingOverTellsThePreviousAssignee() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let ben = try fixture.client(.operator, "op-ben", name: "Ben")
        let olga = try fixture.client(.operator, "op-olga", name: "Olga")
        #expect(try ben.request(["type": "inbox.subscribe"]).type == "inbox")
        let visitor = try fixture.client(.visitor, "v-1")
        let sessionID = try fixture.createSession(visitor)
        try fixture.join(ben, sessionID)
        try fixture.join(olga, sessionID)
        #expect(try ben.request(["type": "session.assign", "session_id": sessionID]).type == "session.updated")
        while try ben.next("message").seq != 1 {}
        while try visitor.next("message").seq != 1 {}
        _ = ben.takePending()
        _ = visitor.takePending()

        let taken = try olga.request(["type": "session.assign", "session_id": sessionID, "ref": "take"])
        #expect(
            ((taken["session"] as? [String: Any])?["assigned_operator"] as? [String: Any])?["id"] as? String
                == "op-olga")

        // Ben's console hears it twice: his inbox, and the conversation he has open.
        var sawUpdate = false
        var sawEvent = false
        while !(sawUpdate && sawEvent) {
            let frame = try ben.next()
            if frame.type == "session.updated" {
                let session = frame["session"] as? [String: Any]
                sawUpdate = sawUpdate || (session?["assigned_operator"] as? [String: Any])?["name"] as? String == "Olga"
            } else if frame.type == "message" {
                #expect(frame["body"] as? String == "Olga took over the conversation from Ben")
                let meta = frame["meta"] as? [String: Any]
                #expect(meta?["action"] as? String == "assigned")
                #expect((meta?["previous"] as? [String: Any])?["id"] as? String == "op-ben")
                #expect((meta?["operator"] as? [String: Any])?["id"] as? String == "op-olga")
                sawEvent = true
            }
        }
        // The visitor sees one line about it, not "Ben joined… Olga joined…" with nothing between.
        let line = try visitor.next("message")
        #expect(
            line["kind"] as? String == "event" && line["body"] as? String == "Olga took over the conversation from Ben")
    }

    @Test func patchAssignsToANamedOperatorUnassignsAndReopens() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let ken = try fixture.client(.operator, "op-ken", name: "Ken")
        // Olga has connected once: the gateway knows her name (recorded after her welcome).
        _ = try fixture.client(.operator, "op-olga", name: "Olga")
        let known = "SELECT count(*)::int FROM operators WHERE id = 'op-olga' AND name = 'Olga'"
        for _ in 0..<100 where try fixture.count(known, []) == 0 { Thread.sleep(forTimeInterval: 0.05) }
        #expect(try ken.request(["type": "inbox.subscribe"]).type == "inbox")
        let visitor = try fixture.client(.visitor, "v-1")
        let sessionID = try fixture.createSession(visitor)
        _ = try ken.next("session.updated")
        let token = TestTokens.make(role: .operator, workspace: fixture.workspace, sub: "op-ken", name: "Ken")
        let path = "/api/v1/sessions/\(sessionID)"
        func patch(_ body: String) throws -> [String: Any] {
            let reply = try HTTPTestClient.request(fixture.gateway, "PATCH", path, token: token, body: body)
            #expect(reply.status == 200, "\(body): \(reply.status) \(reply.json)")
            return reply.json["session"] as? [String: Any] ?? [:]
        }

        let assigned = try patch(#"{"assigned_operator":{"id":"op-olga"}}"#)
        #expect(assigned["status"] as? String == "assigned")
        #expect((assigned["assigned_operator"] as? [String: Any])?["name"] as? String == "Olga")
        #expect(try visitor.next("message")["body"] as? String == "Ken assigned the conversation to Olga")
        #expect(
            ((try ken.next("session.updated"))["session"] as? [String: Any])?["status"] as? String == "assigned")

        let operators = try HTTPTestClient.request(fixture.gateway, "GET", "/api/v1/operators", token: token)
        #expect(operators.status == 200)
        let team = operators.json["operators"] as? [[String: Any]] ?? []
        #expect(team.map { $0["id"] as? String ?? "" } == ["op-ken", "op-olga"])
        #expect(team.map { $0["active_sessions"] as? Int ?? -1 } == [0, 1])

        let released = try patch(#"{"assigned_operator":null}"#)
        #expect(released["status"] as? String == "open" && released["assigned_operator"] is NSNull)
        #expect(try visitor.next("message")["body"] as? String == "Ken unassigned Olga")

        _ = try patch(#"{"status":"closed"}"#)
        let reopened = try patch(#"{"status":"open"}"#)
        #expect(reopened["status"] as? String == "open")
        #expect(try visitor.next("message")["body"] as? String == "Ken closed the conversation")
        #expect(try visitor.next("message")["body"] as? String == "Ken reopened the conversation")

        // Both at once is ambiguous; an operator id must look like one.
        for body in [
            #"{"assigned_operator":{"id":"op-olga"},"status":"closed"}"#, #"{"assigned_operator":{"id":""}}"#,
            #"{"assigned_operator":"op-olga"}"#, #"{"assigned_operator":{"id":"op-olga"},"status":null}"#,
            #"{"assigned_operator":{"id":"op-olga"},"title":null}"#,
        ] {
            let refused = try HTTPTestClient.request(fixture.gateway, "PATCH", path, token: token, body: body)
            #expect(refused.status == 400, "\(body)")
        }
    }

    @Test func nobodyButTheGatewayWritesEvents() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let visitor = try fixture.client(.visitor, "v-1")
        let sessionID = try fixture.createSession(visitor)
        let reply = try visitor.request([
            "type": "send", "session_id": sessionID, "client_msg_id": "x", "body": "Olga joined", "kind": "event",
        ])
        #expect(reply.code == "forbidden")
    }
}

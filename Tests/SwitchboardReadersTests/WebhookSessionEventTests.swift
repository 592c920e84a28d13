import Foundation
import SwitchboardChat
import SwitchboardPostgres
import SwitchboardReaders
import SwitchboardRouting
import SwitchboardWebhooks
import Testing

/// Every path that creates, changes or deletes a session writes its
/// `session.*` event in its own transaction (migration 13's trigger), with
/// the session as the change left it; nothing for a change that rolls back,
/// nor for a workspace whose endpoints did not ask.
@Suite struct WebhookSessionEventTests {
    /// An endpoint of the fixture's workspace asking for `events`; its id.
    @discardableResult
    static func endpoint(
        _ fixture: ReadersFixture, _ events: [WebhookEventType], workspace: String? = nil
    ) throws
        -> String
    {
        let endpoint = try fixture.queries.createWebhookEndpoint(
            workspaceID: workspace ?? fixture.workspaceID,
            NewWebhookEndpoint(url: "https://example.com/hook", description: nil, events: events, secret: "whsec_t"))
        return try #require(endpoint).id
    }

    /// The session events written so far, oldest first: (type, the session object).
    private func sessionEvents(_ fixture: ReadersFixture) throws -> [(type: String, session: [String: Any])] {
        let result = try fixture.admin.query(
            "SELECT type, body FROM webhook_events WHERE type LIKE 'session.%' ORDER BY id")
        return try (0..<result.rowCount).map { row in
            let body = try #require(
                JSONSerialization.jsonObject(with: Data(result.string(row, 1)!.utf8)) as? [String: Any])
            let session = try #require((body["data"] as? [String: Any])?["session"] as? [String: Any])
            return (result.string(row, 0)!, session)
        }
    }

    @Test func everyPathWritesItsEventWithTheSessionItLeft() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        try fixture.admin.query("INSERT INTO workspaces (id, name) VALUES ($1::uuid, 'w')", [fixture.workspaceID])
        try Self.endpoint(fixture, [.sessionCreated, .sessionUpdated, .sessionDeleted])
        let queries = fixture.queries

        let created = try queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: "Order")
        // The visitor's first message queues it (the writer's function).
        try fixture.append(session: created.id, body: "hello")
        let titled = try #require(
            try queries.changeSession(
                sessionID: created.id, SessionChangeRequest(title: "Refund"),
                by: Participant(id: "op-1", role: "operator", name: "Ken")))
        let assigned = try #require(
            try queries.changeSession(
                sessionID: created.id, SessionChangeRequest(assignment: .to(id: "op-1", name: "Ken")),
                by: Participant(id: "op-1", role: "operator", name: "Ken")))
        let contact = try #require(
            try queries.recordContact(sessionID: created.id, visitorID: "v-1", email: "ann@example.com"))
        let closed = try #require(
            try queries.changeSession(
                sessionID: created.id, SessionChangeRequest(status: .closed),
                by: Participant(id: "op-1", role: "operator", name: "Ken")))
        // A visitor's message reopens it (the writer's function again).
        try fixture.append(session: created.id, body: "one more thing")
        let deleted = try #require(try queries.softDeleteSession(sessionID: created.id))

        // Ids sort by time to the millisecond; versions order a session's states exactly.
        let events = try sessionEvents(fixture).sorted {
            ($0.session["version"] as? Int ?? -1) < ($1.session["version"] as? Int ?? -1)
        }
        #expect(
            events.map(\.type) == [
                "session.created", "session.updated", "session.updated", "session.updated", "session.updated",
                "session.updated", "session.updated", "session.updated", "session.deleted",
            ], "\(events.map(\.type))")
        let states = events.map { ($0.session["version"] as? Int ?? -1, $0.session["status"] as? String ?? "") }
        #expect(states[0] == (Int(created.version), "open"))
        #expect(events[1].session["queued"] as? Bool == true, "the first message put it in the queue")
        #expect(events[2].session["title"] as? String == "Refund" && states[2].0 == Int(titled.session.version))
        #expect((events[3].session["assigned_operator"] as? [String: Any])?["id"] as? String == "op-1")
        #expect(states[3] == (Int(assigned.session.version), "assigned"))
        #expect((events[4].session["contact"] as? [String: Any])?["email"] as? String == "ann@example.com")
        #expect(states[4].0 == Int(contact.version))
        #expect(states[5] == (Int(closed.session.version), "closed"))
        // The visitor's message reopens it, then queues it again: two changes, in its transaction.
        #expect(states[6].1 == "open" && events[6].session["queued"] as? Bool == false)
        #expect(states[7].1 == "open" && events[7].session["queued"] as? Bool == true)
        #expect(states[7].0 == states[6].0 + 1)
        #expect(events[8].session["deleted"] as? Bool == true && states[8].0 == Int(deleted.version))
        // Each event's session object is the socket's: same keys as the reader's.
        #expect(events[2].session["last_message"] as? [String: Any] != nil)
        #expect(events[0].session["last_message"] is NSNull)
    }

    /// Migration 18: a note is never a session's last message in an event, a rating is a `session.updated`
    /// that carries it, and the widget's context rides along.
    @Test func notesStayOutRatingsAndContextGoIn() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        try fixture.admin.query("INSERT INTO workspaces (id, name) VALUES ($1::uuid, 'w')", [fixture.workspaceID])
        try Self.endpoint(fixture, [.sessionUpdated])
        let queries = fixture.queries
        let created = try queries.createSession(
            workspaceID: fixture.workspaceID, visitorID: "v-1", title: "Order",
            context: #"{"page_url":"https://shop.example/cart"}"#)
        try fixture.append(session: created.id, body: "hello")
        try fixture.append(
            session: created.id, role: "operator", senderID: "op-1", kind: "note", body: "VIP: refund at once")
        let ken = Participant(id: "op-1", role: "operator", name: "Ken")
        _ = try #require(
            try queries.changeSession(sessionID: created.id, SessionChangeRequest(title: "Refund"), by: ken))
        _ = try #require(
            try queries.changeSession(sessionID: created.id, SessionChangeRequest(status: .closed), by: ken))
        guard
            case .success(let rated) = try queries.recordCsat(
                sessionID: created.id, visitorID: "v-1", rating: 5, comment: "Quick!")
        else { throw FixtureError("the rating was refused") }
        #expect(rated.csat?.contains("\"rating\": 5") == true && !rated.csatSurvey)

        let events = try sessionEvents(fixture)
        #expect(events.count >= 3)
        for event in events {
            let last = event.session["last_message"] as? [String: Any]
            #expect(last?["body"] as? String == "hello", "\(event.session)")
            #expect((event.session["context"] as? [String: Any])?["page_url"] as? String == "https://shop.example/cart")
        }
        let csat = try #require(events.last?.session["csat"] as? [String: Any])
        #expect(csat["rating"] as? Int == 5 && csat["comment"] as? String == "Quick!")
        #expect(events.dropLast().allSatisfy { $0.session["csat"] == nil })
    }

    @Test func aRoutingPassWritesAnEventPerAssignment() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        try fixture.admin.query("INSERT INTO workspaces (id, name) VALUES ($1::uuid, 'w')", [fixture.workspaceID])
        try fixture.admin.query(
            """
            INSERT INTO operators (workspace_id, id, name, role, status, status_changed_at, connected_until)
            VALUES ($1::uuid, 'op-1', 'Ken', 'operator', 'online', now(), now() + interval '1 minute')
            """, [fixture.workspaceID])
        var sessions: [String] = []
        for index in 0..<3 {
            let session = try fixture.queries.createSession(
                workspaceID: fixture.workspaceID, visitorID: "v-\(index)", title: nil)
            try fixture.append(session: session.id, senderID: "v-\(index)", body: "hello")
            sessions.append(session.id)
        }
        // Subscribed only now: the queueing above wrote nothing.
        try Self.endpoint(fixture, [.sessionUpdated])
        let pass = try fixture.queries.routingPass(
            workspaceID: fixture.workspaceID,
            settings: RoutingSettings(mode: .leastBusy, maxSessionsPerOperator: 2, offlineGraceSeconds: 30))
        #expect(pass.assigned.count == 2)
        let events = try sessionEvents(fixture)
        #expect(Set(events.map { $0.session["id"] as? String ?? "" }) == Set(sessions.prefix(2)))
        #expect(events.count == 2)
        #expect(events.allSatisfy { $0.session["status"] as? String == "assigned" })
    }

    @Test func aRolledBackChangeWritesNothingAndUnaskedTypesNothing() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        try fixture.admin.query("INSERT INTO workspaces (id, name) VALUES ($1::uuid, 'w')", [fixture.workspaceID])
        try Self.endpoint(fixture, [.sessionDeleted])
        let session = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil)
        _ = try fixture.queries.changeSession(
            sessionID: session.id, SessionChangeRequest(title: "x"),
            by: Participant(id: "op", role: "operator", name: nil))
        #expect(try sessionEvents(fixture).isEmpty, "created and updated: not asked for")

        try fixture.admin.execute("BEGIN")
        try fixture.admin.query("UPDATE chat_sessions SET deleted_at = now() WHERE id = $1::uuid", [session.id])
        #expect(try sessionEvents(fixture).map(\.type) == ["session.deleted"], "written in the transaction")
        try fixture.admin.execute("ROLLBACK")
        #expect(try sessionEvents(fixture).isEmpty)
        #expect(try fixture.admin.query("SELECT count(*) FROM webhook_deliveries").int(0, 0) == 0)

        // Another workspace's endpoint hears nothing of this one.
        let other = UUID().uuidString.lowercased()
        try Self.endpoint(fixture, [.sessionCreated, .sessionDeleted], workspace: other)
        _ = try fixture.queries.softDeleteSession(sessionID: session.id)
        let deliveries = try fixture.admin.query(
            "SELECT e.workspace_id::text FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id")
        #expect(deliveries.rows.map { $0[0] } == [fixture.workspaceID])
    }
}

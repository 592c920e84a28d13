import Foundation
import SwitchboardChat
import SwitchboardReaders
import Testing

@Suite struct SessionQueryTests {
    @Test func createSessionCreatesTheWorkspaceWhenMissing() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }

        let session = try fixture.queries.createSession(
            workspaceID: fixture.workspaceID.uppercased(), visitorID: "v-42", title: "Order question")
        #expect(isLowerUUID(session.id))
        #expect(session.workspaceID == fixture.workspaceID)
        #expect(session.visitorID == "v-42")
        #expect(session.title == "Order question")
        #expect(session.status == .open)
        #expect(session.assignedOperator == nil)
        #expect(session.lastSeq == 0)
        #expect(session.lastMessage == nil)
        #expect(isProtocolTimestamp(session.createdAt))
        #expect(isProtocolTimestamp(session.updatedAt))

        let workspace = try fixture.admin.query(
            "SELECT name FROM workspaces WHERE id = $1::uuid", [fixture.workspaceID])
        #expect(workspace.rows == [["Workspace \(fixture.workspaceID)"]])
    }

    @Test func createSessionKeepsAnExistingWorkspace() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        try fixture.admin.query("INSERT INTO workspaces (id, name) VALUES ($1::uuid, 'Acme')", [fixture.workspaceID])

        let first = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil)
        let second = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-2", title: nil)
        #expect(first.title == "New chat")
        #expect(first.id != second.id)
        let workspace = try fixture.admin.query("SELECT name FROM workspaces")
        #expect(workspace.rows == [["Acme"]])
    }

    @Test func sessionIsNilWhenUnknownOrDeleted() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }

        #expect(try fixture.queries.session(id: UUID().uuidString.lowercased()) == nil)
        let created = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil)
        #expect(try fixture.queries.session(id: created.id) == created)
        try fixture.softDelete(session: created.id)
        #expect(try fixture.queries.session(id: created.id) == nil)
    }

    @Test func sessionCarriesTheLastMessage() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let created = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil)
        try fixture.append(session: created.id, body: "first")
        try fixture.append(session: created.id, role: "operator", senderID: "op-7", senderName: "Ken", body: "second")

        let session = try #require(try fixture.queries.session(id: created.id))
        #expect(session.lastSeq == 2)
        let last = try #require(session.lastMessage)
        #expect(last.seq == 2)
        #expect(last.body == "second")
        #expect(last.senderRole == "operator")
        #expect(isProtocolTimestamp(last.createdAt))
    }

    /// A visitor's message makes an open, unassigned session wait (migration
    /// 9): read back queued, since that message, until it is assigned; the
    /// contact the visitor left comes back as its JSON.
    @Test func sessionCarriesItsWaitAndContact() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let created = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil)
        #expect(created.waitingSince == nil && !created.queued && created.contact == nil)
        try fixture.append(session: created.id, body: "anyone there?")
        try fixture.admin.query(
            #"UPDATE chat_sessions SET contact = '{"email": "vera@example.com"}' WHERE id = $1::uuid"#, [created.id])

        let waiting = try #require(try fixture.queries.session(id: created.id))
        #expect(waiting.queued && isProtocolTimestamp(waiting.waitingSince ?? ""))
        #expect(waiting.waitingSince == waiting.lastMessage?.createdAt)
        #expect(waiting.contact == #"{"email": "vera@example.com"}"#)
        let assigned = try #require(
            try fixture.queries.assign(sessionID: created.id, operatorID: "op-7", operatorName: "Ken"))
        #expect(!assigned.queued && assigned.waitingSince == waiting.waitingSince)
        let page = try fixture.queries.inbox(
            workspaceID: fixture.workspaceID, statuses: [], limit: 10, cursor: nil)
        #expect(page.sessions == [assigned], "the inbox reads the same columns")
    }

    @Test func assignAndCloseTransitions() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let created = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil)
        try fixture.append(session: created.id, body: "hello")

        let assigned = try #require(
            try fixture.queries.assign(sessionID: created.id, operatorID: "op-7", operatorName: "Ken"))
        #expect(assigned.status == .assigned)
        #expect(assigned.assignedOperator == AssignedOperator(id: "op-7", name: "Ken"))
        #expect(assigned.lastMessage?.body == "hello")
        #expect(try fixture.queries.session(id: created.id) == assigned)

        let closed = try #require(try fixture.queries.close(sessionID: created.id))
        #expect(closed.status == .closed)
        #expect(closed.assignedOperator == assigned.assignedOperator)
        let closedAt = try fixture.admin.query(
            "SELECT closed_at IS NOT NULL FROM chat_sessions WHERE id = $1::uuid", [created.id])
        #expect(closedAt.bool(0, 0) == true)

        // Closing again changes nothing, updated_at included.
        let again = try #require(try fixture.queries.close(sessionID: created.id))
        #expect(again == closed)

        // Assigning re-opens, to another operator, without a name.
        let reopened = try #require(
            try fixture.queries.assign(sessionID: created.id, operatorID: "op-8", operatorName: nil))
        #expect(reopened.status == .assigned)
        #expect(reopened.assignedOperator == AssignedOperator(id: "op-8", name: nil))
        let cleared = try fixture.admin.query(
            "SELECT closed_at IS NULL FROM chat_sessions WHERE id = $1::uuid", [created.id])
        #expect(cleared.bool(0, 0) == true)
    }

    @Test func assignAndCloseAreNilForMissingOrDeletedSessions() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let missing = UUID().uuidString.lowercased()
        #expect(try fixture.queries.assign(sessionID: missing, operatorID: "op-7", operatorName: nil) == nil)
        #expect(try fixture.queries.close(sessionID: missing) == nil)

        let created = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil)
        try fixture.softDelete(session: created.id)
        #expect(try fixture.queries.assign(sessionID: created.id, operatorID: "op-7", operatorName: nil) == nil)
        #expect(try fixture.queries.close(sessionID: created.id) == nil)
    }

    @Test func refusedStatementsAreFailedNotUnavailable() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        // Over the 128-byte visitor id check: the server refuses, the connection lives on.
        let tooLong = String(repeating: "v", count: 200)
        #expect {
            _ = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: tooLong, title: nil)
        } throws: { error in
            guard case .failed = error as? QueryError else { return false }
            return true
        }
        try fixture.queries.ping()
    }
}

import Foundation
import SwitchboardChat
import SwitchboardPostgres
import SwitchboardReaders
import SwitchboardStore
import SwitchboardTestSupport
import Testing

@Suite struct AdminQueryTests {
    /// Six live sessions, newest first by index (created_at one minute apart):
    /// 0 assigned to op-1, 1 assigned to op-1 then closed (keeps its operator),
    /// 2 assigned to op-2, 3 closed unassigned, 4 and 5 open; plus a deleted
    /// session assigned to op-1 and one of op-1's in another workspace.
    private func arrange(_ fixture: ReadersFixture) throws -> [String] {
        var ids: [String] = []
        for index in 0..<6 {
            let id = try fixture.queries.createSession(
                workspaceID: fixture.workspaceID, visitorID: "v-\(index)", title: nil
            ).id
            try fixture.admin.query(
                "UPDATE chat_sessions SET created_at = '2026-01-02 12:00:00+00'::timestamptz - $2::int * interval '1 minute' WHERE id = $1::uuid",
                [id, String(index)])
            ids.append(id)
        }
        _ = try fixture.queries.assign(sessionID: ids[0], operatorID: "op-1", operatorName: "Ann")
        _ = try fixture.queries.assign(sessionID: ids[1], operatorID: "op-1", operatorName: "Ann")
        _ = try fixture.queries.close(sessionID: ids[1])
        _ = try fixture.queries.assign(sessionID: ids[2], operatorID: "op-2", operatorName: nil)
        _ = try fixture.queries.close(sessionID: ids[3])
        let deleted = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-x", title: nil)
        _ = try fixture.queries.assign(sessionID: deleted.id, operatorID: "op-1", operatorName: "Ann")
        try fixture.softDelete(session: deleted.id)
        let other = try fixture.queries.createSession(
            workspaceID: UUID().uuidString.lowercased(), visitorID: "v-other", title: nil)
        _ = try fixture.queries.assign(sessionID: other.id, operatorID: "op-1", operatorName: "Ann")
        return ids
    }

    /// Every page of a filtered inbox, `limit` at a time.
    private func pages(
        _ fixture: ReadersFixture, statuses: [SessionStatus], assigned: AssignedFilter, limit: Int
    ) throws -> [[String]] {
        var result: [[String]] = []
        var cursor: String?
        repeat {
            let page = try fixture.queries.inbox(
                workspaceID: fixture.workspaceID, statuses: statuses, assigned: assigned, limit: limit, cursor: cursor)
            result.append(page.sessions.map(\.id))
            cursor = page.nextCursor
        } while cursor != nil && result.count < 10
        return result
    }

    @Test func inboxFiltersByAssignmentWithStatusesAndPaging() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let ids = try arrange(fixture)

        #expect(try pages(fixture, statuses: [], assigned: .any, limit: 4) == [Array(ids[0..<4]), Array(ids[4..<6])])
        #expect(try pages(fixture, statuses: [], assigned: .unassigned, limit: 2) == [[ids[3], ids[4]], [ids[5]]])
        #expect(try pages(fixture, statuses: [.open], assigned: .unassigned, limit: 10) == [[ids[4], ids[5]]])
        #expect(try pages(fixture, statuses: [.closed], assigned: .unassigned, limit: 10) == [[ids[3]]])
        #expect(try pages(fixture, statuses: [], assigned: .operatorID("op-1"), limit: 1) == [[ids[0]], [ids[1]]])
        #expect(
            try pages(fixture, statuses: [.assigned], assigned: .operatorID("op-1"), limit: 10) == [[ids[0]]])
        #expect(try pages(fixture, statuses: [.closed], assigned: .operatorID("op-1"), limit: 10) == [[ids[1]]])
        #expect(try pages(fixture, statuses: [.open], assigned: .operatorID("op-1"), limit: 10) == [[]])
        #expect(try pages(fixture, statuses: [], assigned: .operatorID("op-2"), limit: 10) == [[ids[2]]])
        #expect(try pages(fixture, statuses: [], assigned: .operatorID("nobody"), limit: 10) == [[]])
        // An operator id is a value, never SQL.
        #expect(try pages(fixture, statuses: [], assigned: .operatorID("' OR true --"), limit: 10) == [[]])

        // The old signature is the `.any` filter.
        let plain = try fixture.queries.inbox(
            workspaceID: fixture.workspaceID, statuses: [.assigned], limit: 10, cursor: nil)
        let any = try fixture.queries.inbox(
            workspaceID: fixture.workspaceID, statuses: [.assigned], assigned: .any, limit: 10, cursor: nil)
        #expect(plain == any)
        #expect(plain.sessions.map(\.id) == [ids[0], ids[2]])
        #expect(plain.sessions[0].assignedOperator == AssignedOperator(id: "op-1", name: "Ann"))

        #expect(throws: QueryError.invalidCursor) {
            _ = try fixture.queries.inbox(
                workspaceID: fixture.workspaceID, statuses: [], assigned: .unassigned, limit: 2, cursor: "x")
        }
    }

    @Test func updateChangesTitleOnly() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let session = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil)
        try fixture.append(session: session.id, body: "hello")

        let renamed = try #require(try fixture.queries.update(sessionID: session.id, title: "Billing question"))
        #expect(renamed.title == "Billing question")
        #expect(renamed.status == .open)
        #expect(renamed.lastMessage?.body == "hello")
        #expect(renamed.lastSeq == 1, "a new title is no system line")
        #expect(isProtocolTimestamp(renamed.updatedAt))
        #expect(try fixture.queries.session(id: session.id) == renamed)

        // Nothing to change: the session comes back as it is, not written.
        let same = try #require(
            try fixture.queries.changeSession(
                sessionID: session.id, SessionChangeRequest(title: "Billing question"), by: .closer))
        #expect(!same.changed && same.event == nil)
        #expect(same.session == renamed)
    }

    @Test func statusTransitions() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let id = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil).id
        func closedAt() throws -> String? {
            try fixture.admin.query("SELECT closed_at::text FROM chat_sessions WHERE id = $1::uuid", [id]).string(0, 0)
        }

        // assigned without an operator: the one asking takes it.
        let taken = try #require(try fixture.queries.update(sessionID: id, status: .assigned))
        #expect(taken.status == .assigned)
        #expect(taken.assignedOperator == AssignedOperator(id: "op-closer", name: "Cleo"))

        // closed: closed_at set; a second close keeps it.
        let closed = try #require(try fixture.queries.update(sessionID: id, status: .closed))
        #expect(closed.status == .closed)
        let firstClosedAt = try closedAt()
        #expect(firstClosedAt != nil)
        _ = try fixture.queries.update(sessionID: id, status: .closed)
        #expect(try closedAt() == firstClosedAt)

        // assigned with an operator (kept through the close): re-opened as assigned, closed_at cleared.
        _ = try fixture.queries.assign(sessionID: id, operatorID: "op-1", operatorName: "Ann")
        _ = try fixture.queries.close(sessionID: id)
        #expect(try closedAt() != nil)
        let assigned = try #require(try fixture.queries.update(sessionID: id, status: .assigned))
        #expect(assigned.status == .assigned)
        #expect(assigned.assignedOperator == AssignedOperator(id: "op-1", name: "Ann"))
        #expect(try closedAt() == nil)

        // open from closed: operator and closed_at cleared.
        _ = try fixture.queries.close(sessionID: id)
        let reopened = try #require(try fixture.queries.update(sessionID: id, title: "Again", status: .open))
        #expect(reopened.status == .open)
        #expect(reopened.title == "Again")
        #expect(reopened.assignedOperator == nil)
        #expect(try closedAt() == nil)
        let operatorColumns = try fixture.admin.query(
            "SELECT assigned_operator_id, assigned_operator_name FROM chat_sessions WHERE id = $1::uuid", [id])
        #expect(operatorColumns.rows == [[nil, nil]])
    }

    @Test func updateOfMissingOrDeletedSessionIsNotFound() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let missing = UUID().uuidString.lowercased()
        #expect(try fixture.queries.update(sessionID: missing, title: "x") == nil)
        #expect(try fixture.queries.update(sessionID: missing, status: .assigned) == nil)
        let id = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil).id
        _ = try fixture.queries.assign(sessionID: id, operatorID: "op-1", operatorName: nil)
        try fixture.softDelete(session: id)
        #expect(try fixture.queries.update(sessionID: id, title: "x") == nil)
        #expect(try fixture.queries.update(sessionID: id, status: .closed) == nil)
        #expect(try fixture.queries.update(sessionID: id, status: .assigned) == nil)
        let title = try fixture.admin.query("SELECT title, status FROM chat_sessions WHERE id = $1::uuid", [id])
        #expect(title.rows == [["New chat", "assigned"]])
    }

    @Test func softDeleteHidesTheSessionAndKeepsItsRows() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let keep = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil).id
        let id = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-2", title: nil).id
        try fixture.append(session: id, body: "one")
        try fixture.append(session: id, role: "operator", senderID: "op-1", body: "two")
        try fixture.admin.query(
            "UPDATE chat_sessions SET updated_at = '2020-01-01 00:00:00+00' WHERE id = $1::uuid", [id])

        let deleted = try fixture.queries.softDeleteSession(sessionID: id)
        #expect(deleted?.deleted == true && deleted?.id == id)
        #expect(try fixture.queries.session(id: id) == nil)
        let inbox = try fixture.queries.inbox(
            workspaceID: fixture.workspaceID, statuses: [], assigned: .any, limit: 10, cursor: nil)
        #expect(inbox.sessions.map(\.id) == [keep])
        #expect(try fixture.queries.softDeleteSession(sessionID: id) == nil)
        #expect(try fixture.queries.softDeleteSession(sessionID: UUID().uuidString.lowercased()) == nil)

        let row = try fixture.admin.query(
            "SELECT deleted_at IS NOT NULL, updated_at > '2020-01-01 00:00:00+00' FROM chat_sessions WHERE id = $1::uuid",
            [id])
        #expect(row.rows == [["t", "t"]])
        let messages = try fixture.admin.query(
            "SELECT count(*) FROM chats WHERE session_id = $1::uuid", [id])
        #expect(messages.string(0, 0) == "2")
        #expect(try fixture.queries.session(id: keep) != nil)
    }

    @Test func appliedSchemaVersion() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        #expect(try fixture.queries.appliedSchemaVersion() == Migrations.latestVersion)

        let empty = try TestDatabase(migrated: false)
        defer { empty.drop() }
        #expect(try ChatQueries(databaseURL: empty.url).appliedSchemaVersion() == nil)
    }
}

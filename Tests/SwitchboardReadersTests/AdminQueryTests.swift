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

        guard
            case .updated(let renamed) = try fixture.queries.updateSession(
                sessionID: session.id, title: "Billing question", status: nil)
        else {
            Issue.record("rename was not applied")
            return
        }
        #expect(renamed.title == "Billing question")
        #expect(renamed.status == .open)
        #expect(renamed.lastMessage?.body == "hello")
        #expect(renamed.lastSeq == 1)
        #expect(isProtocolTimestamp(renamed.updatedAt))
        #expect(try fixture.queries.session(id: session.id) == renamed)

        // Nothing to change: the session comes back as it is.
        guard
            case .updated(let same) = try fixture.queries.updateSession(sessionID: session.id, title: nil, status: nil)
        else {
            Issue.record("empty update was refused")
            return
        }
        #expect(same.title == "Billing question")
        #expect(same.status == .open)
    }

    @Test func statusTransitions() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let id = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil).id
        func closedAt() throws -> String? {
            try fixture.admin.query("SELECT closed_at::text FROM chat_sessions WHERE id = $1::uuid", [id]).string(0, 0)
        }

        // assigned without an operator: refused, nothing changes.
        #expect(
            try fixture.queries.updateSession(sessionID: id, title: "ignored", status: .assigned)
                == .conflict("the session has no assigned operator"))
        #expect(try fixture.queries.session(id: id)?.title == "New chat")
        #expect(try fixture.queries.session(id: id)?.status == .open)

        // closed: closed_at set; a second close keeps it.
        guard case .updated(let closed) = try fixture.queries.updateSession(sessionID: id, title: nil, status: .closed)
        else {
            Issue.record("close was not applied")
            return
        }
        #expect(closed.status == .closed)
        let firstClosedAt = try closedAt()
        #expect(firstClosedAt != nil)
        _ = try fixture.queries.updateSession(sessionID: id, title: nil, status: .closed)
        #expect(try closedAt() == firstClosedAt)

        // assigned with an operator (kept through the close): re-opened as assigned, closed_at cleared.
        _ = try fixture.queries.assign(sessionID: id, operatorID: "op-1", operatorName: "Ann")
        _ = try fixture.queries.close(sessionID: id)
        #expect(try closedAt() != nil)
        guard
            case .updated(let assigned) = try fixture.queries.updateSession(
                sessionID: id, title: nil, status: .assigned)
        else {
            Issue.record("assigned was refused")
            return
        }
        #expect(assigned.status == .assigned)
        #expect(assigned.assignedOperator == AssignedOperator(id: "op-1", name: "Ann"))
        #expect(try closedAt() == nil)

        // open from closed: operator and closed_at cleared.
        _ = try fixture.queries.close(sessionID: id)
        guard
            case .updated(let reopened) = try fixture.queries.updateSession(
                sessionID: id, title: "Again", status: .open)
        else {
            Issue.record("open was refused")
            return
        }
        #expect(reopened.status == .open)
        #expect(reopened.title == "Again")
        #expect(reopened.assignedOperator == nil)
        #expect(try closedAt() == nil)
        let operatorColumns = try fixture.admin.query(
            "SELECT assigned_operator_id, assigned_operator_name FROM chat_sessions WHERE id = $1::uuid", [id])
        #expect(operatorColumns.rows == [[nil, nil]])

        // And again assigned: the operator is gone now.
        if case .conflict = try fixture.queries.updateSession(sessionID: id, title: nil, status: .assigned) {
        } else {
            Issue.record("assigned without an operator after open was not a conflict")
        }
    }

    @Test func updateOfMissingOrDeletedSessionIsNotFound() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let missing = UUID().uuidString.lowercased()
        #expect(try fixture.queries.updateSession(sessionID: missing, title: "x", status: nil) == .notFound)
        #expect(try fixture.queries.updateSession(sessionID: missing, title: nil, status: .assigned) == .notFound)
        let id = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil).id
        _ = try fixture.queries.assign(sessionID: id, operatorID: "op-1", operatorName: nil)
        try fixture.softDelete(session: id)
        #expect(try fixture.queries.updateSession(sessionID: id, title: "x", status: nil) == .notFound)
        #expect(try fixture.queries.updateSession(sessionID: id, title: nil, status: .closed) == .notFound)
        #expect(try fixture.queries.updateSession(sessionID: id, title: nil, status: .assigned) == .notFound)
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

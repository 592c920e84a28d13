import Foundation
import SwitchboardChat
import SwitchboardReaders
import Testing

@Suite struct InboxQueryTests {
    /// Five live sessions in the fixture's workspace (two sharing created_at, so
    /// the id breaks the tie), one deleted, one in another workspace.
    private func arrange(_ fixture: ReadersFixture) throws -> [String] {
        var ids: [String] = []
        for index in 0..<5 {
            ids.append(
                try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-\(index)", title: nil)
                    .id)
        }
        try fixture.admin.query(
            "UPDATE chat_sessions SET created_at = '2026-01-02 03:04:05.123456+00' WHERE id = ANY ($1::uuid[])",
            ["{\(ids[1]),\(ids[2])}"])
        let deleted = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-x", title: nil)
        try fixture.softDelete(session: deleted.id)
        _ = try fixture.queries.createSession(
            workspaceID: UUID().uuidString.lowercased(), visitorID: "v-other", title: nil)
        let ordered = try fixture.admin.query(
            """
            SELECT id::text FROM chat_sessions WHERE workspace_id = $1::uuid AND deleted_at IS NULL
             ORDER BY created_at DESC, id DESC
            """, [fixture.workspaceID])
        return ordered.rows.map { $0[0]! }
    }

    @Test func pagesNewestFirstWithoutRepeatsOrGaps() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let expected = try arrange(fixture)
        #expect(expected.count == 5)

        var seen: [String] = []
        var pageSizes: [Int] = []
        var cursor: String?
        repeat {
            let page = try fixture.queries.inbox(
                workspaceID: fixture.workspaceID, statuses: [], limit: 2, cursor: cursor)
            seen += page.sessions.map(\.id)
            pageSizes.append(page.sessions.count)
            cursor = page.nextCursor
        } while cursor != nil && pageSizes.count < 10
        #expect(pageSizes == [2, 2, 1])
        #expect(seen == expected)

        let all = try fixture.queries.inbox(workspaceID: fixture.workspaceID, statuses: [], limit: 5, cursor: nil)
        #expect(all.sessions.map(\.id) == expected)
        #expect(all.nextCursor == nil)
    }

    @Test func filtersByStatusAndCarriesLastMessages() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let ids = try arrange(fixture)
        _ = try fixture.queries.assign(sessionID: ids[0], operatorID: "op-7", operatorName: "Ken")
        _ = try fixture.queries.close(sessionID: ids[3])
        try fixture.append(session: ids[0], body: "hi")

        let open = try fixture.queries.inbox(
            workspaceID: fixture.workspaceID, statuses: [.open], limit: 10, cursor: nil)
        #expect(open.sessions.map(\.id) == [ids[1], ids[2], ids[4]])
        let busy = try fixture.queries.inbox(
            workspaceID: fixture.workspaceID, statuses: [.assigned, .closed], limit: 10, cursor: nil)
        #expect(busy.sessions.map(\.id) == [ids[0], ids[3]])
        #expect(busy.sessions[0].assignedOperator == AssignedOperator(id: "op-7", name: "Ken"))
        #expect(busy.sessions[0].lastMessage?.body == "hi")
        #expect(busy.sessions[1].status == .closed)
        #expect(busy.sessions[1].lastMessage == nil)
    }

    @Test func emptyAndUnknownWorkspaces() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        _ = try arrange(fixture)
        let other = try fixture.queries.inbox(
            workspaceID: UUID().uuidString.lowercased(), statuses: [], limit: 10, cursor: nil)
        #expect(other == InboxPage(sessions: [], nextCursor: nil))
        let none = try fixture.queries.inbox(workspaceID: fixture.workspaceID, statuses: [], limit: 0, cursor: nil)
        #expect(none == InboxPage(sessions: [], nextCursor: nil))
    }

    @Test(arguments: [
        "", "abc", "123", "123_", "_0b1c2d3e-0000-4000-8000-000000000000", "x_0b1c2d3e-0000-4000-8000-000000000000",
        "1_0b1c2d3e-0000-4000-8000-00000000000", "1_0b1c2d3e-0000-4000-8000-00000000000g",
        "1_0b1c2d3e-0000-4000-8000-000000000000_2", "1_0b1c2d3e00004000800000000000000000",
        "99999999999999999999_0b1c2d3e-0000-4000-8000-000000000000", "1_'; DROP TABLE chats; --",
        // 19 digits: beyond docs/openapi.yaml's pattern, in Int64's range or not (the API fuzzer's find).
        "1000000000000000000_0b1c2d3e-0000-4000-8000-000000000000",
        "9340261265231829393_6be75fd0-ad7e-6aa1-cb9d-ccc0e46cfd35",
        "+1_0b1c2d3e-0000-4000-8000-000000000000", "--1_0b1c2d3e-0000-4000-8000-000000000000",
        "-_0b1c2d3e-0000-4000-8000-000000000000",
        // 18 digits below zero: before PostgreSQL's first timestamp.
        "-999999999999999999_0b1c2d3e-0000-4000-8000-000000000000",
    ])
    func malformedCursorsAreRefused(cursor: String) throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        #expect(throws: QueryError.invalidCursor) {
            _ = try fixture.queries.inbox(workspaceID: fixture.workspaceID, statuses: [], limit: 2, cursor: cursor)
        }
    }

    /// Everything the pattern in docs/openapi.yaml admits is a position, not an
    /// error: a page after it lists the sessions older than that position.
    @Test(arguments: [
        ("999999999999999999_0b1c2d3e-0000-4000-8000-000000000000", true),
        ("0_0b1c2d3e-0000-4000-8000-000000000000", false),
        ("-99999999999999999_0b1c2d3e-0000-4000-8000-000000000000", false),
        ("-0_0b1c2d3e-0000-4000-8000-000000000000", false),
    ])
    func cursorsThePatternAdmitsArePositions(cursor: String, afterEverySession: Bool) throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let expected = try arrange(fixture)
        let page = try fixture.queries.inbox(
            workspaceID: fixture.workspaceID, statuses: [], limit: 10, cursor: cursor)
        // The year 33,658 is after every session; 1970 and earlier, before every one.
        #expect(page.sessions.map(\.id) == (afterEverySession ? expected : []))
        #expect(page.nextCursor == nil)
    }
}

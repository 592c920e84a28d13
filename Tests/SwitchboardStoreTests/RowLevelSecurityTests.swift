import SwitchboardPostgres
import SwitchboardStore
import SwitchboardTestSupport
import Testing

/// The policies really confine a role that is not the owner, through the
/// switchboard.* session settings (docs/database.md).
@Suite struct RowLevelSecurityTests {
    private func visibleTitles(_ db: PostgresConnection) throws -> [String] {
        try db.column("SELECT title FROM chat_sessions ORDER BY title").compactMap { $0 }
    }

    @Test func policiesConfineANonOwnerRole() throws {
        let confined = try ConfinedRole(prefix: "sb_reader_")
        defer { confined.drop() }
        let (owner, role) = (confined.owner, confined.name)
        try owner.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON chat_sessions TO \(role)")
        let (w1, w2) = (newUUID(), newUUID())
        try owner.query("INSERT INTO workspaces (id, name) VALUES ($1, 'one'), ($2, 'two')", [w1, w2])
        try owner.query(
            """
            INSERT INTO chat_sessions (workspace_id, user_id, title)
            VALUES ($1, 'v-1', 'w1 v-1'), ($1, 'v-2', 'w1 v-2'), ($2, 'v-1', 'w2 v-1')
            """, [w1, w2])

        let reader = try confined.connect()
        // No settings: nothing at all.
        #expect(try visibleTitles(reader) == [])

        // An operator sees its workspace only, and cannot touch another's rows.
        try reader.actFor(workspace: w1, role: "operator", user: "op-1")
        #expect(try visibleTitles(reader) == ["w1 v-1", "w1 v-2"])
        #expect(
            try reader.query("UPDATE chat_sessions SET title = 'x' WHERE workspace_id = $1", [w2]).affectedRows == 0)
        let moved = #expect(throws: PostgresError.self) {
            try reader.query("UPDATE chat_sessions SET workspace_id = $1 WHERE title = 'w1 v-1'", [w2])
        }
        #expect(moved?.sqlState == "42501")

        // A visitor sees only its own sessions, may open one for itself, and deletes nothing.
        try reader.actFor(workspace: w1, role: "visitor", user: "v-1")
        #expect(try visibleTitles(reader) == ["w1 v-1"])
        try reader.query(
            "INSERT INTO chat_sessions (workspace_id, user_id, title) VALUES ($1, 'v-1', 'w1 v-1 b')", [w1])
        let forged = #expect(throws: PostgresError.self) {
            try reader.query(
                "INSERT INTO chat_sessions (workspace_id, user_id, title) VALUES ($1, 'v-2', 'forged')", [w1])
        }
        #expect(forged?.sqlState == "42501")
        let elsewhere = #expect(throws: PostgresError.self) {
            try reader.query(
                "INSERT INTO chat_sessions (workspace_id, user_id, title) VALUES ($1, 'v-1', 'elsewhere')", [w2])
        }
        #expect(elsewhere?.sqlState == "42501")
        let handedOver = #expect(throws: PostgresError.self) {
            try reader.query("UPDATE chat_sessions SET user_id = 'v-2' WHERE title = 'w1 v-1'")
        }
        #expect(handedOver?.sqlState == "42501")
        #expect(try reader.query("UPDATE chat_sessions SET title = 'w1 v-1' WHERE title = 'w1 v-1'").affectedRows == 1)
        #expect(try reader.query("DELETE FROM chat_sessions").affectedRows == 0)
        #expect(try visibleTitles(reader) == ["w1 v-1", "w1 v-1 b"])

        // Settings cleared again: nothing.
        try reader.actFor(workspace: nil, role: nil, user: nil)
        #expect(try visibleTitles(reader) == [])
        // The owner (the gateway) is not bound by the policies.
        #expect(try owner.count("SELECT count(*) FROM chat_sessions") == 4)
    }
}

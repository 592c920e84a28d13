import SwitchboardPostgres
import SwitchboardStore
import SwitchboardTestSupport
import Testing

/// What the (session_id, workspace_id) key on chats guarantees.
@Suite struct MessageIntegrityTests {
    private func insertMessage(
        _ db: PostgresConnection, session: String, workspace: String, seq: Int
    ) throws {
        try db.query(
            """
            INSERT INTO chats (session_id, workspace_id, seq, client_msg_id, role, sender_id, content)
            VALUES ($1, $2, $3, $4, 'visitor', 'v1', 'hello')
            """, [session, workspace, String(seq), "m\(seq)"])
    }

    @Test func aMessageMustBelongToItsSessionsWorkspace() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let db = try database.connect()
        let (w1, w2, session) = (newUUID(), newUUID(), newUUID())
        try db.query("INSERT INTO workspaces (id, name) VALUES ($1, 'one'), ($2, 'two')", [w1, w2])
        try db.query("INSERT INTO chat_sessions (id, workspace_id) VALUES ($1, $2)", [session, w1])
        try insertMessage(db, session: session, workspace: w1, seq: 1)
        let wrongWorkspace = #expect(throws: PostgresError.self) {
            try insertMessage(db, session: session, workspace: w2, seq: 2)
        }
        #expect(wrongWorkspace?.sqlState == "23503")
        let noSession = #expect(throws: PostgresError.self) {
            try insertMessage(db, session: newUUID(), workspace: w1, seq: 1)
        }
        #expect(noSession?.sqlState == "23503")
    }

    @Test func historyIsNeverDeletedByACascade() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let db = try database.connect()
        let (workspace, session) = (newUUID(), newUUID())
        try db.query("INSERT INTO workspaces (id, name) VALUES ($1, 'w')", [workspace])
        try db.query("INSERT INTO chat_sessions (id, workspace_id) VALUES ($1, $2)", [session, workspace])
        try insertMessage(db, session: session, workspace: workspace, seq: 1)
        let deleteSession = #expect(throws: PostgresError.self) {
            try db.query("DELETE FROM chat_sessions WHERE id = $1", [session])
        }
        #expect(deleteSession?.sqlState == "23503")
        let deleteWorkspace = #expect(throws: PostgresError.self) {
            try db.query("DELETE FROM workspaces WHERE id = $1", [workspace])
        }
        #expect(deleteWorkspace?.sqlState == "23503")
        #expect(try db.count("SELECT count(*) FROM chats") == 1)
    }

    @Test func migratingDownRestoresTheLegacyWorkspaceKey() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let db = try database.connect()
        let keys = "SELECT conname FROM pg_constraint WHERE conrelid = 'chats'::regclass AND contype = 'f' ORDER BY 1"
        #expect(try db.column(keys) == ["chats_session_workspace_fkey"])
        try MigrationRunner(connection: db).migrateDown(to: 2)
        #expect(try db.column(keys) == ["chats_workspace_id_fkey"])
    }
}

/// Migration 27: the seed guide's `idx_chats_session_id` is the `(session_id, seq)` key's index.
@Suite struct SessionKeyIndexTests {
    private let chatsIndexes = """
        SELECT indexname || ': ' || regexp_replace(indexdef, '^.* USING ', '') FROM pg_indexes
         WHERE tablename = 'chats' AND indexdef LIKE '%(session_id%' ORDER BY 1
        """

    @Test func theGuidesSessionIndexIsTheUniqueSequenceKey() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let db = try database.connect()
        #expect(
            try db.column(chatsIndexes) == [
                "chats_session_client_msg_id_key: btree (session_id, client_msg_id)",
                "idx_chats_session_created: btree (session_id, created_at)",
                "idx_chats_session_id: btree (session_id, seq)",
            ])
        let unique = "SELECT indisunique::text FROM pg_index WHERE indexrelid = 'idx_chats_session_id'::regclass"
        #expect(try db.column(unique) == ["true"])

        // It still keeps a session's sequence free of repeats.
        let (workspace, session) = (newUUID(), newUUID())
        try db.query("INSERT INTO workspaces (id, name) VALUES ($1, 'w')", [workspace])
        try db.query("INSERT INTO chat_sessions (id, workspace_id) VALUES ($1, $2)", [session, workspace])
        let insert = """
            INSERT INTO chats (session_id, workspace_id, seq, client_msg_id, role, sender_id, content)
            VALUES ($1, $2, 1, $3, 'visitor', 'v1', 'hello')
            """
        try db.query(insert, [session, workspace, "m1"])
        let repeated = #expect(throws: PostgresError.self) { try db.query(insert, [session, workspace, "m2"]) }
        #expect(repeated?.sqlState == "23505")

        // A lookup by session alone still goes by key (through whichever
        // session-led index the planner picks), and a session's page by seq through this one.
        try db.query("SET enable_seqscan = off")
        let bySession = try db.column("EXPLAIN SELECT id FROM chats WHERE session_id = '\(session)'")
        #expect(bySession.contains { $0?.contains("Index Cond: (session_id = ") == true })
        let page = try db.column(
            "EXPLAIN SELECT id FROM chats WHERE session_id = '\(session)' ORDER BY seq DESC LIMIT 50")
        #expect(page.contains { $0?.contains("using idx_chats_session_id on chats") == true })
        #expect(try SchemaVerifier(connection: db).verify() == [])
    }

    @Test func migratingDownRestoresBothIndexes() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let db = try database.connect()
        #expect(
            try MigrationRunner(connection: db).migrateDown(to: 26).map(\.version) == Array((27...latest).reversed()))
        #expect(
            try db.column(chatsIndexes) == [
                "chats_session_client_msg_id_key: btree (session_id, client_msg_id)",
                "chats_session_seq_key: btree (session_id, seq)",
                "idx_chats_session_created: btree (session_id, created_at)",
                "idx_chats_session_id: btree (session_id)",
            ])
        #expect(try MigrationRunner(connection: db).up().map(\.version) == Array(27...latest))
        #expect(try SchemaVerifier(connection: db).verify() == [])
    }
}

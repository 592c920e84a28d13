import SwitchboardPostgres
import SwitchboardStore
import SwitchboardTestSupport
import Testing

@Suite struct MigrateDownTests {
    /// A workspace with one session holding one message and a read position.
    private func seed(_ db: PostgresConnection) throws -> (workspace: String, session: String) {
        let workspace = newUUID()
        let session = newUUID()
        try db.query("INSERT INTO workspaces (id, name) VALUES ($1, 'w')", [workspace])
        try db.query(
            "INSERT INTO chat_sessions (id, workspace_id, user_id, title) VALUES ($1, $2, 'v-1', 'Hi')",
            [session, workspace])
        let stored = try db.query(
            "SELECT status FROM switchboard_append_messages($1, $2, $3, $4, $5, $6, $7)",
            ["{\(session)}", "{c-1}", "{visitor}", "{v-1}", "{Vera}", "{text}", "{hello}"])
        #expect(stored.string(0, 0) == "stored")
        try db.query(
            """
            INSERT INTO chat_read_positions (session_id, reader_id, reader_role, seq)
            VALUES ($1, 'v-1', 'visitor', 1)
            """, [session])
        return (workspace, session)
    }

    @Test func downToTwoDeletesSessionDataThenUpAdoptsTheMessagesAgain() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let db = try database.connect()
        let (workspace, _) = try seed(db)
        let runner = try MigrationRunner(connection: db)

        #expect(try runner.migrateDown(to: 2).map(\.version) == Array((3...latest).reversed()))
        #expect(try db.appliedVersions() == [1, 2])
        // Deleted: read positions, sessions, and the session columns of chats.
        #expect(try !db.exists("chat_read_positions"))
        #expect(try db.count("SELECT count(*) FROM chat_sessions") == 0)
        let sessionColumn = """
            SELECT count(*) FROM information_schema.columns WHERE table_name = 'chats' AND column_name = 'session_id'
            """
        #expect(try db.count(sessionColumn) == 0)
        #expect(try db.count("SELECT count(*) FROM pg_proc WHERE proname = 'switchboard_append_messages'") == 0)
        // Kept: the message itself, in the legacy layout.
        #expect(try db.column("SELECT content FROM chats") == ["hello"])

        #expect(try runner.up().map(\.version) == Array(3...latest))
        #expect(try SchemaVerifier(connection: db).verify() == [])
        let legacy = try db.query(
            """
            SELECT s.workspace_id::text, c.seq FROM chats c JOIN chat_sessions s ON s.id = c.session_id
             WHERE s.title = 'Legacy Chat'
            """)
        #expect(legacy.rows == [[workspace, "1"]])
    }

    @Test func downToFiveRestoresTheVersionFiveFunctionWhichStillStores() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let db = try database.connect()
        let (_, session) = try seed(db)
        let definition = "SELECT pg_get_functiondef('switchboard_append_messages'::regproc)"
        #expect(try db.column(definition).first??.contains("LEFT JOIN LATERAL") == true)

        #expect(try MigrationRunner(connection: db).migrateDown(to: 5).map(\.version) == Array((6...latest).reversed()))
        #expect(
            try db.column(definition).first??.contains("WHERE s.id = ANY (p_session_ids) ORDER BY s.id FOR UPDATE")
                == true)
        let stored = try db.query(
            "SELECT status, seq FROM switchboard_append_messages($1, $2, $3, $4, $5, $6, $7)",
            ["{\(session)}", "{c-2}", "{visitor}", "{v-1}", "{Vera}", "{text}", "{again}"])
        #expect(stored.rows == [["stored", "2"]])
        #expect(try MigrationRunner(connection: db).up().map(\.version) == Array(6...latest))
        #expect(try SchemaVerifier(connection: db).verify() == [])
    }

    @Test func downToZeroKeepsTablesThatHoldDataAndDropsEmptyOnes() throws {
        let full = try TestDatabase(migrated: true)
        defer { full.drop() }
        let db = try full.connect()
        _ = try seed(db)
        #expect(try MigrationRunner(connection: db).migrateDown(to: 0).count == latest)
        #expect(try db.appliedVersions() == [])
        #expect(try db.exists("workspaces") && db.exists("chats"))
        #expect(try !db.exists("chat_sessions"))
        #expect(try db.count("SELECT count(*) FROM pg_proc WHERE proname = 'update_updated_at'") == 0)
        #expect(try MigrationRunner(connection: db).up().count == latest)
        #expect(try SchemaVerifier(connection: db).verify() == [])

        let blank = try TestDatabase(migrated: true)
        defer { blank.drop() }
        let empty = try blank.connect()
        try MigrationRunner(connection: empty).migrateDown(to: 0)
        #expect(try !empty.exists("workspaces") && !empty.exists("chats"))
    }

    @Test func invalidTargetsAndDivergedHistoriesAreRefused() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let db = try database.connect()
        let runner = try MigrationRunner(connection: db)
        #expect(throws: MigrationError.invalidTarget(future, current: latest)) { try runner.migrateDown(to: future) }
        #expect(throws: MigrationError.invalidTarget(-1, current: latest)) { try runner.migrateDown(to: -1) }
        #expect(try runner.migrateDown(to: latest).isEmpty)

        let edited = try MigrationRunner(connection: db, migrations: migrations(editing: 4))
        #expect(throws: MigrationError.self) { try edited.migrateDown(to: 3) }
        #expect(try db.appliedVersions() == Array(1...latest))
    }
}

@Suite struct SessionPageRoomTests {
    @Test func migration22LeavesHalfOfEachSessionPageFreeAndItsDownRestoresSeventyPercentFull() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let db = try database.connect()
        let options =
            "SELECT coalesce(array_to_string(reloptions, ','), '') FROM pg_class WHERE relname = 'chat_sessions'"
        #expect(try db.column(options) == ["fillfactor=50"])
        try MigrationRunner(connection: db).migrateDown(to: 21)
        #expect(try db.column(options) == ["fillfactor=70"])
    }
}

import SwitchboardPostgres
import SwitchboardStore
import SwitchboardTestSupport
import Testing

/// `verify` against deliberately broken databases: each breakage is named.
@Suite struct SchemaVerifierTests {
    enum Breakage: String, CaseIterable, CustomTestStringConvertible {
        case droppedIndex, droppedPolicy, disabledRowLevelSecurity, sessionWithoutWorkspace
        case orphanedMessage, droppedTrigger, droppedColumn, extraPolicy

        var testDescription: String { rawValue }

        /// The SQL that breaks a migrated database, and the checks that must fail.
        var damage: (sql: String, failures: Set<String>) {
            switch self {
            case .droppedIndex:
                ("DROP INDEX idx_chats_session_created", ["index:idx_chats_session_created"])
            case .droppedPolicy:
                ("DROP POLICY chat_sessions_delete ON chat_sessions", ["policies"])
            case .disabledRowLevelSecurity:
                ("ALTER TABLE chat_sessions DISABLE ROW LEVEL SECURITY", ["rls_enabled"])
            case .sessionWithoutWorkspace:
                (
                    """
                    SET session_replication_role = replica;
                    INSERT INTO chat_sessions (workspace_id) VALUES (gen_random_uuid());
                    SET session_replication_role = DEFAULT;
                    """, ["sessions_without_workspace"]
                )
            case .orphanedMessage:
                (
                    """
                    ALTER TABLE chats ALTER COLUMN session_id DROP NOT NULL;
                    INSERT INTO workspaces (id, name) VALUES (gen_random_uuid(), 'w');
                    INSERT INTO chats (workspace_id, seq, client_msg_id, role, content)
                        SELECT id, 1, 'c1', 'visitor', 'hello' FROM workspaces;
                    """, ["session_id_not_null", "orphaned_messages"]
                )
            case .droppedTrigger:
                ("DROP TRIGGER chat_sessions_updated_at ON chat_sessions", ["updated_at_trigger"])
            case .droppedColumn:
                // CASCADE: the webhooks' trigger (migration 13) reads the column in its WHEN clause.
                ("ALTER TABLE chat_sessions DROP COLUMN title CASCADE", ["chat_sessions_columns"])
            case .extraPolicy:
                ("CREATE POLICY everything ON chat_sessions FOR SELECT USING (true)", ["policies"])
            }
        }
    }

    @Test(arguments: Breakage.allCases)
    func eachBreakageIsNamed(_ breakage: Breakage) throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let db = try database.connect()
        #expect(try SchemaVerifier(connection: db).verify() == [])
        try db.execute(breakage.damage.sql)
        let failures = try SchemaVerifier(connection: db).verify()
        #expect(Set(failures.map(\.check)) == breakage.damage.failures, "\(failures)")
    }

    @Test func everyBreakageAtOnceIsNamedInOneRun() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let db = try database.connect()
        for breakage in [Breakage.droppedIndex, .droppedPolicy, .disabledRowLevelSecurity, .sessionWithoutWorkspace] {
            try db.execute(breakage.damage.sql)
        }
        let failures = try SchemaVerifier(connection: db).verify()
        #expect(
            Set(failures.map(\.check)) == [
                "index:idx_chats_session_created", "policies", "rls_enabled", "sessions_without_workspace",
            ])
        let policies = try #require(failures.first { $0.check == "policies" })
        #expect(policies.message.contains("missing DELETE"))
        #expect(failures.first { $0.check == "sessions_without_workspace" }?.message.contains("1 sessions") == true)
    }

    @Test func behindOrUnmigratedDatabasesFail() throws {
        let database = try TestDatabase()
        defer { database.drop() }
        let db = try database.connect()
        let blank = try SchemaVerifier(connection: db).verify()
        #expect(Set(blank.map(\.check)).isSuperset(of: ["schema_version", "tables"]))
        try MigrationRunner(connection: db, migrations: migrations(upTo: 4)).up()
        let behind = try SchemaVerifier(connection: db).verify()
        #expect(behind.map(\.check) == ["schema_version"])
        #expect(behind.first?.message == "schema is at version 4, the latest is \(latest)")
    }
}

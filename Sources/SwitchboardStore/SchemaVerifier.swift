import SwitchboardPostgres

/// The migration guide's verification checks, run against a live database.
/// Every check runs (a missing table skips only the checks that need it), so
/// one run names every problem at once.
public struct SchemaVerifier {
    /// One failed check: `check` is a stable identifier, `message` says what is wrong.
    public struct Failure: Sendable, Equatable, CustomStringConvertible {
        public let check: String
        public let message: String

        public var description: String { "\(check): \(message)" }
    }

    /// The guide's six indexes, with the table each belongs to.
    public static let requiredIndexes: [(table: String, index: String)] = [
        ("chat_sessions", "idx_chat_sessions_workspace_id"),
        ("chat_sessions", "idx_chat_sessions_user_id"),
        ("chat_sessions", "idx_chat_sessions_created_at"),
        ("chat_sessions", "idx_chat_sessions_active"),
        ("chats", "idx_chats_session_id"),
        ("chats", "idx_chats_session_created"),
    ]

    /// The guide's chat_sessions columns (the table has more).
    public static let requiredSessionColumns = [
        "id", "workspace_id", "user_id", "title", "created_at", "updated_at", "deleted_at",
    ]

    public static let policyCommands = ["SELECT", "INSERT", "UPDATE", "DELETE"]

    private let connection: PostgresConnection
    private let migrations: [Migration]

    public init(connection: PostgresConnection, migrations: [Migration] = Migrations.all) {
        self.connection = connection
        self.migrations = migrations
    }

    /// Every failed check; empty when the schema is as the guide expects.
    public func verify() throws(MigrationError) -> [Failure] {
        var failures: [Failure] = []
        func fail(_ check: String, _ message: String) { failures.append(Failure(check: check, message: message)) }

        let history = try MigrationRunner(connection: connection, migrations: migrations).history()
        for divergence in history.divergences { fail("schema_version", divergence.description) }
        if history.divergences.isEmpty && !history.pending.isEmpty {
            fail(
                "schema_version",
                "schema is at version \(history.currentVersion), the latest is \(history.latestVersion)")
        }

        do {
            let hasChats = try tableExists("chats")
            let hasSessions = try tableExists("chat_sessions")
            let hasWorkspaces = try tableExists("workspaces")
            for (name, exists) in [("workspaces", hasWorkspaces), ("chats", hasChats), ("chat_sessions", hasSessions)]
            where !exists {
                fail("tables", "table \(name) is missing")
            }
            if hasChats { try checkMessages(fail) }
            try checkIndexes(fail)
            if hasSessions {
                try checkSessionColumns(fail)
                try checkRowLevelSecurity(fail)
                try checkTrigger(fail)
                if hasWorkspaces { try checkSessionWorkspaces(fail) }
            }
        } catch {
            throw error.kind == .connection ? .unreachable(error) : .database(error)
        }
        return failures
    }

    // MARK: - Checks

    private func checkMessages(_ fail: (String, String) -> Void) throws(PostgresError) {
        let column = try connection.query(
            """
            SELECT is_nullable FROM information_schema.columns
             WHERE table_schema = current_schema() AND table_name = 'chats' AND column_name = 'session_id'
            """)
        guard column.rowCount == 1 else {
            fail("session_id_not_null", "chats.session_id does not exist")
            return
        }
        if column.string(0, 0) != "NO" { fail("session_id_not_null", "chats.session_id allows NULL") }
        // Guide query 1.
        let orphans = try connection.query("SELECT count(*) FROM chats WHERE session_id IS NULL").int(0, 0) ?? 0
        if orphans != 0 { fail("orphaned_messages", "\(orphans) messages have no session (chats.session_id IS NULL)") }
    }

    private func checkIndexes(_ fail: (String, String) -> Void) throws(PostgresError) {
        // Guide query 4.
        let rows = try connection.query(
            """
            SELECT tablename, indexname FROM pg_indexes
             WHERE schemaname = current_schema() AND tablename IN ('chat_sessions', 'chats')
            """)
        let present = Set((0..<rows.rowCount).map { "\(rows.string($0, 0) ?? "").\(rows.string($0, 1) ?? "")" })
        for (table, index) in Self.requiredIndexes where !present.contains("\(table).\(index)") {
            fail("index:\(index)", "index \(index) on \(table) is missing")
        }
    }

    private func checkSessionColumns(_ fail: (String, String) -> Void) throws(PostgresError) {
        let rows = try connection.query(
            """
            SELECT column_name FROM information_schema.columns
             WHERE table_schema = current_schema() AND table_name = 'chat_sessions'
            """)
        let present = Set((0..<rows.rowCount).compactMap { rows.string($0, 0) })
        let missing = Self.requiredSessionColumns.filter { !present.contains($0) }
        if !missing.isEmpty {
            fail("chat_sessions_columns", "chat_sessions lacks column(s) \(missing.joined(separator: ", "))")
        }
    }

    private func checkRowLevelSecurity(_ fail: (String, String) -> Void) throws(PostgresError) {
        let enabled = try connection.query(
            "SELECT relrowsecurity FROM pg_class WHERE oid = to_regclass('chat_sessions')")
        if enabled.bool(0, 0) != true { fail("rls_enabled", "row-level security is not enabled on chat_sessions") }
        // Guide query 5.
        let rows = try connection.query(
            """
            SELECT policyname, cmd FROM pg_policies
             WHERE schemaname = current_schema() AND tablename = 'chat_sessions' ORDER BY policyname
            """)
        let commands = (0..<rows.rowCount).map { rows.string($0, 1) ?? "" }
        let expected = Self.policyCommands
        if commands.count != expected.count || Set(commands) != Set(expected) {
            let missing = expected.filter { !commands.contains($0) }
            let extra = commands.filter { !expected.contains($0) }
            var detail = "chat_sessions has \(commands.count) policies (\(commands.joined(separator: ", "))), "
            detail += "expected exactly 4, one each for SELECT, INSERT, UPDATE, DELETE"
            if !missing.isEmpty { detail += "; missing \(missing.joined(separator: ", "))" }
            if !extra.isEmpty { detail += "; unexpected \(extra.joined(separator: ", "))" }
            fail("policies", detail)
        }
    }

    private func checkTrigger(_ fail: (String, String) -> Void) throws(PostgresError) {
        let rows = try connection.query(
            """
            SELECT count(*) FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
             WHERE t.tgrelid = to_regclass('chat_sessions') AND p.proname = 'update_updated_at'
               AND NOT t.tgisinternal AND t.tgenabled <> 'D'
            """)
        if (rows.int(0, 0) ?? 0) == 0 {
            fail("updated_at_trigger", "no enabled trigger on chat_sessions calls update_updated_at()")
        }
    }

    private func checkSessionWorkspaces(_ fail: (String, String) -> Void) throws(PostgresError) {
        let rows = try connection.query(
            """
            SELECT count(*) FROM chat_sessions s
             WHERE NOT EXISTS (SELECT 1 FROM workspaces w WHERE w.id = s.workspace_id)
            """)
        let count = rows.int(0, 0) ?? 0
        if count != 0 {
            fail("sessions_without_workspace", "\(count) sessions belong to no existing workspace")
        }
    }

    private func tableExists(_ name: String) throws(PostgresError) -> Bool {
        try connection.query("SELECT to_regclass($1) IS NOT NULL", [name]).bool(0, 0) == true
    }
}

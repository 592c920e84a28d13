import SwitchboardPostgres
import SwitchboardStore
import SwitchboardTestSupport
import Testing

/// A database in the layout of the system we replace (issue 3), migrated up.
@Suite struct LegacyAdoptionTests {
    struct Seed {
        let busy = newUUID()  // five messages
        let quiet = newUUID()  // three messages
        let empty = newUUID()  // none
        /// Message ids per workspace in created_at order (inserted out of that order).
        var ordered: [String: [String]] = [:]
    }

    /// The legacy tables exactly as issue 3 gives them, seeded.
    static func createLegacy(_ db: PostgresConnection) throws -> Seed {
        try db.execute(
            """
            CREATE TABLE workspaces (
                id uuid PRIMARY KEY, name text NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
            CREATE TABLE chats (
                id uuid PRIMARY KEY, workspace_id uuid NOT NULL REFERENCES workspaces, user_id uuid,
                role text NOT NULL, content text NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
            """)
        var seed = Seed()
        for (id, name) in [(seed.busy, "Busy"), (seed.quiet, "Quiet"), (seed.empty, "Empty")] {
            try db.query("INSERT INTO workspaces (id, name) VALUES ($1, $2)", [id, name])
        }
        let user = newUUID()
        // (workspace, minutes after 09:00, role); inserted in this order, adopted in time order.
        let messages: [(String, Int, String)] = [
            (seed.busy, 30, "assistant"), (seed.busy, 5, "user"), (seed.quiet, 12, "user"),
            (seed.busy, 50, "user"), (seed.busy, 1, "user"), (seed.quiet, 2, "user"),
            (seed.busy, 40, "assistant"), (seed.quiet, 59, "assistant"),
        ]
        var byTime: [String: [(Int, String)]] = [:]
        for (index, (workspace, minute, role)) in messages.enumerated() {
            let id = newUUID()
            try db.query(
                """
                INSERT INTO chats (id, workspace_id, user_id, role, content, created_at)
                VALUES ($1, $2, $3, $4, $5, timestamptz '2025-12-01 09:00:00+00' + make_interval(mins => $6::int))
                """,
                [id, workspace, role == "user" ? user : nil, role, "message \(index) at \(minute)", String(minute)])
            byTime[workspace, default: []].append((minute, id))
        }
        seed.ordered = byTime.mapValues { $0.sorted { $0.0 < $1.0 }.map(\.1) }
        return seed
    }

    static let legacySnapshotSQL = """
        SELECT id, workspace_id, user_id, role, content, created_at FROM chats ORDER BY id
        """

    @Test func legacyDatabaseIsAdoptedAndPassesEveryGuideQuery() throws {
        let database = try TestDatabase()
        defer { database.drop() }
        let db = try database.connect()
        let seed = try Self.createLegacy(db)
        let messagesBefore = try db.query(Self.legacySnapshotSQL).rows
        let legacyWorkspaces = try db.query("SELECT * FROM workspaces ORDER BY id")
        let workspacesBefore = legacyWorkspaces.rows
        let legacyColumns = (0..<legacyWorkspaces.columnCount).map { "\"\(legacyWorkspaces.columnName($0))\"" }

        #expect(try MigrationRunner(connection: db).up().count == latest)

        // Guide query 1: no orphaned messages.
        #expect(try db.count("SELECT COUNT(*) AS orphaned_messages FROM chats WHERE session_id IS NULL") == 0)
        // Guide query 2: one legacy session per workspace with messages.
        #expect(try db.count("SELECT COUNT(*) AS legacy_sessions FROM chat_sessions WHERE title = 'Legacy Chat'") == 2)
        // Guide query 3: each legacy session holds all of its workspace's messages.
        let sessions = try db.query(
            """
            SELECT cs.id, cs.workspace_id, cs.title, cs.created_at, COUNT(c.id) as message_count
            FROM chat_sessions cs
            LEFT JOIN chats c ON c.session_id = cs.id
            WHERE cs.title = 'Legacy Chat'
            GROUP BY cs.id, cs.workspace_id, cs.title, cs.created_at
            ORDER BY cs.created_at DESC
            """)
        var counts: [String: Int] = [:]
        var sessionOf: [String: String] = [:]
        for row in 0..<sessions.rowCount {
            counts[sessions.string(row, 1)!] = sessions.int(row, 4)
            sessionOf[sessions.string(row, 1)!] = sessions.string(row, 0)
        }
        #expect(counts == [seed.busy: 5, seed.quiet: 3])
        // Guide query 4: the six indexes (and ours: open assignments per operator, migration 8; the
        // routing queue, migration 9; full-text search and its newest-first walk, migration 20's
        // message_search, replacing migration 19's indexes on chats).
        let indexes = try db.column(
            """
            SELECT indexname FROM pg_indexes
            WHERE tablename IN ('chat_sessions', 'chats', 'message_search')
            ORDER BY tablename, indexname
            """
        ).compactMap { $0 }
        #expect(
            indexes.filter { $0.hasPrefix("idx_") } == [
                "idx_chat_sessions_active", "idx_chat_sessions_assigned", "idx_chat_sessions_created_at",
                "idx_chat_sessions_queue", "idx_chat_sessions_user_id",
                "idx_chat_sessions_workspace_id", "idx_chats_session_created", "idx_chats_session_id",
                "idx_message_search_recent", "idx_message_search_vector",
            ])
        // The legacy messages wait for the search indexer: one backlog range over every id.
        #expect(
            try db.column("SELECT after_id::text || ' ' || last_id::text FROM search_backlog") == [
                "00000000-0000-0000-0000-000000000000 ffffffff-ffff-ffff-ffff-ffffffffffff"
            ])
        // Guide query 5: four policies, one per command.
        let policies = try db.query(
            """
            SELECT schemaname, tablename, policyname, permissive, roles, cmd
            FROM pg_policies WHERE tablename = 'chat_sessions' ORDER BY policyname
            """)
        #expect(policies.rowCount == 4)
        #expect(
            Set((0..<policies.rowCount).compactMap { policies.string($0, 5) }) == [
                "SELECT", "INSERT", "UPDATE", "DELETE",
            ])
        // The guide's expected results, all of them.
        #expect(try SchemaVerifier(connection: db).verify() == [])

        // Order: seq follows created_at, 1...n, and last_seq continues from there.
        for (workspace, ids) in seed.ordered {
            let session = try #require(sessionOf[workspace])
            #expect(try db.column("SELECT id::text FROM chats WHERE session_id = $1 ORDER BY seq", [session]) == ids)
            #expect(
                try db.column("SELECT seq::text FROM chats WHERE session_id = $1 ORDER BY seq", [session])
                    == (1...ids.count).map { String($0) })
            #expect(try db.count("SELECT last_seq FROM chat_sessions WHERE id = $1", [session]) == ids.count)
        }
        // Nothing dropped or changed.
        #expect(try db.query(Self.legacySnapshotSQL).rows == messagesBefore)
        // Every legacy column of every workspace as it was; migration 18's switch is on for each.
        #expect(
            try db.query("SELECT \(legacyColumns.joined(separator: ", ")) FROM workspaces ORDER BY id").rows
                == workspacesBefore)
        #expect(try db.count("SELECT count(*) FROM workspaces WHERE NOT csat_enabled") == 0)
        #expect(try db.count("SELECT count(*) FROM chat_sessions WHERE workspace_id = $1", [seed.empty]) == 0)
    }
}
